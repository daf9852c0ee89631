import type { ChainLinks } from './integrity';

/**
 * The EventStore port: the only place state is written. Both adapters (SQLite and EventStoreDB) must
 * pass `eventstore.contract.spec.ts`, which pins the semantics listed in docs/architecture.md.
 */

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface Actor {
  userId: string;
  role: string;
  platform: 'web' | 'telegram' | 'email' | 'system' | 'api';
  /** When the actor called through an API token: which one (its owner is `userId`). */
  token?: { id: string; label: string };
}

export interface EventMetadata {
  actor?: Actor;
  correlationId?: string;
  causationId?: string;
  /** When the command that produced the event was decided (ISO-8601, UTC). */
  occurredAt: string;
  schemaVersion: number;
  /** The macro whose application made this event, as it stood then (docs/macros.md). */
  macro?: MacroRef;
  /** The bulk change that made this event: its id and how many tickets it took (docs/bulk.md). */
  bulk?: BulkRef;
  /** The rule whose run made this event, as it stood then, what held and how deep in a chain of rules (docs/automation.md). */
  rule?: RuleRunRef;
}

export interface BulkRef {
  id: string;
  count: number;
}

export interface RuleRunRef {
  id: string;
  name: string;
  version: number;
  matched: string[];
  depth: number;
}

export interface MacroRef {
  id: string;
  name: string;
  version: number;
}

export interface NewEvent<Type extends string = string, Data = Record<string, unknown>> {
  /**
   * A caller-chosen id makes a retried append to the same stream idempotent; one is generated when
   * absent. Ids are idempotency keys per stream, as on EventStoreDB: an id reused in another stream
   * is refused by SQLite (DuplicateEventIdError) and stored there as a new event by EventStoreDB.
   * Callers may rely on the retry only, never on a reuse elsewhere being refused.
   */
  id?: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

/**
 * A recorded event as the domain event its type names. The log types data as any record; the
 * adapters store exactly what deciders wrote, so the type name decides the shape. Every narrowing
 * of a log event to a domain event goes through here.
 */
export const recordedAs = <E extends { type: string; data: object }>(event: RecordedEvent): RecordedEvent & E =>
  // The port's untyped data has no overlap TypeScript can see with a domain interface.
  event as unknown as RecordedEvent & E;

export interface RecordedEvent<Type extends string = string, Data = Record<string, unknown>> {
  id: string;
  streamId: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the global log: strictly increasing across all streams. */
  position: number;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  /** Tamper-evidence links stored with the event (see integrity.ts); set by both adapters. */
  chain?: ChainLinks;
}

export interface AppendResult {
  /** Revision of the last event now in the stream: the expected revision of the next append. */
  nextRevision: number;
  /** Global position of the last appended event. */
  position: number;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive starting revision (from the end when reading backwards); defaults to the start or end. */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this global position. Defaults to the start of the log. */
  after?: number;
  /**
   * Inclusive, instead of `after`: events from this position on. It must be the position of an event
   * the store reported: on EventStoreDB a position is a byte offset of the log, and the server refuses
   * one inside a record (so `position - 1` is no way to read the event at `position`).
   */
  from?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive checkpoint: the subscription delivers events strictly after it. */
  after?: number;
  /** Called for every event in global order; the next event waits until the promise settles. */
  onEvent: (event: RecordedEvent) => Promise<void> | void;
  /** Called once if delivery fails for good (a handler throws, or the store goes away). */
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Resolves once no handler is running and none will be called again. */
  stop(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb';
  /**
   * Appends atomically, each event linked to the previous one of its stream. `expected`: a revision
   * (or `no_stream`, `stream_exists`) makes a concurrent writer's win a WrongExpectedVersionError;
   * `any` always succeeds, after the store re-reads the stream's end as often as others win.
   */
  append(streamId: string, events: NewEvent[], expected?: ExpectedRevision): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Up to `maxCount` of the desk's events after `after`, in order. Fewer than asked is not the end of
   * the log (records the store keeps for itself are skipped); an empty answer is. Walk it with
   * `pagesOfAll` (paging.ts).
   */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up (from `after`) and then live tail of the global log, in order, at least once. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** Position of the desk's last event in the global log (0 when empty); the store's own records do not count. */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected version on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/**
 * An event id reused for a different event: a caller bug. Both adapters refuse an id that starts a
 * batch already stored in the same stream unless the batch is that earlier append; SQLite also
 * refuses an id stored in another stream (see NewEvent.id).
 */
export class DuplicateEventIdError extends Error {
  constructor(readonly eventId: string) {
    super(`Event id ${eventId} is already stored with other content or in another stream`);
    this.name = 'DuplicateEventIdError';
  }
}

/** A stored event whose data or metadata no longer parses as JSON (the file was altered or damaged): names the event. */
export class CorruptEventError extends Error {
  constructor(
    readonly event: { streamId: string; revision: number; position: number; eventId: string; type: string },
    readonly field: 'data' | 'metadata',
    reason: string,
  ) {
    super(
      `Event ${event.eventId} (${event.type}) in stream ${event.streamId}, revision ${event.revision}, position ${event.position}: its stored ${field} is not valid JSON (${reason})`,
    );
    this.name = 'CorruptEventError';
  }
}

export const isWrongExpectedVersion = (error: unknown): error is WrongExpectedVersionError => error instanceof WrongExpectedVersionError;
