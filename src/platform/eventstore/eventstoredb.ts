import { randomUUID } from 'node:crypto';
import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  type Position,
  type ResolvedEvent,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersion,
  excludeSystemEvents,
  jsonEvent,
} from '@eventstore/db-client';
import {
  type AppendResult,
  DuplicateEventIdError,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedVersionError,
} from './port';
import { GENESIS, streamLink } from './integrity';

/** Where the stream-chain link travels in an event's metadata (taken out again when read). */
const CHAIN_KEY = 'chain';

/** Records of $all read per round trip when paging past records the port hides. */
const RAW_PAGE_MIN = 256;

/**
 * How far back a retried `any` or `stream_exists` append is looked for (caller-given ids only): the
 * server's own idempotency check compares ids at the revision the append is pinned to, which for
 * these expectations is the stream's current end, past the earlier append.
 */
const RETRY_WINDOW = 1000;

/**
 * Reads and pins an `any` or `stream_exists` append at most this often: every round some racing
 * writer wins, so a caller that expects success gets it unless this many others keep winning first.
 */
const UNPINNED_ATTEMPTS = 50;

/** The parts of the client this adapter uses (tests hand in a double: no server runs there). */
export type EventStoreDbClientLike = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

/**
 * EventStoreDB / KurrentDB adapter. Global positions are the commit positions of the transaction
 * file; for events written outside explicit transactions (all of ours) prepare equals commit, so the
 * single number round-trips to a `Position`.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDbClientLike;
  private readonly subscriptions = new Set<Subscription>();

  /** `connection`: an `esdb://` string (config.ts translates the KurrentDB schemes), or a client. */
  constructor(connection: string | EventStoreDbClientLike) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  /**
   * Each event's metadata carries its stream-chain link, computed from the previous event's link, so
   * the append is pinned to the revision that link was read from: with `any` or `stream_exists` a
   * concurrent writer makes it read again and retry; an exact expectation is the caller's to keep:
   * the event at it is read and the append pinned there, or the port's conflict is thrown.
   * (Idempotent replays work as before: the same expected revision gives the same links and ids.)
   */
  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const ids = events.map((event) => event.id ?? randomUUID());
    if (events[0]?.id && (expected === 'any' || expected === 'stream_exists')) {
      const earlier = await this.findEarlierAppend(streamId, events);
      if (earlier) return earlier;
    }
    for (let attempt = 0; ; attempt += 1) {
      const previous = await this.linkBefore(streamId, expected);
      let hash = previous.hash;
      let revision = previous.revision ?? -1;
      const prepared = events.map((event, index) => {
        revision += 1;
        hash = streamLink(hash, { id: ids[index]!, streamId, revision, type: event.type, data: event.data, metadata: event.metadata });
        return jsonEvent({
          id: ids[index]!,
          type: event.type,
          data: event.data,
          metadata: { ...event.metadata, [CHAIN_KEY]: { hash } } as Record<string, unknown>,
        });
      });
      try {
        const result = await this.client.appendToStream(streamId, prepared, {
          expectedRevision: previous.revision === null ? NO_STREAM : BigInt(previous.revision),
        });
        return {
          nextRevision: Number(result.nextExpectedRevision),
          position: result.position ? Number(result.position.commit) : await this.headPosition(),
        };
      } catch (error) {
        if (error instanceof EsdbWrongExpectedVersion) {
          if ((expected === 'any' || expected === 'stream_exists') && attempt + 1 < UNPINNED_ATTEMPTS) continue;
          const actual = error.actualVersion;
          throw new WrongExpectedVersionError(streamId, expected, typeof actual === 'bigint' ? Number(actual) : 'no_stream');
        }
        throw error;
      }
    }
  }

  /**
   * A retried batch: its first id among the stream's last RETRY_WINDOW events, followed by the rest
   * of its ids in order, is that earlier append, answered with its result; found otherwise is a
   * caller bug. (EventStoreDB has no index by event id, so an id reused in another stream, or a retry
   * after more than RETRY_WINDOW later events, is not recognised here as it is on SQLite.)
   */
  private async findEarlierAppend(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const tail = await this.readStream(streamId, { direction: 'backwards', maxCount: RETRY_WINDOW });
    const firstId = events[0]!.id;
    const first = tail.find((event) => event.id === firstId);
    if (!first) return null;
    const stored = new Map(tail.map((event) => [event.revision, event]));
    let last = first;
    for (const [index, event] of events.entries()) {
      const at = stored.get(first.revision + index);
      if (!at || at.id !== event.id) throw new DuplicateEventIdError(event.id ?? firstId!);
      last = at;
    }
    return { nextRevision: last.revision, position: last.position };
  }

  /**
   * The revision an append is pinned to (null: a new stream) and the link it chains from: always the
   * link of the event stored at that revision, read before the append. With an exact expectation the
   * append is never pinned to a revision whose event was not read: were the stream still short of it,
   * a concurrent append could land there first and the server would then accept this one, chained
   * from the wrong predecessor. Such an expectation is the port's conflict at once.
   */
  private async linkBefore(streamId: string, expected: ExpectedRevision): Promise<{ revision: number | null; hash: string }> {
    if (expected === 'no_stream') return { revision: null, hash: GENESIS };
    const [head] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    if (typeof expected === 'number') {
      if (!head || head.revision < expected) throw new WrongExpectedVersionError(streamId, expected, head?.revision ?? 'no_stream');
      if (head.revision === expected) return { revision: expected, hash: head.chain?.hash ?? GENESIS };
      // Past it: a retry of an append made at `expected` (the server answers it from the events
      // stored then) or a conflict; either way pinned to the event that is there.
      const [at] = await this.readStream(streamId, { fromRevision: expected, maxCount: 1 });
      if (at?.revision !== expected) throw new WrongExpectedVersionError(streamId, expected, head.revision);
      return { revision: expected, hash: at.chain?.hash ?? GENESIS };
    }
    if (!head) {
      if (expected === 'stream_exists') throw new WrongExpectedVersionError(streamId, expected, 'no_stream');
      return { revision: null, hash: GENESIS };
    }
    return { revision: head.revision, hash: head.chain?.hash ?? GENESIS };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : START,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        const recorded = toRecorded(resolved);
        if (recorded) events.push(recorded);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  /**
   * The desk's events after `after`, up to `maxCount`. $all also holds the server's own records
   * (system streams and event types, non-JSON records) which the port hides, so one round trip may
   * yield fewer events than asked: it reads on by position until the page is full or the log ends,
   * and answers an empty page only at the true end.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? 1000;
    const rawPage = Math.max(maxCount + 1, RAW_PAGE_MIN);
    const events: RecordedEvent[] = [];
    // Every position handed to the server is one it gave for a record (the server refuses a position
    // inside a record): `after` and `from` are positions of events, later pages start at a record read.
    let from = options.from ?? options.after ?? 0;
    // The server reads from a position inclusively: with `after`, the record at `from` was seen already.
    let inclusive = options.from !== undefined;
    for (;;) {
      const read = this.client.readAll({ direction: FORWARDS, fromPosition: from > 0 ? toPosition(from) : START, maxCount: rawPage });
      let records = 0;
      let reached = from;
      let full = false;
      try {
        for await (const resolved of read) {
          records += 1;
          reached = Math.max(reached, recordPosition(resolved) ?? reached);
          const recorded = toDeskEvent(resolved);
          if (recorded && (recorded.position > from || (inclusive && recorded.position === from))) events.push(recorded);
          if (events.length === maxCount) {
            full = true;
            break;
          }
        }
      } finally {
        // Leaving the loop early destroys the stream on this side only; the gRPC call must be ended too.
        if (full) await read.cancel();
      }
      if (full || records < rawPage || reached === from) return events;
      from = reached;
      inclusive = false;
    }
  }

  /** Position of the desk's last event; the server's own records after it do not count. */
  async headPosition(): Promise<number> {
    let from: Position | typeof END = END;
    for (;;) {
      let records = 0;
      let oldest: Position | null = null;
      let found: number | null = null;
      const read = this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: RAW_PAGE_MIN });
      try {
        for await (const resolved of read) {
          records += 1;
          const recorded = toDeskEvent(resolved);
          if (recorded) {
            found = recorded.position;
            break;
          }
          if (resolved.event?.position) oldest = resolved.event.position;
        }
      } finally {
        if (found !== null) await read.cancel();
      }
      if (found !== null) return found;
      if (records < RAW_PAGE_MIN || oldest === null) return 0;
      // Backwards reads may include the position they start from: a page that only repeats it is the start.
      if (from !== END && oldest.commit === from.commit) return 0;
      from = oldest;
    }
  }

  /**
   * The gRPC subscription is always ended on the server (`unsubscribe`), however the loop stops: a
   * handler that throws, a stop, or the server closing the stream, so a resubscribe never leaves the
   * old one open. A stream that ends without an error while nobody stopped it is reported too.
   * However it ends, the subscription leaves the set `close()` stops.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    const after = options.after ?? 0;
    const stream = this.client.subscribeToAll({
      fromPosition: after > 0 ? toPosition(after) : START,
      filter: excludeSystemEvents(),
    });
    let stopped = false;
    let ended: Promise<void> | null = null;
    const end = () => (ended ??= stream.unsubscribe());
    const running = (async () => {
      try {
        for await (const resolved of stream) {
          if (stopped) return;
          const recorded = toDeskEvent(resolved);
          if (recorded && recorded.position > after) await options.onEvent(recorded);
        }
        if (!stopped) throw new Error('The EventStoreDB subscription to $all ended without an error: the server closed it');
      } finally {
        await end();
      }
    })()
      .catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      })
      // Ended for good (failed, closed by the server, or stopped): close() has nothing left to stop.
      .finally(() => this.subscriptions.delete(subscription));
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        await end();
        await running;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }
}

function toPosition(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

function recordPosition(resolved: AllStreamResolvedEvent): number | null {
  const position = resolved.event?.position ?? resolved.link?.position;
  return position ? Number(position.commit) : null;
}

/** Records of the server itself ($-streams, $-types such as links and metadata) are not the desk's. */
function toDeskEvent(resolved: AllStreamResolvedEvent): RecordedEvent | null {
  const recorded = toRecorded(resolved);
  return recorded && !recorded.streamId.startsWith('$') && !recorded.type.startsWith('$') ? recorded : null;
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || !event.position) return null;
  const { [CHAIN_KEY]: chain, ...metadata } = (event.metadata ?? {}) as Record<string, unknown> & { [CHAIN_KEY]?: { hash?: string } };
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: Number(event.position.commit),
    type: event.type,
    data: event.data as Record<string, unknown>,
    // The client types metadata as unknown JSON; this adapter wrote it from an EventMetadata (toEventData).
    metadata: metadata as unknown as EventMetadata,
    ...(chain?.hash ? { chain: { hash: chain.hash, log: null } } : {}),
  };
}
