import type { AppDeps } from '../app/deps';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { PlannedJob } from '../app/jobs/planned';
import { LogProcessor } from '../projections/processor';

/**
 * The page an event is reacted to in: its events, and `once`, which loads what `key` names once for
 * the whole page (a reaction reads the documents of every event of the page in one query, not one a
 * message). The read models include the whole page by the time a reaction runs.
 */
export interface ReactionPage {
  events: readonly RecordedEvent[];
  once<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** Turns one event of the log into jobs; reads the read models, which already include the event and the rest of its page. */
export type Reaction = (event: RecordedEvent, deps: AppDeps, page: ReactionPage) => Promise<PlannedJob[]>;

export interface ReactorOptions {
  /** Store the checkpoint at most this often while events flow (default 250 ms). */
  checkpointEveryMs?: number;
  /**
   * The projections whose read models the reactions read: an event is reacted to once these
   * include it, whatever the others are doing (a rebuild of an unrelated read model delays nothing).
   * All of them when absent.
   */
  reads?: readonly string[];
  /** Only events of these types can plan jobs; the others are passed over without waiting. */
  types?: ReadonlySet<string>;
}

/**
 * Follows the log from its checkpoint and adds the jobs its reactions plan (a LogProcessor). The
 * checkpoint lives in the queue's own store and is saved only after the jobs of the events it
 * covers were added, so a crash replays a few events whose jobs the queue then refuses as
 * duplicates: nothing is lost and nothing is sent twice. A reactor that starts with no checkpoint
 * starts at the head of the log: history that happened before notifications existed is not announced.
 */
export class Reactor {
  private readonly processor: LogProcessor;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly deps: AppDeps,
    private readonly reactions: Reaction[],
    private readonly options: ReactorOptions = {},
  ) {
    this.processor = new LogProcessor(deps.events, {
      id: `reactor:${name}`,
      types: options.types,
      checkpointEveryMs: options.checkpointEveryMs ?? 250,
      handle: async (events, context) => {
        // Reactions read the read models; wait until they include the page (a rebuild may take a while).
        while (!(await this.deps.projections.waitFor(events.at(-1)!.position, 5000, this.options.reads))) {
          if (context.stopping()) return 0;
        }
        const loaded = new Map<string, Promise<unknown>>();
        const page: ReactionPage = {
          events,
          once: <T>(key: string, load: () => Promise<T>) => (loaded.get(key) ?? loaded.set(key, load()).get(key)!) as Promise<T>,
        };
        for (const event of events) {
          for (const reaction of this.reactions) {
            for (const job of await reaction(event, this.deps, page)) await this.deps.queue.add(job.queue, job.name, job.data, job.options);
          }
        }
        return events.at(-1)!.position;
      },
      checkpoint: {
        load: async () => {
          const stored = await this.deps.queue.checkpoint(this.name);
          if (stored !== null) return stored;
          const head = await this.deps.events.headPosition();
          await this.deps.queue.saveCheckpoint(this.name, head);
          return head;
        },
        save: (position) => this.deps.queue.saveCheckpoint(this.name, position),
      },
      onError: (error) => this.deps.logger.error({ err: error, reactor: this.name, position: this.processor.position }, 'reactor stopped; resuming'),
    });
  }

  /** The position of the last event whose jobs were all added. */
  get position(): number {
    return this.processor.position;
  }

  /** A reaction failing while catching up is logged and the catch-up tried again a second later. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.processor.start();
    } catch (error) {
      this.deps.logger.error({ err: error, reactor: this.name, position: this.processor.position }, 'reactor stopped; resuming');
      await this.processor.stop();
      if (!this.stopped) this.retryTimer = setTimeout(() => void this.start(), 1000);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.processor.stop();
  }
}
