import { Queue as BullQueue, DelayedError, type Job as BullJob, UnrecoverableError, Worker } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import { QueueUnavailableError } from '#contract/errors';
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
  failedJobs,
  isLastTry,
  normalizeJobId,
  retryDelay,
} from './port';

const BACKOFF_TYPE = 'desk';
/** Completed jobs are kept a week so that a replayed event within that time is still deduplicated. */
const KEEP_COMPLETED_SECONDS = 7 * 24 * 3600;
/** A job held behind an earlier job of its group looks again this often (the earlier one also wakes it when done). */
const HELD_RECHECK_MS = 2000;

/** How long a producer call (add, list, retry, checkpoint...) waits for Redis before it fails with QueueUnavailableError. */
const PRODUCER_TIMEOUT_MS = 2000;

export interface BullMqQueueOptions extends QueueOptions {
  url: string;
  /** Key prefix in Redis (REDIS_PREFIX); tests use their own so runs never meet. */
  prefix?: string;
  /** How long a producer call waits for Redis (default 2 s). */
  timeoutMs?: number;
}

/**
 * What a BullMQ job carries: the producer's data, its group, and when its retry window started
 * (reset when an admin retries it). Jobs written before this envelope existed are read as bare data.
 */
interface Envelope {
  desk: 1;
  payload: unknown;
  group: string | null;
  windowFrom: number;
}

const envelopeOf = (job: BullJob): Envelope => {
  const data = job.data as Partial<Envelope> | null;
  return data && typeof data === 'object' && data.desk === 1 ? (data as Envelope) : { desk: 1, payload: data, group: null, windowFrom: job.timestamp };
};

/**
 * A crashed worker's job goes back to the queue once its lock expires (the lock is renewed every
 * half period while the job runs, so long jobs keep it): ten seconds bounds the wait after a crash.
 */
const LOCK_DURATION_MS = 10_000;
const STALLED_INTERVAL_MS = 5_000;

/**
 * Adds a job id to its group's line with the next number of the queue's counter, unless it is there
 * already: the line's order is the order of adding.
 */
