import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  type FailedJob,
  type Job,
  type JobOptions,
  PermanentJobError,
  type Processor,
  type Queue,
  normalizeJobId,
  retryDelay,
} from './port';

interface PendingJob extends Job {
  options: Required<Omit<JobOptions, 'jobId'>>;
}

interface QueueState {
  /** Every id ever added: ids are kept after completion so a replay enqueues nothing twice. */
  known: Set<string>;
  ready: PendingJob[];
  failed: FailedJob[];
  processor: Processor | null;
  concurrency: number;
  running: number;
}

/**
 * The in-process queue of the embedded default: the same processors, retries and backoff as BullMQ,
 * with nothing outside the process. Jobs live in memory; the reactors that add them resume from
 * their checkpoints after a restart, so a job lost with the process is enqueued again.
 */
export class InlineQueue implements Queue {
  readonly kind = 'inline' as const;
  private readonly queues = new Map<string, QueueState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  private state(queue: string): QueueState {
    let state = this.queues.get(queue);
    if (!state) {
      state = { known: new Set(), ready: [], failed: [], processor: null, concurrency: 1, running: 0 };
      this.queues.set(queue, state);
    }
    return state;
  }

  async add<D>(queue: string, name: string, data: D, options: JobOptions): Promise<void> {
    const state = this.state(queue);
    const id = normalizeJobId(options.jobId);
    if (this.closed || state.known.has(id)) return;
    state.known.add(id);
    state.ready.push({
      id,
      name,
      data: structuredClone(data),
      attemptsMade: 0,
      options: { attempts: options.attempts ?? DEFAULT_ATTEMPTS, backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS },
    });
    this.pump(state);
  }

  process<D>(queue: string, processor: Processor<D>, options: { concurrency?: number } = {}): void {
    const state = this.state(queue);
    state.processor = processor as Processor;
    state.concurrency = options.concurrency ?? 1;
    this.pump(state);
  }

  async failed(queue: string): Promise<FailedJob[]> {
    return structuredClone(this.state(queue).failed);
  }

  private pump(state: QueueState): void {
    while (!this.closed && state.processor && state.running < state.concurrency && state.ready.length > 0) {
      const job = state.ready.shift()!;
      state.running++;
      const run = this.run(state, state.processor, job).finally(() => {
        state.running--;
        this.inFlight.delete(run);
        this.pump(state);
      });
      this.inFlight.add(run);
    }
  }

  private async run(state: QueueState, processor: Processor, job: PendingJob): Promise<void> {
    try {
      await processor({ id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade });
    } catch (error) {
      job.attemptsMade++;
      if (error instanceof PermanentJobError || job.attemptsMade >= job.options.attempts) {
        state.failed.push({
          id: job.id,
          name: job.name,
          data: job.data,
          attemptsMade: job.attemptsMade,
          failedReason: error instanceof Error ? error.message : String(error),
          failedAt: new Date().toISOString(),
        });
        return;
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        state.ready.push(job);
        this.pump(state);
      }, retryDelay(job.attemptsMade, job.options.backoffMs, error));
      this.timers.add(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.inFlight);
  }
}
