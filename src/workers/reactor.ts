import type { AppDeps } from '../app/deps';
import type { RecordedEvent, Subscription } from '../platform/eventstore/port';
import type { PlannedJob } from '../app/jobs/planned';

/** Turns one event of the log into jobs; reads the read models, which already include the event. */
export type Reaction = (event: RecordedEvent, deps: AppDeps) => Promise<PlannedJob[]>;

export interface ReactorOptions {
  /** Store the checkpoint at most this often while events flow (default 250 ms). */
  checkpointEveryMs?: number;
}

/**
 * Follows the log from its checkpoint and adds the jobs its reactions plan. The checkpoint lives in
 * the queue's own store and is saved only after the jobs of the events it covers were added, so a
 * crash replays a few events whose jobs the queue then refuses as duplicates: nothing is lost and
 * nothing is sent twice. A reactor that starts with no checkpoint starts at the head of the log:
 * history that happened before notifications existed is not announced.
 */
export class Reactor {
  private subscription: Subscription | null = null;
  private position = 0;
  private saved = 0;
  private saveTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly deps: AppDeps,
    private readonly reactions: Reaction[],
    private readonly options: ReactorOptions = {},
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    const stored = await this.deps.queue.checkpoint(this.name);
    this.position = stored ?? (await this.deps.events.headPosition());
    if (stored === null) await this.deps.queue.saveCheckpoint(this.name, this.position);
    this.saved = this.position;
    this.subscribe();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.subscription?.stop();
    this.subscription = null;
    await this.save();
  }

  private subscribe(): void {
    if (this.stopped) return;
    this.subscription = this.deps.events.subscribeToAll({
      after: this.position,
      onEvent: (event) => this.react(event),
      onError: (error) => {
        this.deps.logger.error({ err: error, reactor: this.name, position: this.position }, 'reactor stopped; resuming');
        this.subscription = null;
        this.restartTimer = setTimeout(() => this.subscribe(), 1000);
      },
    });
  }

  private async react(event: RecordedEvent): Promise<void> {
    if (event.position <= this.position) return;
    // Reactions read the read models; wait until they include this event (a rebuild may take a while).
    while (!(await this.deps.projections.waitFor(event.position, 5000))) {
      if (this.stopped) return;
    }
    for (const reaction of this.reactions) {
      for (const job of await reaction(event, this.deps)) await this.deps.queue.add(job.queue, job.name, job.data, job.options);
    }
    this.position = event.position;
    this.scheduleSave();
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.save().catch((error: unknown) => this.deps.logger.error({ err: error, reactor: this.name }, 'reactor checkpoint not saved'));
    }, this.options.checkpointEveryMs ?? 250);
  }

  private async save(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
    }
    if (this.position === this.saved) return;
    await this.deps.queue.saveCheckpoint(this.name, this.position);
    this.saved = this.position;
  }
}
