import { pagesOfAll } from '../platform/eventstore/paging';
import type { EventStore, RecordedEvent, Subscription } from '../platform/eventstore/port';
import type { ReadStore } from '../platform/readstore/port';

/**
 * A read model fed by the global log. `apply` must be idempotent for a replayed event (guard each
 * write with the stream revision it last applied) and must never throw on a recorded fact.
 */
export interface Projection {
  name: string;
  /** Bump when `apply` changes meaning: the projection's collections are then rebuilt from zero. */
  version: number;
  collections: string[];
  setup?(store: ReadStore): Promise<void>;
  apply(event: RecordedEvent, store: ReadStore): Promise<void>;
}

interface Checkpoint {
  _id: string;
  version: number;
  position: number;
}

export const CHECKPOINTS = 'projection_checkpoints';

export interface RunnerOptions {
  /** Store checkpoints at most this often while events flow (they are also stored when idle). */
  checkpointEveryMs?: number;
  pageSize?: number;
  onError?: (error: unknown, event: RecordedEvent | null) => void;
}

export interface ReplayProgress {
  position: number;
  head: number;
  events: number;
}

/**
 * Runs every projection from its own checkpoint over one pass of the log: catch-up in pages, then a
 * live subscription. Checkpoints are stored after the read models they cover, so a crash between
 * the two only replays events that the revision guards then skip.
 */
export class ProjectionRunner {
  private readonly positions = new Map<string, number>();
  private subscription: Subscription | null = null;
  private waiters: Array<{ position: number; names?: string[]; resolve: (reached: boolean) => void; timer: NodeJS.Timeout }> = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private live = false;
  private processed = 0;
  private readonly listeners = new Set<(event: RecordedEvent) => void>();

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: RunnerOptions = {},
  ) {}

  /** The global position every projection has applied. */
  get position(): number {
    return this.projections.length === 0 ? Number.MAX_SAFE_INTEGER : Math.min(...this.projections.map((p) => this.positions.get(p.name) ?? 0));
  }

  /** Caught up with the log and following it live. */
  get isLive(): boolean {
    return this.live;
  }

  /** Events applied since this runner started. */
  get eventsProcessed(): number {
    return this.processed;
  }

  /** Loads checkpoints, rebuilds projections whose version changed, catches up to the head, then tails live. */
  async start(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    this.stopped = false;
    this.live = false;
    await this.loadCheckpoints();
    await this.catchUp(onProgress);
    // Stopped during the catch-up (a shutdown while starting): nothing to follow.
    if (this.stopped) return;
    this.live = true;
    this.subscribe();
  }

  /**
   * Calls `listener` with each live event once the read models include it (never for the history
   * replayed at start), so a push can read fresh views. At least once: a resumed subscription may
   * repeat an event. Returns the unsubscribe function.
   */
  onApplied(listener: (event: RecordedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops every read model and replays the whole log into it. */
  async rebuild(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    await this.stop();
    for (const projection of this.projections) await this.reset(projection);
    await this.start(onProgress);
  }

  /**
   * Read-your-writes: resolves true once `position` is projected, false if the timeout came first.
   * With `names`, only those projections need to have reached it (the read models the caller reads next).
   */
  waitFor(position: number, timeoutMs = 5000, names?: string[]): Promise<boolean> {
    const unknown = names?.find((name) => !this.projections.some((projection) => projection.name === name));
    if (unknown) throw new Error(`no projection named ${unknown}`);
    if (this.reached(names) >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        names,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The global position the named projections (all of them without names) have applied. */
  private reached(names?: string[]): number {
    if (!names) return this.position;
    return names.length === 1 ? (this.positions.get(names[0]!) ?? 0) : Math.min(...names.map((name) => this.positions.get(name) ?? 0));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.subscription?.stop();
    this.subscription = null;
    await this.flush();
  }

  private async loadCheckpoints(): Promise<void> {
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    for (const projection of this.projections) {
      const checkpoint = await checkpoints.findOne({ _id: projection.name });
      if (!checkpoint || checkpoint.version !== projection.version) {
        await this.reset(projection);
      } else {
        this.positions.set(projection.name, checkpoint.position);
      }
    }
  }

  private async reset(projection: Projection): Promise<void> {
    for (const name of projection.collections) await this.store.collection(name).drop();
    await projection.setup?.(this.store);
    await this.store.collection<Checkpoint>(CHECKPOINTS).replaceOne(
      { _id: projection.name },
      { _id: projection.name, version: projection.version, position: 0 },
      { upsert: true },
    );
    this.positions.set(projection.name, 0);
  }

  private async catchUp(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    const head = await this.events.headPosition();
    let after = this.position;
    for await (const page of pagesOfAll(this.events, { after, pageSize: this.options.pageSize ?? 2000 })) {
      for (const event of page) {
        if (this.stopped) break;
        await this.apply(event);
        after = event.position;
      }
      if (this.stopped) break;
      onProgress?.({ position: after, head, events: this.processed });
      // Events appended meanwhile come through the live subscription.
      if (after >= head) break;
    }
    // Positions of system events the adapter filters out still count as reached.
    for (const projection of this.projections) {
      if ((this.positions.get(projection.name) ?? 0) < after) this.positions.set(projection.name, after);
    }
    await this.flush();
  }

  private subscribe(): void {
    if (this.stopped) return;
    this.subscription = this.events.subscribeToAll({
      after: this.position,
      onEvent: (event) => this.apply(event),
      onError: (error) => {
        this.options.onError?.(error, null);
        this.subscription = null;
        // Resume from the positions reached; guards make the overlap harmless.
        this.restartTimer = setTimeout(() => this.subscribe(), 1000);
      },
    });
  }

  private async apply(event: RecordedEvent): Promise<void> {
    for (const projection of this.projections) {
      if ((this.positions.get(projection.name) ?? 0) >= event.position) continue;
      await projection.apply(event, this.store);
      this.positions.set(projection.name, event.position);
      // A caller waiting for this read model alone need not wait for the ones after it.
      this.release();
    }
    this.processed++;
    this.scheduleFlush();
    this.release();
    if (!this.live) return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.onError?.(error, event);
      }
    }
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    let all: number | undefined;
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.position > (waiter.names ? this.reached(waiter.names) : (all ??= this.position))) return true;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush().catch((error: unknown) => this.options.onError?.(error, null));
    }, this.options.checkpointEveryMs ?? 100);
  }

  private async flush(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    for (const projection of this.projections) {
      await checkpoints.updateOne({ _id: projection.name }, { $set: { position: this.positions.get(projection.name) ?? 0 } });
    }
  }
}
