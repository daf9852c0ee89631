import { ConflictError } from '#contract/errors';
import { CLAIM_WITHDRAWN } from '../domain/reservation/reservation';
import type { Decider, DomainEvent } from '../domain/shared/decider';
import {
  type Actor,
  type BulkRef,
  type EventStore,
  type MacroRef,
  type RecordedEvent,
  type RuleRunRef,
  isWrongExpectedVersion,
  recordedAs,
} from './eventstore/port';

const SCHEMA_VERSION = 1;

export interface CommandContext {
  actor: Actor;
  /** The decision time; stored as `occurredAt` on every event the command produces. */
  now: Date;
  correlationId?: string;
  causationId?: string;
  /** Set while a macro is applied: recorded on each event it makes. */
  macro?: MacroRef;
  /** Set while a bulk change runs: recorded on each event it makes. */
  bulk?: BulkRef;
  /** Set while a rule runs: recorded on each event it makes. */
  rule?: RuleRunRef;
}

export interface CommandResult<State, Event extends DomainEvent> {
  events: Event[];
  state: State;
  /** Global position of the last appended event (0 when the command changed nothing). */
  position: number;
  /** The stream's revision after the command (null for a stream that still does not exist). */
  revision: number | null;
}

export async function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
): Promise<{ state: State; revision: number | null; events: RecordedEvent[] }> {
  const events = await store.readStream(streamId);
  const state = events.reduce((current, event) => evolveWith(decider, current, event), decider.initialState);
  return { state, revision: events.at(-1)?.revision ?? null, events };
}

/** Folds one recorded event; a withdrawn claim's marker belongs to no decider and changes no state. */
const evolveWith = <State, Event extends DomainEvent>(decider: Pick<Decider<unknown, Event, State>, 'evolve'>, state: State, event: RecordedEvent) =>
  event.type === CLAIM_WITHDRAWN ? state : decider.evolve(state, recordedAs<Event>(event));

/**
 * A unique value a command's event relies on: the reservation its caller holds (see
 * src/app/reservations.ts). The command is refused if that reservation was withdrawn in its stream.
 */
export interface Fence {
  kind: string;
  value: string;
  /** The revision of the caller's own reservation in the value's reservation stream. */
  reservation: number;
  conflictMessage: string;
  conflictCode: string;
}

const fenceKey = (kind: string, value: string, reservation: number) => `${kind}\u0000${value.toLowerCase()}\u0000${reservation}`;

/** How many folded streams each event store keeps; a stream read again after eviction is folded anew. */
const FOLDED_STREAMS_KEPT = 5_000;

interface Folded {
  state: unknown;
  revision: number;
  /** Claims withdrawn in this stream (`fenceKey`s): rare, so usually empty. */
  withdrawn: ReadonlySet<string>;
}

const NONE_WITHDRAWN: ReadonlySet<string> = new Set();

/**
 * Folded state of recently used streams, so that a command reads only the events appended after
 * what it folded last time: its cost stays flat however long a ticket's conversation grows. Safe
 * because evolve never mutates (every state is a new value) and the tail read always follows: an
 * append by another process or another command is folded in before deciding. Keyed per decider,
 * since two deciders may fold one stream differently.
 */
class FoldedStreams {
  private readonly entries = new Map<string, Folded>();
  private readonly deciderIds = new WeakMap<object, number>();
  private deciders = 0;

  private key(decider: object, streamId: string): string {
    let id = this.deciderIds.get(decider);
    if (id === undefined) this.deciderIds.set(decider, (id = this.deciders++));
    return `${id}\u0000${streamId}`;
  }

  get(decider: object, streamId: string): Folded | undefined {
    const key = this.key(decider, streamId);
    const found = this.entries.get(key);
    if (found) {
      // Map keeps insertion order: re-inserting makes this the most recently used.
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(decider: object, streamId: string, folded: Folded) {
    const key = this.key(decider, streamId);
    this.entries.delete(key);
    this.entries.set(key, folded);
    if (this.entries.size > FOLDED_STREAMS_KEPT) this.entries.delete(this.entries.keys().next().value!);
  }
}

const foldedByStore = new WeakMap<EventStore, FoldedStreams>();
const foldedStreams = (store: EventStore) => foldedByStore.get(store) ?? foldedByStore.set(store, new FoldedStreams()).get(store)!;

/** A stream's current state and revision: the cached fold plus whatever was appended since. */
export async function foldStream<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
): Promise<{ state: State; revision: number | null; withdrawn: ReadonlySet<string> }> {
  const cache = foldedStreams(store);
  const cached = cache.get(decider, streamId) as { state: State; revision: number; withdrawn: ReadonlySet<string> } | undefined;
  const tail = await store.readStream(streamId, cached ? { fromRevision: cached.revision + 1 } : {});
  if (tail.length === 0) return cached ?? { state: decider.initialState, revision: null, withdrawn: NONE_WITHDRAWN };
  const state = tail.reduce((current, event) => evolveWith(decider, current, event), cached?.state ?? decider.initialState);
  let withdrawn = cached?.withdrawn ?? NONE_WITHDRAWN;
  for (const event of tail) {
    if (event.type !== CLAIM_WITHDRAWN) continue;
    const { kind, value, reservation } = event.data as { kind: string; value: string; reservation: number };
    withdrawn = new Set([...withdrawn, fenceKey(kind, value, reservation)]);
  }
  const revision = tail.at(-1)!.revision;
  cache.set(decider, streamId, { state, revision, withdrawn });
  return { state, revision, withdrawn };
}

/**
 * Runs one command against one stream with optimistic concurrency: load, decide, append with the
 * revision that was read. When another writer got there first the command is decided again on the
 * fresh state, so a rule is always checked against the state it changes.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  { attempts = 5, fences = [] }: { attempts?: number; fences?: readonly Fence[] } = {},
): Promise<CommandResult<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision, withdrawn } = await foldStream(store, streamId, decider);
    const lost = fences.find((fence) => withdrawn.has(fenceKey(fence.kind, fence.value, fence.reservation)));
    if (lost) throw new ConflictError(lost.conflictMessage, lost.conflictCode);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, position: 0, revision };
    try {
      const result = await store.append(
        streamId,
        events.map((event) => ({ type: event.type, data: event.data as Record<string, unknown>, metadata: metadataOf(context) })),
        revision ?? 'no_stream',
      );
      const next = events.reduce(decider.evolve, state);
      foldedStreams(store).set(decider, streamId, { state: next, revision: result.nextRevision, withdrawn });
      return { events, state: next, position: result.position, revision: result.nextRevision };
    } catch (error) {
      if (!isWrongExpectedVersion(error) || attempt >= attempts) throw error;
    }
  }
}

/**
 * Event metadata. The correlation id is the context's: the HTTP request's id for commands a request
 * runs (its context is built from the request), none for background work. It is passed along rather
 * than kept in async context, which on Node 20 hooks every promise of every request.
 */
export const metadataOf = (context: CommandContext) => {
  const { correlationId } = context;
  return {
    actor: context.actor,
    occurredAt: context.now.toISOString(),
    schemaVersion: SCHEMA_VERSION,
    ...(correlationId ? { correlationId } : {}),
    ...(context.causationId ? { causationId: context.causationId } : {}),
    ...(context.macro ? { macro: context.macro } : {}),
    ...(context.bulk ? { bulk: context.bulk } : {}),
    ...(context.rule ? { rule: context.rule } : {}),
  };
};
