import { Queue as BullQueue, UnrecoverableError, Worker } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
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

const BACKOFF_TYPE = 'desk';
/** Completed jobs are kept a week so that a replayed event within that time is still deduplicated. */
const KEEP_COMPLETED_SECONDS = 7 * 24 * 3600;

export interface BullMqQueueOptions {
  url: string;
  /** Key prefix in Redis (REDIS_PREFIX); tests use their own so runs never meet. */
  prefix?: string;
}

/**
 * A crashed worker's job goes back to the queue once its lock expires (the lock is renewed every
 * half period while the job runs, so long jobs keep it): ten seconds bounds the wait after a crash.
 */
const LOCK_DURATION_MS = 10_000;
const STALLED_INTERVAL_MS = 5_000;

/** BullMQ on Redis: durable jobs shared by every process of the deployment. */
export class BullMqQueue implements Queue {
  readonly kind = 'bullmq' as const;
  private readonly connection: Redis;
  private readonly prefix: string;
  private readonly queues = new Map<string, BullQueue>();
  private readonly workers: Worker[] = [];
  private readonly workerConnections: Redis[] = [];

  constructor(options: BullMqQueueOptions) {
    // Workers block on Redis; BullMQ requires unlimited retries per request on their connection.
    this.connection = new IORedis(options.url, { maxRetriesPerRequest: null });
    this.prefix = options.prefix ?? 'desk';
  }

  private queue(name: string): BullQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new BullQueue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, queue);
    }
    return queue;
  }

  async add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    await this.queue(queue).add(name, data, {
      jobId: normalizeJobId(options.jobId),
      attempts: options.attempts ?? DEFAULT_ATTEMPTS,
      backoff: { type: BACKOFF_TYPE, delay: options.backoffMs ?? DEFAULT_BACKOFF_MS },
      removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
      removeOnFail: false,
    });
  }

  process<D>(queue: string, processor: Processor<D>, options: { concurrency?: number } = {}): void {
    const connection = this.connection.duplicate();
    this.workerConnections.push(connection);
    const worker = new Worker(
      queue,
      async (job) => {
        try {
          await processor({ id: job.id ?? '', name: job.name, data: job.data as D, attemptsMade: job.attemptsMade });
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      {
        connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: LOCK_DURATION_MS,
        stalledInterval: STALLED_INTERVAL_MS,
        settings: {
          backoffStrategy: (attemptsMade, _type, error, job) => {
            const backoff = job?.opts.backoff;
            const base = typeof backoff === 'object' && backoff?.delay !== undefined ? backoff.delay : DEFAULT_BACKOFF_MS;
            return retryDelay(attemptsMade, base, error);
          },
        },
      },
    );
    // Errors of individual jobs are recorded on the jobs; this keeps connection hiccups from crashing.
    worker.on('error', (error) => console.error(`queue ${queue}: ${error.message}`));
    this.workers.push(worker);
  }

  async failed(queue: string): Promise<FailedJob[]> {
    const jobs = await this.queue(queue).getFailed(0, -1);
    return jobs.map((job) => ({
      id: job.id ?? '',
      name: job.name,
      data: job.data as unknown,
      attemptsMade: job.attemptsMade,
      failedReason: job.failedReason,
      failedAt: new Date(job.finishedOn ?? job.timestamp).toISOString(),
    }));
  }

  async checkpoint(name: string): Promise<number | null> {
    const stored = await this.connection.get(this.checkpointKey(name));
    return stored === null ? null : Number(stored);
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    await this.connection.set(this.checkpointKey(name), String(position));
  }

  private checkpointKey(name: string): string {
    return `${this.prefix}:checkpoint:${name}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    for (const connection of [...this.workerConnections, this.connection]) connection.disconnect();
  }
}
