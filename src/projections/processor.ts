import { pagesOfAll } from '../platform/eventstore/paging';
import type { EventStore, RecordedEvent, Subscription } from '../platform/eventstore/port';

/** Where a processor resumes: the position of the last event it has fully handled. */
interface ProcessorCheckpoint {
  load(): Promise<number>;
  /** Called at most every `checkpointEveryMs` while events flow, and at stop. */
  save(position: number): Promise<void>;
}

export interface ProgressReport {
  position: number;
  head: number;
  events: number;
}

export interface HandleContext {
  /** Following the log live (after the catch-up that `start` does). */
  live: boolean;
  /** `stop` was called: finish the event in hand and return the position reached. */
  stopping: () => boolean;
  /** Aborted by `stop`: a wait inside `handle` ends at once instead of at its next look at `stopping`. */
  signal: AbortSignal;
}

export interface ProcessorOptions {
  /** Names the processor in logs and errors. */
  id: string;
  /** Only events of these types reach `handle`; the others still count as reached. All when absent. */
  types?: ReadonlySet<string>;
  /**
   * Handles events in log order (a page while catching up; live, the events that arrived while the
   * page before was handled) and answers the position it fully handled: the last event's, or less
   * when it stopped part way.
   */
  handle(events: RecordedEvent[], context: HandleContext): Promise<number>;
  checkpoint: ProcessorCheckpoint;
  /**
   * Called once the catch-up read the log's last page, before it is checkpointed: answers the
   * position handled (a handler that batches catch-up pages answers less until it wrote them).
   */
  endOfCatchUp?: () => Promise<number>;
  checkpointEveryMs?: number;
  pageSize?: number;
  /** A failed live subscription is resumed after this long (default 1 s), doubled for each failure in a row. */
  restartAfterMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * One follower of the global log, the same machinery for every consumer: loads its checkpoint,
 * catches up in pages, then tails the log live, resumes a failed subscription after a pause, and
 * stores the checkpoint on a timer and at stop. At least once: a crash between handling and the
 * checkpoint hands the same events again, so `handle` must be idempotent.
 */
export class LogProcessor {
  private reached = 0;
  private saved = 0;
  private handled = 0;
  private live = false;
  private stopped = true;
  /** Aborted by `stop`, so waits inside `handle` end at once (`HandleContext.signal`). */
  private halt = new AbortController();
  private subscription: Subscription | null = null;
  /** Live events delivered while a page is handled: the next page. */
  private waiting: RecordedEvent[] = [];
  private draining: Promise<void> | null = null;
  /** Counts subscriptions: a failed one's late calls are told apart from the current one's. */
  private generation = 0;
  private catchingUp: Promise<void> = Promise.resolve();
  private saveTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Live subscriptions that failed since an event was last handled. */
  private failedInARow = 0;
  private readonly listeners = new Set<(position: number) => void>();

  constructor(
    private readonly events: EventStore,
    private readonly options: ProcessorOptions,
  ) {}

  get id(): string {
    return this.options.id;
  }

  /** The position of the last event fully handled (or skipped as not of `types`). */
  get position(): number {
    return this.reached;
  }

  get isLive(): boolean {
    return this.live;
  }

  /** Events handed to `handle` since `start`. */
  get eventsProcessed(): number {
    return this.handled;
  }

  get isRunning(): boolean {
    return !this.stopped;
  }

