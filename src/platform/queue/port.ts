/**
 * The Queue port: durable jobs for side effects (Telegram, e-mail). Producers add jobs with ids
 * derived from the event that caused them, so a replayed event enqueues nothing twice; processors
 * must still be idempotent because delivery is at least once.
 */

export interface JobOptions {
  /** Dedupe key: a second add with the same id is ignored while the first is kept. */
  jobId: string;
  /**
   * Jobs of one group (one Telegram chat, one mailbox) run in the order they were added: while one
   * waits for a retry, later jobs of its group wait behind it; other groups go on.
   */
  group?: string;
  /** Total tries including the first; without it a job retries until the queue's retry window ends. */
  attempts?: number;
  /** First retry delay; each next retry doubles it up to the queue's cap (default 1000 ms). */
  backoffMs?: number;
  /** Runs the job no sooner than this long after it was added; its retry window starts then. */
  delayMs?: number;
}

export interface Job<D = unknown> {
  id: string;
  name: string;
  data: D;
  /** Tries already made before this one. */
  attemptsMade: number;
  /** A failure of this try will be final (tries used up, or the retry window ends before the next). */
  lastTry: boolean;
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

/** A job not yet completed: waiting its turn, running, waiting for a retry, or failed for good. */
export interface PendingJob {
  id: string;
  name: string;
  data: unknown;
  state: 'waiting' | 'active' | 'retrying' | 'failed';
  attemptsMade: number;
  /** The reason of the last failed try (null before any). */
  lastError: string | null;
  addedAt: string;
  /** When the job last changed state (its last try, or its failure). */
  updatedAt: string;
}

/** Failed-for-good jobs as `Queue.failed` answers them (both adapters). */
export const failedJobs = (failed: PendingJob[]): FailedJob[] =>
  failed.map((job) => ({
    id: job.id,
    name: job.name,
    data: job.data,
    attemptsMade: job.attemptsMade,
    failedReason: job.lastError ?? '',
    failedAt: job.updatedAt,
  }));

/** How long and how often transient failures are retried (DELIVERY_RETRY_WINDOW_MS, DELIVERY_BACKOFF_CAP_MS). */
export interface RetryPolicy {
  /** A job gives up once its next try would start later than this after it was added. */
  windowMs: number;
  /** The longest wait between two tries. */
  capMs: number;
}

/** What the queue reports about failed tries; never the job's data (it holds people's messages). */
export interface QueueLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** How many jobs that failed for good are kept, and for how long (FAILED_JOBS_KEEP_COUNT, FAILED_JOBS_KEEP_MS): older ones are dropped. */
export interface KeepFailed {
  count: number;
  ageMs: number;
}

export const DEFAULT_KEEP_FAILED: KeepFailed = { count: 1000, ageMs: 30 * 24 * 3600 * 1000 };

export interface QueueOptions {
  retry?: RetryPolicy;
  logger?: QueueLogger;
  keepFailed?: KeepFailed;
}

export interface Queue {
  readonly kind: 'inline' | 'bullmq';
  add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void>;
  /** Starts consuming a queue in this process; jobs added before the call are processed too. */
  process<D>(queue: string, processor: Processor<D>, options?: { concurrency?: number }): void;
  /** Jobs that failed for good, kept for inspection (at most `keepFailed.count` of them), newest first. */
  failed(queue: string): Promise<FailedJob[]>;
  /** One page of the jobs that failed for good, newest first: `limit` of them after skipping `offset`. */
  failedPage(queue: string, offset: number, limit: number): Promise<PendingJob[]>;
  /** How many jobs failed for good (cheap enough for every health check). */
  failedCount(queue: string): Promise<number>;
  /** Every job on its way (waiting, running, waiting for a retry), oldest first; failed ones are paged with `failedPage`. */
  pending(queue: string): Promise<PendingJob[]>;
  /** Runs a failed or retrying job again now, with a new retry window; false when there is no such job. */
  retry(queue: string, id: string): Promise<boolean>;
  /**
   * Runs now every job waiting for its next try (its channel came back): each keeps its place in its
   * group, so one recipient's messages still go in order. Answers how many were waiting.
   */
  wake(queue: string): Promise<number>;
  /** Removes a job that is not running; false when there is no such job (or it is running). */
  discard(queue: string, id: string): Promise<boolean>;
  /**
   * A reactor's position in the log, stored next to the jobs it added so that both survive
   * together (null before the first save).
   */
  checkpoint(name: string): Promise<number | null>;
  saveCheckpoint(name: string, position: number): Promise<void>;
  /** Stops taking jobs, waits for running ones, releases connections. */
  close(): Promise<void>;
}

export const DEFAULT_BACKOFF_MS = 1000;
export const DEFAULT_RETRY_POLICY: RetryPolicy = { windowMs: 24 * 3600 * 1000, capMs: 5 * 60 * 1000 };

/** Thrown by a processor when retrying cannot help (a chat that blocked the bot): fail at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/**
 * Thrown by a processor whose message may or may not have reached the far side (it went out in full
 * and no answer came): sending it again could deliver it twice, so the job fails for good and waits
 * for an admin to decide (at most once).
 */
export class UncertainOutcomeError extends PermanentJobError {
  override name = 'UncertainOutcomeError';
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

export function retryDelay(attemptsMade: number, backoffMs: number, error: unknown, capMs = DEFAULT_RETRY_POLICY.capMs): number {
  if (error instanceof RetryAfterError) return error.delayMs;
  return Math.min(capMs, backoffMs * 2 ** Math.max(0, attemptsMade - 1));
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the queue knows of a job's tries, to decide about the next one. */
export interface TryState {
  attemptsMade: number;
  maxAttempts: number | null;
  backoffMs: number;
  addedAt: number;
}

/** Whether a failure of the try about to start would be final, unless the far side names a time to come back. */
export function isLastTry(job: TryState, policy: RetryPolicy): boolean {
  const attempt = job.attemptsMade + 1;
  return (
    (job.maxAttempts !== null && attempt >= job.maxAttempts) ||
    Date.now() + retryDelay(attempt, job.backoffMs, null, policy.capMs) > job.addedAt + policy.windowMs
  );
}

/**
 * What becomes of a try that failed: another try after `delayMs`, or failure for good (a permanent
 * refusal, the tries allowed used up, or the next try past the retry window). Both adapters decide
 * with this, and log it the same way.
 */
export function afterFailure(
  job: TryState & { queue: string; id: string },
  error: unknown,
  policy: RetryPolicy,
  logger: QueueLogger | undefined,
): { retry: true; delayMs: number } | { retry: false } {
  const attempt = job.attemptsMade + 1;
  const fields = { queue: job.queue, jobId: job.id, attempt, reason: errorText(error) };
  const delayMs = retryDelay(attempt, job.backoffMs, error, policy.capMs);
  const permanent = error instanceof PermanentJobError;
  const exhausted = job.maxAttempts !== null && attempt >= job.maxAttempts;
  if (permanent || exhausted || Date.now() + delayMs > job.addedAt + policy.windowMs) {
    logger?.error({ ...fields, permanent }, 'job failed for good; it waits for an admin in the failed list');
    return { retry: false };
  }
  logger?.warn({ ...fields, retryInMs: delayMs }, 'job failed; retrying');
  return { retry: true, delayMs };
}

/** BullMQ refuses ':' in custom ids; every adapter applies the same mapping so ids compare equal. */
export const normalizeJobId = (id: string) => id.replaceAll(':', '_');
