import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../files';
import {
  DEFAULT_BACKOFF_MS,
  DEFAULT_KEEP_FAILED,
  DEFAULT_RETRY_POLICY,
  type FailedJob,
  type JobOptions,
  type KeepFailed,
  type PendingJob,
  type Processor,
  type Queue,
  type QueueOptions,
  type RetryPolicy,
  afterFailure,
  errorText,
  failedJobs,
  isLastTry,
  normalizeJobId,
} from './port';

/** How soon a consumer looks again after another process held the file's write lock past the busy timeout. */
const BUSY_RETRY_MS = 100;

const isBusy = (error: unknown) => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

export interface InlineQueueOptions extends QueueOptions {
  /** SQLite file holding the jobs and checkpoints (`DATA_DIR/queue.db`); in memory when absent. */
  filename?: string;
}

interface JobRow {
  seq: number;
  id: string;
  name: string;
  data: string;
  attempts_made: number;
  max_attempts: number;
  backoff_ms: number;
  added_at: number;
}

interface ListedRow {
  id: string;
  name: string;
  data: string;
  state: 'waiting' | 'active' | 'failed';
  attempts_made: number;
  failed_reason: string | null;
  added_at: number;
  updated_at: number;
}

interface Consumer {
  processor: Processor;
  concurrency: number;
  running: number;
  timer: NodeJS.Timeout | null;
}

/** max_attempts of a job that retries until its window ends. */
const NO_LIMIT = 0;

/** Completed ids are kept this long so that a replayed event is still deduplicated (as on BullMQ). */
const KEEP_COMPLETED_MS = 7 * 24 * 3600 * 1000;

/**
 * A waiting job may start unless an earlier job of its group is still waiting or running: that is
 * what keeps one recipient's messages in order while one of them is retried.
 */
const NOT_HELD = `NOT EXISTS (SELECT 1 FROM jobs e WHERE e.queue = j.queue AND e.grp = j.grp AND e.seq < j.seq AND e.state IN ('waiting', 'active'))`;

/**
 * The queue of the embedded default: the same processors, retries and backoff as BullMQ, inside the
 * app process, with its jobs in a SQLite file so that a crash or restart loses none. A job that was
 * running when the process died runs again at the next start (delivery is at least once, as on
 * BullMQ). The file belongs to one process: the separate workers process needs REDIS_URL.
 */
