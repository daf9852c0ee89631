/**
 * The Queue port: durable jobs for side effects (Telegram, e-mail). Producers add jobs with ids
 * derived from the event that caused them, so a replayed event enqueues nothing twice; processors
 * must still be idempotent because delivery is at least once.
 */

export interface JobOptions {
  /** Dedupe key: a second add with the same id is ignored while the first is kept. */
  jobId: string;
  /** Total tries including the first (default 5). */
  attempts?: number;
  /** First retry delay; each next retry doubles it (default 1000 ms). */
  backoffMs?: number;
}

export interface Job<D = unknown> {
  id: string;
  name: string;
  data: D;
  /** Tries already made before this one. */
  attemptsMade: number;
}

export type Processor<D = unknown> = (job: Job<D>) => Promise<void>;

export interface FailedJob {
  id: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  failedReason: string;
  failedAt: string;
}

export interface Queue {
  readonly kind: 'inline' | 'bullmq';
  add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void>;
  /** Starts consuming a queue in this process; jobs added before the call are processed too. */
  process<D>(queue: string, processor: Processor<D>, options?: { concurrency?: number }): void;
  /** Jobs that failed for good, kept for inspection. */
  failed(queue: string): Promise<FailedJob[]>;
  /**
   * A reactor's position in the log, stored next to the jobs it added so that both survive
   * together (null before the first save).
   */
  checkpoint(name: string): Promise<number | null>;
  saveCheckpoint(name: string, position: number): Promise<void>;
  /** Stops taking jobs, waits for running ones, releases connections. */
  close(): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS = 1000;

/** Thrown by a processor when retrying cannot help (a chat that blocked the bot): fail at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** Thrown by a processor when the far side says when to come back (HTTP 429 retry_after). */
export class RetryAfterError extends Error {
  override name = 'RetryAfterError';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

export function retryDelay(attemptsMade: number, backoffMs: number, error: unknown): number {
  if (error instanceof RetryAfterError) return error.delayMs;
  return backoffMs * 2 ** Math.max(0, attemptsMade - 1);
}

/** BullMQ refuses ':' in custom ids; every adapter applies the same mapping so ids compare equal. */
export const normalizeJobId = (id: string) => id.replaceAll(':', '_');
