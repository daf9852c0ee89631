import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type EventData,
  InvalidArgumentError,
  MaxAppendSizeExceededError,
  type Position,
  StreamNotFoundError,
  UnknownError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import type { EventStoreDbClientLike } from '../../src/platform/eventstore/eventstoredb';

/** EventStoreDB's default MaxAppendSize (bytes): the largest append it takes, all its events together. */
const MAX_APPEND_SIZE = 1024 * 1024;

const byteSize = (payload: unknown) =>
  payload === undefined ? 0 : payload instanceof Uint8Array ? payload.byteLength : Buffer.byteLength(JSON.stringify(payload));

/** The server's measure of an event (`Event.SizeOnDisk`): data and metadata bytes, and the type at two bytes a character. */
const eventSize = (event: EventData) => byteSize(event.data) + byteSize(event.metadata) + event.type.length * 2;

/**
 * No EventStoreDB server can run on the development machine, so the adapter's own logic (paging past
 * hidden records, ending subscriptions, retried appends) is proven against this stand-in for the
 * client. It keeps what the server guarantees and the adapter relies on, as documented for
 * `@eventstore/db-client` 6 and the server: positions are byte offsets of the transaction file (so
 * they grow by more than 1 per record); $all holds the server's own records ($-streams, $-types,
 * non-JSON records); reads from a position include the record at it; an append with an exact expected
 * revision whose ids are the events right after that revision is an idempotent success; a stream that
 * does not exist makes a stream read fail with StreamNotFoundError. Each call takes effect when it is
 * made, one at a time, as the server serializes the writes to a stream; an append with an exact
 * revision is checked against the stream at that moment, so it is taken whenever the stream is at
 * that revision then, whatever the adapter read before. Idempotency is per stream, as documented
 * ("If two events with the same Uuid are appended to the same stream in quick succession EventStoreDB
 * will only append one copy"): the same id appended to another stream is stored there. The server's
 * best-effort idempotency for `any` is not modelled: the adapter never appends with `any` or
 * `stream_exists` (`expectedRevisions` records what it sent).
 * A read or subscription of $all from a position must start at a record, as on the server: the exact
 * commit and prepare position of a record, the end of the log, or `start`/`end`; a position inside a
 * record (`position - 1` of a record, whose positions are byte offsets) is refused as the server
 * refuses it, with status Unknown ("Trying to read from an invalid position."), which the client
 * raises as UnknownError (a read fails when drained; a subscription ends with the error).
 * It counts the gRPC calls the adapter leaves open: subscriptions not unsubscribed and reads not drained
 * or cancelled.
 */

interface StoredRecord {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  isJson: boolean;
  data: unknown;
  metadata: unknown;
  position: Position;
}

type Subscriber = { stream: Readable & { unsubscribe(): Promise<void> }; after: bigint };

export class EventStoreDbClientDouble {
  private readonly records: StoredRecord[] = [];
  private nextPosition = 1000n;
  private readonly subscribers = new Set<Subscriber>();
  /** Subscriptions opened and not yet ended with unsubscribe() (the server would still hold them). */
  openSubscriptions = 0;
  /** Reads neither drained to their end nor cancelled (their gRPC calls would stay open). */
  openReads = 0;
  /** The expected revision of every append received, in order. */
  readonly expectedRevisions: AppendExpectedRevision[] = [];
  /** The size of every append received (the sum of its events' sizes), in order, refused ones included. */
  readonly appendSizes: number[] = [];

  /**
   * `maxAppendEventSize`: the server's MaxAppendEventSize, a limit per event that KurrentDB leaves off by
   * default (so one event's limit is then the append's); set it to model a server configured with one.
   */
  constructor(private readonly limits: { maxAppendEventSize?: number } = {}) {}

  /** Writes a record the way the server writes its own ($stats, $metadata, projections' links), or a binary one. */
  addServerRecord(record: { streamId: string; type: string; isJson?: boolean }): void {
    const revision = BigInt(this.records.filter((r) => r.streamId === record.streamId).length);
    this.store({ id: randomUUID(), streamId: record.streamId, revision, type: record.type, isJson: record.isJson ?? true, data: {}, metadata: {} });
  }

  /** Ends every live subscription from the server's side, without an error (a leader change, a restart). */
  closeSubscriptionsFromServer(): void {
    for (const subscriber of this.subscribers) subscriber.stream.push(null);
  }

  private store(record: Omit<StoredRecord, 'position'>): StoredRecord {
    const stored = { ...record, position: { commit: this.nextPosition, prepare: this.nextPosition } };
    // Byte offsets: a record takes more than one position.
    this.nextPosition += 137n + BigInt(JSON.stringify(record.data ?? null).length);
    this.records.push(stored);
    for (const subscriber of this.subscribers) {
      if (stored.position.commit > subscriber.after) subscriber.stream.push(resolved(stored));
    }
    return stored;
  }

  private streamRecords(streamId: string) {
    return this.records.filter((record) => record.streamId === streamId);
  }

