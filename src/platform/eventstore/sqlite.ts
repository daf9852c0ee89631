import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../files';
import { type BackgroundCheckpointer, checkpointInBackground } from './checkpointer';
import {
  type AppendResult,
  CorruptEventError,
  DuplicateEventIdError,
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
import { GENESIS, logLink, streamLink } from './integrity';

interface EventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  hash: string | null;
  log_hash: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position  INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id  TEXT    NOT NULL UNIQUE,
  stream_id TEXT    NOT NULL,
  revision  INTEGER NOT NULL,
  type      TEXT    NOT NULL,
  data      TEXT    NOT NULL,
  metadata  TEXT    NOT NULL,
  hash      TEXT,
  log_hash  TEXT,
  UNIQUE (stream_id, revision)
);`;

/**
 * Streams whose id starts with `$` are the store's own, as on EventStoreDB: readable by stream, but
 * not in the global log the port shows (readAll, subscriptions, headPosition) nor in its hash chain.
 */
const DESK = "substr(stream_id, 1, 1) <> '$'";
const isStoreStream = (streamId: string) => streamId.startsWith('$');

/** Stream heads remembered at most; the memory is simply cleared when it is full. */
const HEADS_KEPT = 20_000;

/** A row's JSON column parsed; a damaged one names its event rather than failing as a bare SyntaxError. */
function parsed<T>(row: EventRow, field: 'data' | 'metadata'): T {
  try {
    return JSON.parse(row[field]) as T;
  } catch (error) {
    const at = { streamId: row.stream_id, revision: row.revision, position: row.position, eventId: row.event_id, type: row.type };
    throw new CorruptEventError(at, field, error instanceof Error ? error.message : String(error));
  }
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: parsed<Record<string, unknown>>(row, 'data'),
  metadata: parsed<RecordedEvent['metadata']>(row, 'metadata'),
  ...(row.hash ? { chain: { hash: row.hash, log: row.log_hash } } : {}),
});

export interface SqliteEventStoreOptions {
  /** A file path, or ':memory:' for tests that need no durability. */
  filename: string;
  /**
   * Another process may append to the same file (the scale-out setup), so live subscriptions also
   * poll for new positions at this interval; appends from this process wake them at once.
   */
  pollIntervalMs?: number;
  /** Rows read per catch-up page. */
  pageSize?: number;
  /**
   * Group commit (default on): appends called while the event loop is busy are queued and written
   * together in one transaction at the next turn of the loop (setImmediate), each with its own
   * expected-revision check, idempotency and hash links, and each failing alone. Off, every append
   * is its own transaction, at once.
   */
  groupCommit?: boolean;
  /**
   * WAL checkpoints in a worker thread (default on for a file; see checkpointer.ts). Off, SQLite
   * checkpoints inside the commit that finds the log past 1,000 pages, on the event loop.
   */
  backgroundCheckpoints?: boolean;
  /** Told when a background checkpoint fails; the next is tried all the same. */
  onCheckpointError?: (error: string) => void;
}

/** A stream's last revision; with its hash link when known (an empty read knows only a bound). */
interface Head {
  revision: number;
  hash: string | null;
}

/** An append done inside its transaction, with the links the next append continues from. */
interface Appended {
  result: AppendResult;
  head?: Head;
  log?: string | null;
}

interface QueuedAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The embedded event log. WAL mode with `synchronous = NORMAL`: a committed append survives a crash
 * of the process; a power loss may drop the last transactions, the documented trade-off for
 * single-machine speed. Appends run in IMMEDIATE transactions, so two processes sharing the file
 * serialize on the write lock and global positions are always committed in increasing order.
 * With group commit, concurrent appends share one such transaction: one commit (and one WAL write)
 * for many commands, positions in the order the appends were called.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly subscriptions = new Set<Subscription>();
  private readonly statements;
  private readonly groupCommit: boolean;
  /** `appendTx` in a transaction: IMMEDIATE on its own, a savepoint inside another one. */
  private readonly appendInTx;
  private queue: QueuedAppend[] = [];
  private flushScheduled: NodeJS.Immediate | null = null;
  /**
   * The last revision of streams this connection wrote or read to the end, valid while no other
   * connection has committed (SQLite's data_version says so). A command reading what was appended
   * after the state it folded last time (commands.ts) usually finds nothing: answered from here, with
   * no read transaction, which costs more than the rest of the command's reads.
   */
  private readonly heads = new Map<string, Head>();
  private headsVersion = -1;
  /** The global chain's last link, known under the same condition as `heads`. */
  private logHash: string | null = null;
  private readonly checkpointer: BackgroundCheckpointer | null = null;

  constructor(options: SqliteEventStoreOptions) {
    const onFile = options.filename !== ':memory:' && options.filename !== '';
    if (onFile) ensurePrivateFile(options.filename);
    this.db = new Database(options.filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.sealEarlierEvents();
    if (onFile && (options.backgroundCheckpoints ?? true)) this.checkpointer = checkpointInBackground(this.db, options.filename, options.onCheckpointError);
    this.pollIntervalMs = options.pollIntervalMs ?? 25;
    this.pageSize = options.pageSize ?? 1000;
    this.groupCommit = options.groupCommit ?? true;
    this.appendInTx = this.db.transaction(this.appendTx);
    this.appended.setMaxListeners(0);
    this.statements = {
      streamHead: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?'),
      streamLast: this.db.prepare<[string], { revision: number; hash: string }>(
        'SELECT revision, hash FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      logLast: this.db.prepare<[], { log_hash: string }>(`SELECT log_hash FROM events WHERE ${DESK} ORDER BY position DESC LIMIT 1`),
      byEventId: this.db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?'),
      insert: this.db.prepare<[string, string, number, string, string, string, string, string | null]>(
        'INSERT INTO events (event_id, stream_id, revision, type, data, metadata, hash, log_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      forwards: this.db.prepare<[string, number, number], EventRow>('SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision ASC LIMIT ?'),
      backwards: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
      ),
      all: this.db.prepare<[number, number], EventRow>(`SELECT * FROM events WHERE position > ? AND ${DESK} ORDER BY position ASC LIMIT ?`),
      // Walks back from the end to the first desk event: no scan of the whole log.
      head: this.db.prepare<[], { position: number }>(`SELECT position FROM events WHERE ${DESK} ORDER BY position DESC LIMIT 1`),
      dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
    this.headsVersion = this.statements.dataVersion.get()!;
  }

  /**
   * `heads`: the remembered links, asked for under the write lock (the default is evaluated inside the
   * transaction), where they hold unless another connection committed (knownHeads). A group asks once
   * for all its appends: its transaction holds the lock from before the first of them.
   */
  private readonly appendTx = (streamId: string, events: NewEvent[], expected: ExpectedRevision, heads = this.knownHeads()): Appended => {
    const replay = this.findEarlierAppend(streamId, events);
    if (replay) return { result: replay };
    const remembered = heads.get(streamId);
    const last = remembered?.hash ? remembered : this.statements.streamLast.get(streamId);
    checkExpected(streamId, expected, last?.revision ?? null);
    let revision = last?.revision ?? -1;
    let hash = last?.hash ?? GENESIS;
    const inLog = !isStoreStream(streamId);
    let log = inLog ? (this.logHash ?? this.statements.logLast.get()?.log_hash ?? GENESIS) : null;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const id = event.id ?? randomUUID();
      hash = streamLink(hash, { id, streamId, revision, type: event.type, data: event.data, metadata: event.metadata });
      if (log !== null) log = logLink(log, hash);
      const info = this.statements.insert.run(id, streamId, revision, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), hash, log);
      position = Number(info.lastInsertRowid);
    }
    return { result: { nextRevision: revision, position }, head: { revision, hash }, log };
  };

  /**
   * A file written before events carried hashes gets its columns and its chains now, in log order
   * (those links are made at upgrade time: they prove nothing changed since, not before).
   */
  private sealEarlierEvents(): void {
    this.db
      .transaction(() => {
        const columns = this.db
          .prepare<[], { name: string }>('PRAGMA table_info(events)')
          .all()
          .map((column) => column.name);
        if (!columns.includes('hash')) this.db.exec('ALTER TABLE events ADD COLUMN hash TEXT');
        if (!columns.includes('log_hash')) this.db.exec('ALTER TABLE events ADD COLUMN log_hash TEXT');
        // Events without links are found through a partial index (empty once sealed), not by a scan
        // of the whole log at every start (a quarter of a second at a million events).
        this.db.exec('CREATE INDEX IF NOT EXISTS events_unsealed ON events (position) WHERE hash IS NULL');
        const unsealed = this.db.prepare<[], { position: number }>('SELECT position FROM events WHERE hash IS NULL LIMIT 1').get();
        if (!unsealed) return;
        const streams = new Map<string, string>();
        let log = GENESIS;
        const seal = this.db.prepare<[string, string | null, number]>('UPDATE events SET hash = ?, log_hash = ? WHERE position = ?');
        const page = this.db.prepare<[number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT 5000');
        for (let rows = page.all(0); rows.length > 0; rows = page.all(rows.at(-1)!.position)) {
          for (const row of rows) {
            const hash = row.hash ?? streamLink(streams.get(row.stream_id) ?? GENESIS, toRecorded(row));
            const inLog = !isStoreStream(row.stream_id);
            if (inLog) log = row.log_hash ?? logLink(log, hash);
            streams.set(row.stream_id, hash);
            if (row.hash === null) seal.run(hash, inLog ? log : null, row.position);
          }
        }
      })
      .immediate();
  }

  /**
   * Idempotency: when the first event's id is already stored, the whole batch must be that earlier
   * append, and its result is returned instead of storing anything twice.
   */
  private findEarlierAppend(streamId: string, events: NewEvent[]): AppendResult | null {
    const firstId = events[0]?.id;
    if (!firstId) return null;
    const first = this.statements.byEventId.get(firstId);
    if (!first) return null;
    let last = first;
    for (const [index, event] of events.entries()) {
      const stored = event.id ? this.statements.byEventId.get(event.id) : undefined;
      if (!stored || stored.stream_id !== streamId || stored.revision !== first.revision + index) {
        throw new DuplicateEventIdError(event.id ?? firstId);
      }
      last = stored;
    }
    return { nextRevision: last.revision, position: last.position };
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (!this.groupCommit) {
      const result = this.appendOne(streamId, events, expected, 'immediate');
      this.appended.emit('append');
      return result;
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ streamId, events, expected, resolve, reject });
      this.flushScheduled ??= setImmediate(() => this.flush());
    });
  }

  /**
   * One append, in a transaction of its own ('immediate') or inside the group's transaction under a
   * savepoint (`nestedIn`: the heads the group asked for): when it fails, its rows are rolled back and the others stay. Once it is
   * done, the stream's head and the log's last link are remembered for the next append (a retried
   * append, which answers an earlier revision, tells nothing).
   */
  private appendOne(streamId: string, events: NewEvent[], expected: ExpectedRevision, how: 'immediate' | { nestedIn: Map<string, Head> }): AppendResult {
    try {
      const { result, head, log } =
        how === 'immediate' ? this.appendInTx.immediate(streamId, events, expected) : this.appendInTx(streamId, events, expected, how.nestedIn);
      if (head) this.rememberHead(streamId, head);
      if (log) this.logHash = log;
      return result;
    } catch (error) {
      if (isUniqueViolation(error)) throw this.explainUniqueViolation(streamId, events, expected);
      throw error;
    }
  }

  /** Writes every queued append in one IMMEDIATE transaction, then answers each of them. */
  private flush(): void {
    if (this.flushScheduled) clearImmediate(this.flushScheduled);
    this.flushScheduled = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (batch.length === 1) {
      const [{ streamId, events, expected, resolve, reject }] = batch as [QueuedAppend];
      try {
        const result = this.appendOne(streamId, events, expected, 'immediate');
        resolve(result);
        this.appended.emit('append');
      } catch (error) {
        reject(error);
      }
      return;
    }
    let outcomes: Array<{ result: AppendResult } | { error: unknown }>;
    try {
      outcomes = this.db
        .transaction(() => {
          const heads = this.knownHeads();
          return batch.map(({ streamId, events, expected }) => {
            try {
              return { result: this.appendOne(streamId, events, expected, { nestedIn: heads }) };
            } catch (error) {
              return { error };
            }
          });
        })
        .immediate();
    } catch (error) {
      // The transaction itself failed (the file stayed locked by another process): nothing was
      // written, so nothing remembered from its appends holds.
      this.forgetHeads();
      for (const queued of batch) queued.reject(error);
      return;
    }
    if (outcomes.some((outcome) => 'result' in outcome)) this.appended.emit('append');
    outcomes.forEach((outcome, index) => {
      if ('result' in outcome) batch[index]!.resolve(outcome.result);
      else batch[index]!.reject(outcome.error);
    });
  }

  private explainUniqueViolation(streamId: string, events: NewEvent[], expected: ExpectedRevision): Error {
    const reused = events.find((event) => event.id && this.statements.byEventId.get(event.id));
    if (reused?.id) return new DuplicateEventIdError(reused.id);
    const current = this.statements.streamHead.get(streamId)?.revision ?? null;
    return new WrongExpectedVersionError(streamId, expected, current ?? 'no_stream');
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (options.direction === 'backwards')
      return this.statements.backwards.all(streamId, options.fromRevision ?? Number.MAX_SAFE_INTEGER, limit).map(toRecorded);
    const from = options.fromRevision ?? 0;
    const heads = this.knownHeads();
    const head = heads.get(streamId);
    if (head !== undefined && from > head.revision) return [];
    const rows = this.statements.forwards.all(streamId, from, limit);
    // Read to the end: the last row is the head; none at all means the head is below `from`.
    if (rows.length < limit) {
      const last = rows.at(-1);
      this.rememberHead(streamId, last ? { revision: last.revision, hash: last.hash } : { revision: from - 1, hash: null });
    }
    return rows.map(toRecorded);
  }

  /** The remembered heads, forgotten first if another connection has committed since they were taken. */
  private knownHeads(): Map<string, Head> {
    const version = this.statements.dataVersion.get()!;
    if (version !== this.headsVersion) {
      this.forgetHeads();
      this.headsVersion = version;
    }
    return this.heads;
  }

  private forgetHeads(): void {
    this.heads.clear();
    this.logHash = null;
  }

  private rememberHead(streamId: string, head: Head): void {
    if (this.heads.size >= HEADS_KEPT) this.heads.clear();
    this.heads.set(streamId, head);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    // Positions here are integers: from one on is after the one before.
    const after = options.from !== undefined ? options.from - 1 : (options.after ?? 0);
    return this.statements.all.all(after, options.maxCount ?? this.pageSize).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    return this.statements.head.get()?.position ?? 0;
  }

  /**
   * Calls `listener` after each commit of this connection's appends (a thread reading the file on a
   * connection of its own is told so: `appendedElsewhere`). Returns the unsubscribe function.
   */
  onAppend(listener: () => void): () => void {
    this.appended.on('append', listener);
    return () => this.appended.off('append', listener);
  }

  /** Another connection to the file appended: live subscriptions read on at once rather than at their next poll. */
  appendedElsewhere(): void {
    this.appended.emit('append');
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    let stopped = false;
    let wake: (() => void) | null = null;
    // An append that lands while a page is being handled must not wait for the next poll.
    let appendedMeanwhile = false;
    const onAppend = () => {
      appendedMeanwhile = true;
      wake?.();
    };
    this.appended.on('append', onAppend);
    const waitForMore = () =>
      new Promise<void>((resolve) => {
        if (appendedMeanwhile) return resolve();
        const timer = setTimeout(done, this.pollIntervalMs);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    const loop = async () => {
      let after = options.after ?? 0;
      while (!stopped) {
        appendedMeanwhile = false;
        const page = this.statements.all.all(after, this.pageSize);
        for (const row of page) {
          if (stopped) return;
          await options.onEvent(toRecorded(row));
          after = row.position;
        }
        if (page.length < this.pageSize && !stopped) await waitForMore();
      }
    };
    const running = loop().catch((error: unknown) => {
      stopped = true;
      options.onError?.(error);
    });
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.appended.off('append', onAppend);
        wake?.();
        await running;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    this.flush();
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.checkpointer?.stop();
    this.db.close();
  }
}

function checkExpected(streamId: string, expected: ExpectedRevision, current: number | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'number' && current === expected);
  if (!ok) throw new WrongExpectedVersionError(streamId, expected, current ?? 'no_stream');
}

/**
 * By its code, not `instanceof Error`: the driver's native part makes its errors with the class it
 * was first given, which under Jest's module registry may be another test file's copy.
 */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT');
}