  /** Calls `listener` with the new position each time it moves; returns the unsubscribe function. */
  onProgress(listener: (position: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads the checkpoint and catches up to the head of the log; then follows it live (not awaited). */
  async start(onProgress?: (progress: ProgressReport) => void): Promise<void> {
    this.stopped = false;
    this.halt = new AbortController();
    this.live = false;
    this.handled = 0;
    this.reached = await this.options.checkpoint.load();
    this.saved = this.reached;
    this.catchingUp = this.catchUp(onProgress);
    await this.catchingUp;
    // Stopped during the catch-up (a shutdown while starting): nothing to follow.
    if (this.stopped) return;
    this.live = true;
    this.subscribe();
  }

  /** Resolves once no event is being handled and none will be; stores the checkpoint. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halt.abort();
    this.live = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    await this.catchingUp.catch(() => undefined);
    await this.subscription?.stop();
    this.subscription = null;
    await this.draining;
    this.waiting = [];
    await this.save();
  }

  private async catchUp(onProgress?: (progress: ProgressReport) => void): Promise<void> {
    const head = await this.events.headPosition();
    for await (const page of pagesOfAll(this.events, { after: this.reached, pageSize: this.options.pageSize ?? 2000 })) {
      if (this.stopped) break;
      await this.process(page, false);
      if (this.stopped) break;
      onProgress?.({ position: this.reached, head, events: this.handled });
      // Events appended meanwhile come through the live subscription.
      if (this.reached >= head) break;
    }
    if (!this.stopped && this.options.endOfCatchUp) this.advance(await this.options.endOfCatchUp());
    // Positions of system events the adapter filters out still count as reached.
    if (!this.stopped && this.reached < head) this.advance(head);
    await this.save();
  }

  private subscribe(): void {
    if (this.stopped) return;
    const generation = ++this.generation;
    this.subscription = this.events.subscribeToAll({
      after: this.reached,
      onEvent: (event) => (this.stopped || this.generation !== generation ? undefined : this.enqueue(event)),
      onError: (error) => this.resubscribe(generation, error),
    });
  }

  /**
   * Live events are handled in pages: an event that arrives while a page is being handled waits,
   * and the next page takes every event that waits (up to `pageSize`). A quiet log gives pages of
   * one event; a busy one pays the round trips of a page once for many events. The subscription
   * is held back while a whole page waits.
   */
  private enqueue(event: RecordedEvent): Promise<void> | undefined {
    this.waiting.push(event);
    this.draining ??= this.drain();
    return this.waiting.length >= (this.options.pageSize ?? 2000) ? this.draining : undefined;
  }

  private async drain(): Promise<void> {
    // Events the subscription hands over at once (a page it read) make one page.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.waiting.length > 0 && !this.stopped) await this.process(this.waiting.splice(0, this.options.pageSize ?? 2000), true);
    } catch (error) {
      // The waiting events come again from the resumed subscription, which starts at the position reached.
      this.waiting = [];
      void this.subscription?.stop().catch(() => undefined);
      this.resubscribe(this.generation, error);
    } finally {
      this.draining = null;
    }
  }

  /**
   * Resumes from the position reached after a failed subscription or page; `handle` is idempotent,
   * so an overlap is harmless. A store that stays away is asked less and less often (doubling, at
   * most 30 s).
   */
  private resubscribe(generation: number, error: unknown): void {
    // Once per subscription: its own failure and a failed page of its events may both report.
    if (generation !== this.generation || this.subscription === null || this.stopped) return;
    this.generation += 1;
    this.options.onError?.(error);
    this.subscription = null;
    const pause = Math.min((this.options.restartAfterMs ?? 1000) * 2 ** this.failedInARow, 30_000);
    this.failedInARow += 1;
    // The events still waiting from the failed subscription are handled first: the new one starts after them.
    const resume = () => (this.draining ? void this.draining.then(() => this.subscribe()) : this.subscribe());
    if (!this.stopped) this.restartTimer = setTimeout(resume, pause);
  }

  private async process(page: RecordedEvent[], live: boolean): Promise<void> {
    // In order and once each: a page may overlap what was handled, or hold an event twice (delivered again on resuming).
    const fresh: RecordedEvent[] = [];
    for (const event of page) if (event.position > (fresh.at(-1)?.position ?? this.reached)) fresh.push(event);
    if (fresh.length === 0) return;
    const types = this.options.types;
    const wanted = types ? fresh.filter((event) => types.has(event.type)) : fresh;
    const last = fresh.at(-1)!.position;
    if (wanted.length === 0) {
      this.advance(last);
      return;
    }
    const reached = await this.options.handle(wanted, { live, stopping: () => this.stopped, signal: this.halt.signal });
    this.failedInARow = 0;
    this.handled += wanted.filter((event) => event.position <= reached).length;
    // Everything up to the last event is handled: skipped events after the last wanted one count too.
    this.advance(reached >= wanted.at(-1)!.position ? last : reached);
  }

  private advance(position: number): void {
    if (position <= this.reached) return;
    this.reached = position;
    this.scheduleSave();
    for (const listener of this.listeners) listener(position);
  }

  private scheduleSave(): void {
    if (this.saveTimer || this.stopped) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.save().catch((error: unknown) => this.options.onError?.(error));
    }, this.options.checkpointEveryMs ?? 100);
  }

  private async save(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
    }
    if (this.reached === this.saved) return;
    const position = this.reached;
    await this.options.checkpoint.save(position);
    this.saved = Math.max(this.saved, position);
  }
}