  appendToStream(streamId: string, events: EventData | EventData[], options: { expectedRevision?: AppendExpectedRevision } = {}) {
    const batch = Array.isArray(events) ? events : [events];
    // As the server does, event by event: one over MaxAppendEventSize is refused, then the running sum over MaxAppendSize
    // (1 MiB by default) refuses the whole append. Nothing of a refused append is stored.
    let size = 0;
    for (const event of batch) {
      const bytes = eventSize(event);
      if (this.limits.maxAppendEventSize !== undefined && bytes > this.limits.maxAppendEventSize) {
        this.appendSizes.push(size + bytes);
        const message = `Event with Id: ${event.id}, Size: ${bytes}, exceeds Maximum Append Event Size of ${this.limits.maxAppendEventSize}.`;
        // Status InvalidArgument, which this client (older than the option) raises as such.
        return Promise.reject(new InvalidArgumentError(message));
      }
      size += bytes;
    }
    this.appendSizes.push(size);
    if (size > MAX_APPEND_SIZE) return Promise.reject(new MaxAppendSizeExceededError(undefined, MAX_APPEND_SIZE));
    const existing = this.streamRecords(streamId);
    const current = existing.length === 0 ? null : BigInt(existing.length - 1);
    const expected = options.expectedRevision ?? 'any';
    this.expectedRevisions.push(expected);
    const startsAt = expected === 'no_stream' ? 0n : typeof expected === 'bigint' ? expected + 1n : null;
    if (startsAt !== null && batch.every((event, index) => existing[Number(startsAt) + index]?.id === event.id)) {
      const last = existing[Number(startsAt) + batch.length - 1]!;
      return Promise.resolve({ success: true, nextExpectedRevision: last.revision, position: last.position });
    }
    const ok =
      expected === 'any' || (expected === 'no_stream' && current === null) || (expected === 'stream_exists' && current !== null) || expected === current;
    if (!ok) {
      return Promise.reject(
        new WrongExpectedVersionError(undefined, { streamName: streamId, expected: expected as bigint, current: current ?? 'no_stream' } as never),
      );
    }
    let revision = current ?? -1n;
    let last: StoredRecord | null = null;
    for (const event of batch) {
      revision += 1n;
      last = this.store({
        id: event.id,
        streamId,
        revision,
        type: event.type,
        isJson: event.contentType === 'application/json',
        data: event.data,
        metadata: event.metadata,
      });
    }
    return Promise.resolve({ success: true, nextExpectedRevision: revision, position: last!.position });
  }

  readStream(streamId: string, options: { direction?: string; fromRevision?: bigint | 'start' | 'end'; maxCount?: number | bigint } = {}) {
    const existing = this.streamRecords(streamId);
    if (existing.length === 0) return failing(new StreamNotFoundError(undefined as never, streamId));
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision;
    const picked = backwards
      ? existing.filter((r) => from === undefined || from === 'end' || r.revision <= (from as bigint)).reverse()
      : existing.filter((r) => from === undefined || from === 'start' || r.revision >= (from as bigint));
    return this.drained(picked.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(resolved));
  }

  /** The server's answer to a $all position that is not the start of a record (null: accepted). */
  private invalidPosition(from: Position | 'start' | 'end' | undefined): Error | null {
    if (from === undefined || from === 'start' || from === 'end') return null;
    if (from.commit === this.nextPosition && from.prepare === this.nextPosition) return null;
    if (this.records.some(({ position }) => position.commit === from.commit && position.prepare === from.prepare)) return null;
    return new UnknownError(undefined, 'Trying to read from an invalid position.');
  }

  readAll(options: { direction?: string; fromPosition?: Position | 'start' | 'end'; maxCount?: number | bigint } = {}) {
    const backwards = options.direction === 'backwards';
    const from = options.fromPosition;
    const invalid = this.invalidPosition(from);
    if (invalid) return failing(invalid);
    const at = (record: StoredRecord) => record.position.commit;
    const picked = backwards
      ? this.records.filter((r) => from === undefined || from === 'end' || at(r) <= (from as Position).commit).reverse()
      : this.records.filter((r) => from === undefined || from === 'start' || at(r) >= (from as Position).commit);
    return this.drained(picked.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(resolved));
  }

  /** A read the adapter may drain or cancel; the real one is a Readable with cancel(). */
  private drained(items: AllStreamResolvedEvent[]) {
    this.openReads += 1;
    let open = true;
    const close = () => {
      if (open) this.openReads -= 1;
      open = false;
    };
    const stream = Readable.from(items, { objectMode: true });
    stream.once('end', close);
    return Object.assign(stream, {
      cancel: async () => {
        close();
        stream.destroy();
      },
    });
  }

  subscribeToAll(options: { fromPosition?: Position | 'start' | 'end' } = {}) {
    const from = options.fromPosition;
    // A subscription from a position delivers what follows it (exclusive), unlike a read.
    const after = from === undefined || from === 'start' ? -1n : from === 'end' ? this.nextPosition : from.commit;
    this.openSubscriptions += 1;
    let ended = false;
    const stream = Object.assign(new Readable({ objectMode: true, read() {} }), {
      unsubscribe: async () => {
        if (ended) return;
        ended = true;
        this.openSubscriptions -= 1;
        this.subscribers.delete(subscriber);
        stream.push(null);
      },
    });
    const subscriber: Subscriber = { stream, after };
    const invalid = this.invalidPosition(from);
    if (invalid) {
      process.nextTick(() => stream.destroy(invalid));
      return stream;
    }
    for (const record of this.records) if (at(record) > after) stream.push(resolved(record));
    this.subscribers.add(subscriber);
    return stream;
    function at(record: StoredRecord) {
      return record.position.commit;
    }
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }

  /** Typed as the real client for the adapter's constructor. */
  asClient(): EventStoreDbClientLike {
    return this as unknown as EventStoreDbClientLike;
  }
}

function resolved(record: StoredRecord): AllStreamResolvedEvent {
  return {
    event: {
      id: record.id,
      streamId: record.streamId,
      revision: record.revision,
      type: record.type,
      isJson: record.isJson,
      data: record.data,
      metadata: record.metadata,
      created: new Date(),
      position: record.position,
    } as never,
    commitPosition: record.position.commit,
  };
}

function failing(error: Error) {
  const stream = new Readable({
    objectMode: true,
    read() {
      this.destroy(error);
    },
  });
  return Object.assign(stream, { cancel: async () => void stream.destroy() });
}
