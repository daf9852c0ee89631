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

/**
 * EventStoreDB / KurrentDB adapter. Global positions are the commit positions of the transaction
 * file; for events written outside explicit transactions (all of ours) prepare equals commit, so the
 * single number round-trips to a `Position`.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<Subscription>();

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  /**
   * Each event's metadata carries its stream-chain link, computed from the previous event's link, so
   * the append is pinned to the revision that link was read from: with `any` or `stream_exists` a
   * concurrent writer makes it read again and retry; an exact expectation is the caller's to keep.
   * (Idempotent replays work as before: the same expected revision gives the same links and ids.)
   */
  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const ids = events.map((event) => event.id ?? randomUUID());
    for (let attempt = 0; ; attempt += 1) {
      const previous = await this.linkBefore(streamId, expected);
      let hash = previous.hash;
      let revision = previous.revision ?? -1;
      const prepared = events.map((event, index) => {
        revision += 1;
        hash = streamLink(hash, { id: ids[index]!, streamId, revision, type: event.type, data: event.data, metadata: event.metadata });
        return jsonEvent({ id: ids[index]!, type: event.type, data: event.data, metadata: { ...event.metadata, [CHAIN_KEY]: { hash } } as Record<string, unknown> });
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
          if ((expected === 'any' || expected === 'stream_exists') && attempt < 10) continue;
          const actual = error.actualVersion;
          throw new WrongExpectedVersionError(streamId, expected, typeof actual === 'bigint' ? Number(actual) : 'no_stream');
        }
        throw error;
      }
    }
  }

  /** The revision an append is pinned to (null: a new stream) and the link it chains from. */
  private async linkBefore(streamId: string, expected: ExpectedRevision): Promise<{ revision: number | null; hash: string }> {
    if (expected === 'no_stream') return { revision: null, hash: GENESIS };
    const [last] =
      typeof expected === 'number'
        ? await this.readStream(streamId, { fromRevision: expected, maxCount: 1 })
        : await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    if (typeof expected === 'number') return { revision: expected, hash: last?.chain?.hash ?? GENESIS };
    if (!last) {
      if (expected === 'stream_exists') throw new WrongExpectedVersionError(streamId, expected, 'no_stream');
      return { revision: null, hash: GENESIS };
    }
    return { revision: last.revision, hash: last.chain?.hash ?? GENESIS };
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

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? 1000;
    const after = options.after ?? 0;
    const events: RecordedEvent[] = [];
    // The server reads from a position inclusively; ask for one more and drop the checkpoint itself.
    const read = this.client.readAll({
      direction: FORWARDS,
      fromPosition: after > 0 ? toPosition(after) : START,
      maxCount: maxCount + 1,
    });
    for await (const resolved of read) {
      const recorded = toRecorded(resolved);
      if (recorded && recorded.position > after && !recorded.streamId.startsWith('$')) events.push(recorded);
      if (events.length === maxCount) break;
    }
    return events;
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
      return resolved.event ? Number(resolved.event.position.commit) : 0;
    }
    return 0;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const after = options.after ?? 0;
    const stream = this.client.subscribeToAll({
      fromPosition: after > 0 ? toPosition(after) : START,
      filter: excludeSystemEvents(),
    });
    let stopped = false;
    const running = (async () => {
      for await (const resolved of stream) {
        if (stopped) break;
        const recorded = toRecorded(resolved);
        if (recorded && recorded.position > after) await options.onEvent(recorded);
      }
    })().catch((error: unknown) => {
      if (!stopped) options.onError?.(error);
    });
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        await stream.unsubscribe();
        await running;
        this.subscriptions.delete(subscription);
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
    metadata: metadata as unknown as EventMetadata,
    ...(chain?.hash ? { chain: { hash: chain.hash, log: null } } : {}),
  };
}