const JOIN_GROUP = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local n = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], n, ARGV[1])
return 1`;

/**
 * A BullMQ worker whose lock renewal can be ended apart from its close. `close()` ends the renewal
 * only once the worker's blocking connection has ended, and a connection caught between reconnect
 * tries (Redis down, or back but its next try not yet due) never says so: ioredis clears the pending
 * try without emitting 'end', so that close never finishes and the renewal timer re-arms for good,
 * keeping the process up after everything else has closed.
 */
class DeskWorker extends Worker {
  stopLockRenewal(): Promise<void> {
    return this.lockManager.close();
  }
}

/**
 * BullMQ on Redis: durable jobs shared by every process of the deployment. Groups (per-recipient
 * order) are a sorted set per group holding the ids of its unfinished jobs in the order they were
 * added; a job runs only when it heads its line, else it is put back as delayed without counting a
 * try, and the job ahead wakes it when it finishes.
 */
export class BullMqQueue implements Queue {
  readonly kind = 'bullmq' as const;
  private readonly connection: Redis;
  private readonly prefix: string;
  private readonly policy: RetryPolicy;
  private readonly keepFailed: KeepFailed;
  private readonly timeoutMs: number;
  private readonly queues = new Map<string, BullQueue>();
  private readonly workers: DeskWorker[] = [];
  private readonly workerConnections: Redis[] = [];

  constructor(private readonly options: BullMqQueueOptions) {
    this.timeoutMs = options.timeoutMs ?? PRODUCER_TIMEOUT_MS;
    // The producers' connection gives up: a command waits at most the timeout and is retried once
    // after a reconnect, so a Redis outage fails calls (health, the webhook, the reactor) instead of
    // hanging them. Workers block on Redis and get connections of their own without a limit.
    this.connection = new IORedis(options.url, { maxRetriesPerRequest: 1, commandTimeout: this.timeoutMs });
    // Connection errors are answered on each call; this keeps an outage from crashing the process.
    this.connection.on('error', () => undefined);
    this.prefix = options.prefix ?? 'desk';
    this.policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.keepFailed = options.keepFailed ?? DEFAULT_KEEP_FAILED;
  }

  /**
   * A producer call, bounded: BullMQ waits for a first connection without limit, and an outage
   * would hold every caller. Past the timeout (or on a connection error) it fails with a clear error.
   */
  private async bounded<T>(what: string, work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const unavailable = (reason: string) => new QueueUnavailableError(`The job queue (Redis) cannot be reached (${what}: ${reason}); try again shortly`);
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(unavailable(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([work(), timeout]);
    } catch (error) {
      if (error instanceof QueueUnavailableError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      // A connected Redis too slow to answer (ioredis's commandTimeout) is as unavailable as a lost one.
      if (this.connection.status === 'ready' && reason !== 'Command timed out') throw error;
      throw unavailable(reason);
    } finally {
      clearTimeout(timer);
    }
  }

  private queue(name: string): BullQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new BullQueue(name, { connection: this.connection, prefix: this.prefix });
      // Each call reports an outage itself (QueueUnavailableError); this keeps BullMQ from printing every reconnect.
      queue.on('error', (error) => this.options.logger?.warn({ queue: name, reason: error.message }, 'queue connection error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private groupKey(queue: string, group: string): string {
    return `${this.prefix}:${queue}:group:${group}`;
  }

  async add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    await this.bounded('add a job', () => this.addNow(queue, name, data, options));
  }

  private async addNow<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    const jobId = normalizeJobId(options.jobId);
    const group = options.group ?? null;
    const envelope: Envelope = { desk: 1, payload: data, group, windowFrom: Date.now() + (options.delayMs ?? 0) };
    const bull = this.queue(queue);
    // Joined before the job exists, so no process can run it ahead of its line. A replayed add of a
    // job that finished long ago rejoins its line; the line drops it when it finds it finished.
    if (group) await this.connection.eval(JOIN_GROUP, 2, this.groupKey(queue, group), `${this.prefix}:${queue}:group-seq`, jobId);
    await bull.add(name, envelope, {
      jobId,
      attempts: options.attempts ?? Number.MAX_SAFE_INTEGER,
      backoff: { type: BACKOFF_TYPE, delay: options.backoffMs ?? DEFAULT_BACKOFF_MS },
      ...(options.delayMs ? { delay: options.delayMs } : {}),
      removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
      // Failed jobs wait for an admin, but not forever: the oldest beyond the count, and any past the age, are dropped.
      removeOnFail: { count: this.keepFailed.count, age: Math.ceil(this.keepFailed.ageMs / 1000) },
      // A job retried for a day would otherwise keep every stack trace.
      stackTraceLimit: 1,
    });
  }

  /** The id heading a group's line, after dropping ids of jobs that are finished or gone. */
  private async headOf(queue: string, group: string): Promise<string | null> {
    const key = this.groupKey(queue, group);
    for (;;) {
      const [head] = await this.connection.zrange(key, '0', '0');
      if (head === undefined) return null;
      const state = await this.queue(queue).getJobState(head);
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return head;
      await this.connection.zrem(key, head);
    }
  }

  /** Takes a finished job out of its line and wakes the job now heading it. */
  private async leaveGroup(queue: string, group: string, jobId: string): Promise<void> {
    await this.connection.zrem(this.groupKey(queue, group), jobId);
    const head = await this.headOf(queue, group);
    if (!head) return;
    const next = await this.queue(queue).getJob(head);
    if (next && (await next.getState()) === 'delayed' && next.attemptsMade === 0) await next.promote().catch(() => undefined);
  }

  process<D>(queue: string, processor: Processor<D>, options: { concurrency?: number } = {}): void {
    // Workers block on Redis; BullMQ requires unlimited retries per request on their connection.
    const connection = new IORedis(this.options.url, { maxRetriesPerRequest: null });
    this.workerConnections.push(connection);
    const worker = new DeskWorker(
      queue,
      async (job, token) => {
        const envelope = envelopeOf(job);
        const id = job.id ?? '';
        if (envelope.group) {
          const inLine = (await this.connection.zscore(this.groupKey(queue, envelope.group), id)) !== null;
          const head = inLine ? await this.headOf(queue, envelope.group) : id;
          if (head !== id) {
            await job.moveToDelayed(Date.now() + HELD_RECHECK_MS, token);
            throw new DelayedError();
          }
        }
        const tries = { attemptsMade: job.attemptsMade, maxAttempts: job.opts.attempts ?? null, backoffMs: this.backoffOf(job), addedAt: envelope.windowFrom };
        try {
          await processor({ id, name: job.name, data: envelope.payload as D, attemptsMade: job.attemptsMade, lastTry: isLastTry(tries, this.policy) });
        } catch (error) {
          const next = afterFailure({ queue, id, ...tries }, error, this.policy, this.options.logger);
          if (next.retry) throw error;
          if (envelope.group) await this.leaveGroup(queue, envelope.group, id);
          throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
        }
        if (envelope.group) await this.leaveGroup(queue, envelope.group, id);
      },
      {
        connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: LOCK_DURATION_MS,
        stalledInterval: STALLED_INTERVAL_MS,
        settings: {
          backoffStrategy: (attemptsMade, _type, error, job) =>
            retryDelay(attemptsMade, job ? this.backoffOf(job) : DEFAULT_BACKOFF_MS, error, this.policy.capMs),
        },
      },
    );
    // Errors of individual jobs are recorded on the jobs; this keeps connection hiccups from crashing.
    worker.on('error', (error) => this.options.logger?.error({ queue, reason: error.message }, 'queue connection error'));
    this.workers.push(worker);
  }

  private backoffOf(job: { opts: { backoff?: number | { delay?: number } } }): number {
    const backoff = job.opts.backoff;
    return typeof backoff === 'object' && backoff?.delay !== undefined ? backoff.delay : DEFAULT_BACKOFF_MS;
  }

  async failed(queue: string): Promise<FailedJob[]> {
    return failedJobs(await this.failedPage(queue, 0, this.keepFailed.count));
  }

  async failedPage(queue: string, offset: number, limit: number): Promise<PendingJob[]> {
    if (limit <= 0) return [];
    // Newest first: the failed set is ordered by when each job finished.
    const jobs = await this.bounded('list failed jobs', () => this.queue(queue).getJobs('failed', offset, offset + limit - 1, false));
    return (jobs as BullJob[]).map((job) => this.listed(job, 'failed'));
  }

  async failedCount(queue: string): Promise<number> {
    return this.bounded('count failed jobs', () => this.queue(queue).getFailedCount());
  }

  async pending(queue: string): Promise<PendingJob[]> {
    const bull = this.queue(queue);
    const listed: PendingJob[] = [];
    for (const state of ['active', 'waiting', 'prioritized', 'delayed'] as const) {
      const jobs = await this.bounded('list jobs', () => bull.getJobs(state, 0, -1, true));
      for (const job of jobs as BullJob[]) listed.push(this.listed(job, state));
    }
    return listed.sort((a, b) => a.addedAt.localeCompare(b.addedAt));
  }

  private listed(job: BullJob, state: 'active' | 'waiting' | 'prioritized' | 'delayed' | 'failed'): PendingJob {
    return {
      id: job.id ?? '',
      name: job.name,
      data: envelopeOf(job).payload,
      state: state === 'failed' ? 'failed' : state === 'active' ? 'active' : job.attemptsMade > 0 ? 'retrying' : 'waiting',
      attemptsMade: job.attemptsMade,
      lastError: job.failedReason || null,
      addedAt: new Date(job.timestamp).toISOString(),
      updatedAt: new Date(job.finishedOn ?? job.processedOn ?? job.timestamp).toISOString(),
    };
  }

  async retry(queue: string, id: string): Promise<boolean> {
    return this.bounded('retry a job', () => this.retryNow(queue, id));
  }

  private async retryNow(queue: string, id: string): Promise<boolean> {
    const job = (await this.queue(queue).getJob(normalizeJobId(id))) as BullJob | undefined;
    if (!job) return false;
    const state = await job.getState();
    if (state !== 'failed' && state !== 'delayed') return false;
    await job.updateData({ ...envelopeOf(job), windowFrom: Date.now() });
    if (state === 'delayed') await job.promote();
    else await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /** Held jobs are promoted too: they look at their line again and wait behind its head, as before. */
  async wake(queue: string): Promise<number> {
    const bull = this.queue(queue);
    return this.bounded('wake jobs', async () => {
      const delayed = await bull.getDelayedCount();
      if (delayed > 0) await bull.promoteJobs();
      return delayed;
    });
  }

  async discard(queue: string, id: string): Promise<boolean> {
    return this.bounded('discard a job', () => this.discardNow(queue, id));
  }

  private async discardNow(queue: string, id: string): Promise<boolean> {
    const job = (await this.queue(queue).getJob(normalizeJobId(id))) as BullJob | undefined;
    if (!job || (await job.getState()) === 'active') return false;
    const { group } = envelopeOf(job);
    await job.remove();
    if (group) await this.leaveGroup(queue, group, job.id ?? '');
    return true;
  }

  async checkpoint(name: string): Promise<number | null> {
    const stored = await this.bounded('read a checkpoint', () => this.connection.get(this.checkpointKey(name)));
    return stored === null ? null : Number(stored);
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    await this.bounded('save a checkpoint', () => this.connection.set(this.checkpointKey(name), String(position)));
  }

  private checkpointKey(name: string): string {
    return `${this.prefix}:checkpoint:${name}`;
  }

  async close(): Promise<void> {
    // A worker whose connection came back from an outage can wait on a blocking call that never
    // returns: running jobs get the lock's time to finish, then its connection is cut below.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, LOCK_DURATION_MS)));
    await Promise.race([Promise.all(this.workers.map((worker) => worker.close())), late]);
    clearTimeout(timer);
    // A close still waiting there has not ended its lock renewal (DeskWorker says why); it is ended here.
    await Promise.all(this.workers.map((worker) => worker.stopLockRenewal()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    for (const connection of [...this.workerConnections, this.connection]) connection.disconnect();
  }
}