export class InlineQueue implements Queue {
  readonly kind = 'inline' as const;
  private readonly db: Database.Database;
  private readonly policy: RetryPolicy;
  private readonly keepFailed: KeepFailed;
  private readonly consumers = new Map<string, Consumer>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Set by close(): no job starts after it; `closed` follows once running ones have finished. */
  private stopping = false;
  private closed = false;
  /** Statements prepared once: a job's add, take and wake ran four prepares each, on every chat message's notice. */
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(private readonly options: InlineQueueOptions = {}) {
    this.policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.keepFailed = options.keepFailed ?? DEFAULT_KEEP_FAILED;
    if (options.filename !== undefined && options.filename !== ':memory:') ensurePrivateFile(options.filename);
    this.db = new Database(options.filename ?? ':memory:');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        queue TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        attempts_made INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        backoff_ms INTEGER NOT NULL,
        state TEXT NOT NULL,
        run_at INTEGER NOT NULL,
        failed_reason TEXT,
        finished_at INTEGER,
        UNIQUE (queue, id)
      );
      CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
    `);
    // Files written before groups and retry windows existed get the columns (a group of NULL holds nothing back).
    const columns = new Set((this.db.prepare(`PRAGMA table_info(jobs)`).all() as Array<{ name: string }>).map((column) => column.name));
    if (!columns.has('grp')) this.db.exec(`ALTER TABLE jobs ADD COLUMN grp TEXT`);
    if (!columns.has('added_at')) this.db.exec(`ALTER TABLE jobs ADD COLUMN added_at INTEGER NOT NULL DEFAULT 0; UPDATE jobs SET added_at = run_at`);
    if (!columns.has('updated_at')) this.db.exec(`ALTER TABLE jobs ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0; UPDATE jobs SET updated_at = run_at`);
    this.db.exec(`
      DROP INDEX IF EXISTS jobs_due;
      CREATE INDEX IF NOT EXISTS jobs_state ON jobs (queue, state, seq);
      CREATE INDEX IF NOT EXISTS jobs_group ON jobs (queue, grp, state, seq);
    `);
    // Old completed ids are let go.
    this.db.prepare(`DELETE FROM jobs WHERE state = 'completed' AND finished_at < ?`).run(Date.now() - KEEP_COMPLETED_MS);
  }

  private sql(text: string): Database.Statement {
    let statement = this.prepared.get(text);
    if (!statement) this.prepared.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  async add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    if (this.stopping) return;
    const now = Date.now() + (options.delayMs ?? 0);
    this.sql(
      `INSERT OR IGNORE INTO jobs (queue, id, name, data, grp, max_attempts, backoff_ms, state, run_at, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?)`,
    ).run(
      queue,
      normalizeJobId(options.jobId),
      name,
      JSON.stringify(data ?? null),
      options.group ?? null,
      options.attempts ?? NO_LIMIT,
      options.backoffMs ?? DEFAULT_BACKOFF_MS,
      now,
      now,
      now,
    );
    this.pump(queue);
  }

  process<D>(queue: string, processor: Processor<D>, options: { concurrency?: number } = {}): void {
    // Jobs that were running when the last consumer died run again. Done here, not on open, so a
    // tool that only opens the file (projections:rebuild) never touches a running app's jobs.
    this.sql(`UPDATE jobs SET state = 'waiting' WHERE queue = ? AND state = 'active'`).run(queue);
    this.consumers.set(queue, { processor: processor as Processor, concurrency: options.concurrency ?? 1, running: 0, timer: null });
    this.pump(queue);
  }

  async failed(queue: string): Promise<FailedJob[]> {
    return failedJobs(await this.failedPage(queue, 0, this.keepFailed.count));
  }

  async failedPage(queue: string, offset: number, limit: number): Promise<PendingJob[]> {
    if (limit <= 0) return [];
    const rows = this.sql(
      `SELECT id, name, data, state, attempts_made, failed_reason, added_at, updated_at FROM jobs WHERE queue = ? AND state = 'failed' ORDER BY finished_at DESC, seq DESC LIMIT ? OFFSET ?`,
    ).all(queue, limit, offset) as ListedRow[];
    return rows.map((row) => this.listed(row));
  }

  async failedCount(queue: string): Promise<number> {
    return (this.sql(`SELECT COUNT(*) AS n FROM jobs WHERE queue = ? AND state = 'failed'`).get(queue) as { n: number }).n;
  }

  async pending(queue: string): Promise<PendingJob[]> {
    const rows = this.sql(
      `SELECT id, name, data, state, attempts_made, failed_reason, added_at, updated_at FROM jobs WHERE queue = ? AND state IN ('waiting', 'active') ORDER BY seq`,
    ).all(queue) as ListedRow[];
    return rows.map((row) => this.listed(row));
  }

  private listed(row: ListedRow): PendingJob {
    return {
      id: row.id,
      name: row.name,
      data: JSON.parse(row.data) as unknown,
      state: row.state === 'waiting' && row.attempts_made > 0 ? 'retrying' : row.state,
      attemptsMade: row.attempts_made,
      lastError: row.failed_reason,
      addedAt: new Date(row.added_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  /** Failed jobs wait for an admin, but not forever: the oldest beyond the count, and any past the age, are dropped (as on BullMQ). */
  private trimFailed(queue: string, now: number): void {
    this.sql(`DELETE FROM jobs WHERE queue = ? AND state = 'failed' AND finished_at < ?`).run(queue, now - this.keepFailed.ageMs);
    this.sql(
      `DELETE FROM jobs WHERE queue = ? AND state = 'failed' AND seq NOT IN (SELECT seq FROM jobs WHERE queue = ? AND state = 'failed' ORDER BY finished_at DESC, seq DESC LIMIT ?)`,
    ).run(queue, queue, this.keepFailed.count);
  }

  async retry(queue: string, id: string): Promise<boolean> {
    const now = Date.now();
    // A new window from now, and the tries allowed afresh; the job keeps its place in its group.
    const { changes } = this.sql(
      `UPDATE jobs SET state = 'waiting', run_at = ?, added_at = ?, updated_at = ?, attempts_made = 0, finished_at = NULL WHERE queue = ? AND id = ? AND state IN ('waiting', 'failed')`,
    ).run(now, now, now, queue, normalizeJobId(id));
    this.pump(queue);
    return changes === 1;
  }

  async wake(queue: string): Promise<number> {
    const now = Date.now();
    const { changes } = this.sql(`UPDATE jobs SET run_at = ? WHERE queue = ? AND state = 'waiting' AND run_at > ?`).run(now, queue, now);
    this.pump(queue);
    return changes;
  }

  async discard(queue: string, id: string): Promise<boolean> {
    const { changes } = this.sql(`DELETE FROM jobs WHERE queue = ? AND id = ? AND state IN ('waiting', 'failed')`).run(queue, normalizeJobId(id));
    this.pump(queue);
    return changes === 1;
  }

  async checkpoint(name: string): Promise<number | null> {
    const row = this.sql(`SELECT position FROM checkpoints WHERE name = ?`).get(name) as { position: number } | undefined;
    return row?.position ?? null;
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.sql(`INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position`).run(name, position);
  }

  /** Takes due jobs while the consumer has room; sleeps until the next delayed one otherwise. */
  private pump(queue: string): void {
    const consumer = this.consumers.get(queue);
    if (!consumer || this.stopping) return;
    while (consumer.running < consumer.concurrency) {
      let job: JobRow | null;
      try {
        job = this.take(queue);
      } catch (error) {
        // Another process on the same file (a second app or `npm run workers` on one DATA_DIR) held its
        // write lock past the busy timeout: the jobs wait for the next look, the process goes on.
        if (!isBusy(error)) throw error;
        this.retryPump(queue, consumer);
        return;
      }
      if (!job) break;
      consumer.running++;
      const run = this.run(queue, consumer.processor, job).finally(() => {
        consumer.running--;
        this.inFlight.delete(run);
        this.pump(queue);
      });
      this.inFlight.add(run);
    }
    this.wakeForDelayed(queue, consumer);
  }

  /** Taken with the write lock from the start (BEGIN IMMEDIATE): a read that then writes could not wait for another writer. */
  private take(queue: string): JobRow | null {
    return this.db
      .transaction(() => {
        const row = this.sql(
          `SELECT seq, id, name, data, attempts_made, max_attempts, backoff_ms, added_at FROM jobs j WHERE queue = ? AND state = 'waiting' AND run_at <= ? AND ${NOT_HELD} ORDER BY seq LIMIT 1`,
        ).get(queue, Date.now()) as JobRow | undefined;
        if (!row) return null;
        this.sql(`UPDATE jobs SET state = 'active', updated_at = ? WHERE seq = ?`).run(Date.now(), row.seq);
        return row;
      })
      .immediate();
  }

  private retryPump(queue: string, consumer: Consumer): void {
    if (consumer.timer) clearTimeout(consumer.timer);
    consumer.timer = setTimeout(() => {
      consumer.timer = null;
      this.pump(queue);
    }, BUSY_RETRY_MS);
  }

  /** Held jobs are woken by the job ahead of them finishing, not by the clock. */
  private wakeForDelayed(queue: string, consumer: Consumer): void {
    if (consumer.timer) clearTimeout(consumer.timer);
    consumer.timer = null;
    // A full consumer pumps again when a job ends; the look for the next due job (a scan of the
    // waiting ones) is left until then, not made at every job added behind it.
    if (consumer.running >= consumer.concurrency) return;
    const next = this.sql(`SELECT MIN(run_at) AS at FROM jobs j WHERE queue = ? AND state = 'waiting' AND ${NOT_HELD}`).get(queue) as { at: number | null };
    if (next.at === null) return;
    consumer.timer = setTimeout(
      () => {
        consumer.timer = null;
        this.pump(queue);
      },
      Math.max(0, next.at - Date.now()),
    );
  }

  private async run(queue: string, processor: Processor, job: JobRow): Promise<void> {
    const tries = {
      attemptsMade: job.attempts_made,
      maxAttempts: job.max_attempts === NO_LIMIT ? null : job.max_attempts,
      backoffMs: job.backoff_ms,
      addedAt: job.added_at,
    };
    try {
      await processor({
        id: job.id,
        name: job.name,
        data: JSON.parse(job.data) as unknown,
        attemptsMade: job.attempts_made,
        lastTry: isLastTry(tries, this.policy),
      });
      if (!this.closed) this.sql(`UPDATE jobs SET state = 'completed', finished_at = ?, updated_at = ? WHERE seq = ?`).run(Date.now(), Date.now(), job.seq);
    } catch (error) {
      if (this.closed) return;
      const next = afterFailure({ queue, id: job.id, ...tries }, error, this.policy, this.options.logger);
      const now = Date.now();
      if (next.retry) {
        this.sql(`UPDATE jobs SET state = 'waiting', attempts_made = attempts_made + 1, failed_reason = ?, run_at = ?, updated_at = ? WHERE seq = ?`).run(
          errorText(error),
          now + next.delayMs,
          now,
          job.seq,
        );
      } else {
        this.sql(`UPDATE jobs SET state = 'failed', attempts_made = attempts_made + 1, failed_reason = ?, finished_at = ?, updated_at = ? WHERE seq = ?`).run(
          errorText(error),
          now,
          now,
          job.seq,
        );
        this.trimFailed(queue, now);
      }
    }
  }

  async close(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const consumer of this.consumers.values()) if (consumer.timer) clearTimeout(consumer.timer);
    // Running jobs finish and record their outcome before the file closes.
    await Promise.all(this.inFlight);
    this.closed = true;
    this.db.close();
  }
}
