import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../files';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  type FailedJob,
  type JobOptions,
  PermanentJobError,
  type Processor,
  type Queue,
  normalizeJobId,
  retryDelay,
} from './port';

export interface InlineQueueOptions {
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
}

interface FailedRow {
  id: string;
  name: string;
  data: string;
  attempts_made: number;
  failed_reason: string;
  finished_at: number;
}

interface Consumer {
  processor: Processor;
  concurrency: number;
  running: number;
  timer: NodeJS.Timeout | null;
}

/** Completed ids are kept this long so that a replayed event is still deduplicated (as on BullMQ). */
const KEEP_COMPLETED_MS = 7 * 24 * 3600 * 1000;

/**
 * The queue of the embedded default: the same processors, retries and backoff as BullMQ, inside the
 * app process, with its jobs in a SQLite file so that a crash or restart loses none. A job that was
 * running when the process died runs again at the next start (delivery is at least once, as on
 * BullMQ). The file belongs to one process: the separate workers process needs REDIS_URL.
 */
export class InlineQueue implements Queue {
  readonly kind = 'inline' as const;
  private readonly db: Database.Database;
  private readonly consumers = new Map<string, Consumer>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Set by close(): no job starts after it; `closed` follows once running ones have finished. */
  private stopping = false;
  private closed = false;

  constructor(options: InlineQueueOptions = {}) {
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
      CREATE INDEX IF NOT EXISTS jobs_due ON jobs (queue, state, run_at, seq);
      CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
    `);
    // Old completed ids are let go.
    this.db.prepare(`DELETE FROM jobs WHERE state = 'completed' AND finished_at < ?`).run(Date.now() - KEEP_COMPLETED_MS);
  }

  async add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    if (this.stopping) return;
    this.db
      .prepare(
        `INSERT OR IGNORE INTO jobs (queue, id, name, data, max_attempts, backoff_ms, state, run_at) VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?)`,
      )
      .run(queue, normalizeJobId(options.jobId), name, JSON.stringify(data ?? null), options.attempts ?? DEFAULT_ATTEMPTS, options.backoffMs ?? DEFAULT_BACKOFF_MS, Date.now());
    this.pump(queue);
  }

  process<D>(queue: string, processor: Processor<D>, options: { concurrency?: number } = {}): void {
    // Jobs that were running when the last consumer died run again. Done here, not on open, so a
    // tool that only opens the file (projections:rebuild) never touches a running app's jobs.
    this.db.prepare(`UPDATE jobs SET state = 'waiting' WHERE queue = ? AND state = 'active'`).run(queue);
    this.consumers.set(queue, { processor: processor as Processor, concurrency: options.concurrency ?? 1, running: 0, timer: null });
    this.pump(queue);
  }

  async failed(queue: string): Promise<FailedJob[]> {
    const rows = this.db
      .prepare(`SELECT id, name, data, attempts_made, failed_reason, finished_at FROM jobs WHERE queue = ? AND state = 'failed' ORDER BY finished_at`)
      .all(queue) as FailedRow[];
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      data: JSON.parse(row.data) as unknown,
      attemptsMade: row.attempts_made,
      failedReason: row.failed_reason,
      failedAt: new Date(row.finished_at).toISOString(),
    }));
  }

  async checkpoint(name: string): Promise<number | null> {
    const row = this.db.prepare(`SELECT position FROM checkpoints WHERE name = ?`).get(name) as { position: number } | undefined;
    return row?.position ?? null;
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.db.prepare(`INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position`).run(name, position);
  }

  /** Takes due jobs while the consumer has room; sleeps until the next delayed one otherwise. */
  private pump(queue: string): void {
    const consumer = this.consumers.get(queue);
    if (!consumer || this.stopping) return;
    while (consumer.running < consumer.concurrency) {
      const job = this.take(queue);
      if (!job) break;
      consumer.running++;
      const run = this.run(consumer.processor, job).finally(() => {
        consumer.running--;
        this.inFlight.delete(run);
        this.pump(queue);
      });
      this.inFlight.add(run);
    }
    this.wakeForDelayed(queue, consumer);
  }

  private take(queue: string): JobRow | null {
    return this.db.transaction(() => {
      const row = this.db
        .prepare(`SELECT seq, id, name, data, attempts_made, max_attempts, backoff_ms FROM jobs WHERE queue = ? AND state = 'waiting' AND run_at <= ? ORDER BY run_at, seq LIMIT 1`)
        .get(queue, Date.now()) as JobRow | undefined;
      if (!row) return null;
      this.db.prepare(`UPDATE jobs SET state = 'active' WHERE seq = ?`).run(row.seq);
      return row;
    })();
  }

  private wakeForDelayed(queue: string, consumer: Consumer): void {
    if (consumer.timer) clearTimeout(consumer.timer);
    consumer.timer = null;
    const next = this.db.prepare(`SELECT MIN(run_at) AS at FROM jobs WHERE queue = ? AND state = 'waiting'`).get(queue) as { at: number | null };
    if (next.at === null || consumer.running >= consumer.concurrency) return;
    consumer.timer = setTimeout(() => {
      consumer.timer = null;
      this.pump(queue);
    }, Math.max(0, next.at - Date.now()));
  }

  private async run(processor: Processor, job: JobRow): Promise<void> {
    try {
      await processor({ id: job.id, name: job.name, data: JSON.parse(job.data) as unknown, attemptsMade: job.attempts_made });
      if (!this.closed) this.db.prepare(`UPDATE jobs SET state = 'completed', finished_at = ? WHERE seq = ?`).run(Date.now(), job.seq);
    } catch (error) {
      if (this.closed) return;
      const attemptsMade = job.attempts_made + 1;
      if (error instanceof PermanentJobError || attemptsMade >= job.max_attempts) {
        this.db
          .prepare(`UPDATE jobs SET state = 'failed', attempts_made = ?, failed_reason = ?, finished_at = ? WHERE seq = ?`)
          .run(attemptsMade, error instanceof Error ? error.message : String(error), Date.now(), job.seq);
        return;
      }
      const runAt = Date.now() + retryDelay(attemptsMade, job.backoff_ms, error);
      this.db.prepare(`UPDATE jobs SET state = 'waiting', attempts_made = ?, run_at = ? WHERE seq = ?`).run(attemptsMade, runAt, job.seq);
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
