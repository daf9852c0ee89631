import type { EventStore, RecordedEvent } from '../platform/eventstore/port';
import type { Lease } from '../platform/lease';
import { FencedReadStore } from '../platform/readstore/fenced';
import { type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { type FailureFault, faults, recordFailure } from './faults';
import { type HandleContext, LogProcessor, type ProgressReport } from './processor';

/**
 * A read model fed by the global log. `apply` must be idempotent for a replayed event (guard each
 * write with the stream revision or log position it last applied) and should never throw on a
 * recorded fact: one that does is recorded as a failure and skipped (`applyToProjections`).
 */
export interface Projection {
  name: string;
  /** Bump when `apply` changes meaning: the projection's collections are then rebuilt from zero. */
  version: number;
  collections: string[];
  /** The event types `apply` does something with; the runner skips the others. All when absent. */
  types?: ReadonlySet<string>;
  setup?(store: ReadStore): Promise<void>;
  apply(event: RecordedEvent, store: ReadStore): Promise<void>;
  /**
   * Applies a page of events at once (a read and a bulk write per collection); must leave
   * the read model as `apply` over each event in turn does. The runner uses it when present.
   */
  applyPage?(events: RecordedEvent[], store: ReadStore): Promise<void>;
}

/**
 * Applies a page to each projection in turn (a projection sees the page after those before it in
 * the list), skipping for each the events its checkpoint already covers. `positions` moves as each
 * projection finishes; `stopping` is asked between projections.
 */
export async function applyToProjections(
  projections: Projection[],
  page: RecordedEvent[],
  store: ReadStore,
  positions: Map<string, number> = new Map(),
  stopping: () => boolean = () => false,
  onProjected: () => void = () => undefined,
  onFailure?: (failure: FailureFault) => void,
): Promise<void> {
  const last = page.at(-1)?.position ?? 0;
  for (const projection of projections) {
    if (stopping()) return;
    const from = positions.get(projection.name) ?? 0;
    if (from >= last) continue;
    const types = projection.types;
    const fresh = page.filter((event) => event.position > from && (!types || types.has(event.type)));
    if (fresh.length > 0) await applyFresh(projection, fresh, store, onFailure);
    positions.set(projection.name, last);
    onProjected();
  }
}

/**
 * One projection's share of a page. The log is the truth: an event a projection throws on is
 * recorded (PROJECTION_FAULTS) and skipped for that projection, never retried forever, so one event
 * cannot stop the read models and a rebuild meets and records the same. Only a store that is away
 * (TransientStoreError) fails the page, to be tried again.
 */
async function applyFresh(projection: Projection, events: RecordedEvent[], store: ReadStore, onFailure?: (failure: FailureFault) => void): Promise<void> {
  if (projection.applyPage) {
    try {
      await projection.applyPage(events, store);
      return;
    } catch (error) {
      if (error instanceof TransientStoreError) throw error;
      // Some event of the page threw: event by event (each write is guarded, so the ones applied stay as they are) to skip exactly that one.
    }
  }
  for (const event of events) {
    try {
      await projection.apply(event, store);
    } catch (error) {
      if (error instanceof TransientStoreError) throw error;
      const failure = await recordFailure(store, projection.name, event, error);
      onFailure?.(failure);
    }
  }
}

interface Checkpoint {
  _id: string;
  version: number;
  position: number;
  /**
   * The log the position is of: the id of its first event (null while the log was empty; absent in
   * checkpoints stored before it was recorded, which are trusted once and then given it).
   */
  log?: string | null;
}

/** Why a projection's read models are dropped and built again from the log. */
export type ResetReason = 'no checkpoint' | 'new version' | 'another log';

export const CHECKPOINTS = 'projection_checkpoints';
/** The lease (in the `leases` collection of a shared read store) whose holder applies the log. */
export const PROJECTIONS_LEASE = 'projections';

export interface RunnerOptions {
  /** Store checkpoints at most this often while events flow (they are also stored when idle). */
  checkpointEveryMs?: number;
  pageSize?: number;
  onError?: (error: unknown, event: RecordedEvent | null) => void;
  /**
   * On a read store shared by several processes: only the holder of this lease applies events
   * (and resets a projection whose version changed); the others follow the shared checkpoints.
   * Absent: this runner is the only writer of its read store.
   */
  lease?: Lease;
  /** How often a runner that does not hold the lease reads the shared checkpoints (default 50 ms). */
  followEveryMs?: number;
  /** An event a projection threw on, recorded and skipped. */
  onFailure?: (failure: FailureFault) => void;
  /** A projection behind the head of the log at one position for this long is stalled (default 30 s). */
  stallAfterMs?: number;
  /** A projection's read models are dropped to be built again from the log (at start). */
  onReset?: (projection: string, reason: ResetReason) => void;
}

/** A projection behind the head of the log that has not moved for `stallAfterMs`. */
interface StalledProjection {
  name: string;
  position: number;
  forMs: number;
}

/** What keeps the read models from following the log right now (their faults are in PROJECTION_FAULTS). */
export interface RunnerTrouble {
  stalled: StalledProjection[];
  /**
   * The catch-up failed (the store is away), or this process could not start leading (it gave the
   * lease back) or following, and it is being tried again.
   */
  retrying: { error: string; since: string; attempts: number } | null;
}

/** Pauses between attempts at a failed catch-up: 1 s, doubling, at most 30 s. */
const retryPause = (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000);

export type ReplayProgress = ProgressReport;

interface Waiter {
  position: number;
  names: readonly string[] | undefined;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout | null;
}

/**
 * Runs every projection from its own checkpoint over one pass of the log (a LogProcessor: catch-up
 * in pages, then live). Checkpoints are stored after the read models they cover, so a crash between
 * the two only replays events that the projections' guards then skip. With a lease (a shared read
 * store), a runner that does not hold it applies nothing: it reads the positions the holder stored
 * and still calls `onApplied` listeners once the shared read models include each live event.
 */
export class ProjectionRunner {
  private readonly positions = new Map<string, number>();
  /** The positions as the checkpoints last stored them (by a page's transaction, or a save of its own). */
  private stored = new Map<string, number>();
  private readonly listeners = new Set<(event: RecordedEvent) => void>();
  private waiters: Waiter[] = [];
  private processor: LogProcessor | null = null;
  private leading: Promise<void> = Promise.resolve();
  private mode: 'idle' | 'leading' | 'following' = 'idle';
  private switching: Promise<void> = Promise.resolve();
  private serial: Promise<unknown> = Promise.resolve();
  private followTimer: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | null = null;
  private progress: ((progress: ReplayProgress) => void) | undefined;
  private stopped = false;
  private live = false;
  private processed = 0;
  private pages = 0;
  /** Per projection behind the head: the position it was seen at and since when. */
  private readonly behind = new Map<string, { position: number; since: number }>();
  private retrying: RunnerTrouble['retrying'] = null;
  private watchTimer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Where the projections write: with a lease, the store fenced with the lease's epoch of this leadership. */
  private writer: ReadStore;
  /** Failed starts of leading, and of following, in a row (the pause before the next grows with them). */
  private readonly failedStarts = { lead: 0, follow: 0 };
  /** Which start `retrying` reports, when it reports one. */
  private failedStart: 'lead' | 'follow' | null = null;
  private refollow: NodeJS.Timeout | null = null;
  /** The id of the log's first event, once it has one: the identity the checkpoints record. */
  private logId: string | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: RunnerOptions = {},
  ) {
    this.writer = store;
  }

  /** The global position every projection has applied. */
  get position(): number {
    return this.positionOf(undefined);
  }

  /** The log position each projection has applied. */
  get positionsByName(): Array<{ name: string; position: number }> {
    return this.projections.map(({ name }) => ({ name, position: this.positions.get(name) ?? 0 }));
  }

  /** Caught up with the log and following it live. */
  get isLive(): boolean {
    return this.live;
  }

  /** Events this process applied to the read models since it started (none while it does not hold the lease). */
  get eventsProcessed(): number {
    return this.processed;
  }

  /** Pages this process applied (each one transaction of the read store where it has them): posts per page tell how much one commit serves. */
  get pagesApplied(): number {
    return this.pages;
  }

  /** This process applies the events (no lease, or it holds the lease). */
  get isWriter(): boolean {
    return this.mode === 'leading';
  }

  /**
   * Loads checkpoints, rebuilds projections whose version changed, catches up to the head, then
   * tails live. With a lease it resolves once the read models (applied here or by the holder)
   * reach the head the log had at the call.
   */
  async start(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    this.stopped = false;
    this.live = false;
    this.progress = onProgress;
    this.watch();
    const lease = this.options.lease;
    if (!lease) {
      await this.lead();
      await this.leading;
    } else {
      await this.readShared();
      this.scheduleFollow();
      this.unlisten = lease.onChange((held) => {
        this.switchTo(held);
      });
      await lease.start();
      if (!lease.held) this.switchTo(false);
      await this.switching;
      const head = await this.events.headPosition();
      await this.reach(head);
    }
    if (!this.stopped) this.live = true;
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

  /** Drops every read model and replays the whole log into it (only the writer may). */
  async rebuild(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    if (this.options.lease) {
      await this.switching;
      if (this.mode !== 'leading') throw new Error('Another process holds the read-model lease: rebuild there');
      this.progress = onProgress;
      await this.processor?.stop();
      for (const projection of this.projections) await this.reset(projection);
      this.startProcessor();
      await this.leading;
      return;
    }
    await this.stop();
    for (const projection of this.projections) await this.reset(projection);
    await this.start(onProgress);
  }

  /**
   * Read-your-writes: resolves true once `position` is projected (by the named projections only,
   * when given), false if the timeout came first.
   */
  waitFor(position: number, timeoutMs = 5000, names?: readonly string[]): Promise<boolean> {
    const unknown = names?.find((name) => !this.projections.some((projection) => projection.name === name));
    if (unknown) throw new Error(`no projection named ${unknown}`);
    if (this.positionOf(names) >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = { position, names, resolve, timer: null };
      waiter.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Pages run one after another through this chain. */
  private inTurn<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.serial.then(fn);
    this.serial = result.catch(() => undefined);
    return result;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = null;
    this.wake?.();
    this.unlisten?.();
    this.unlisten = null;
    if (this.followTimer) clearTimeout(this.followTimer);
    this.followTimer = null;
    if (this.refollow) clearTimeout(this.refollow);
    this.refollow = null;
    await this.switching;
    await this.processor?.stop();
    await this.leading.catch(() => undefined);
    this.processor = null;
    this.mode = 'idle';
    await this.options.lease?.stop();
  }

  /**
   * Notes which projections have events of the log after them: one that stays at such a position
   * for `stallAfterMs` is stalled (a dead subscription, a hung store), whatever the cause. Asks the
   * log itself, not its head position: EventStoreDB's head may be a record of its own no
   * projection ever sees.
   */
  async observe(): Promise<void> {
    const followed = new Map<number, boolean>();
    for (const { name, position } of this.positionsByName) {
      if (!followed.has(position)) followed.set(position, (await this.events.readAll({ after: position, maxCount: 1 })).length > 0);
      const seen = this.behind.get(name);
      if (!followed.get(position)) this.behind.delete(name);
      else if (!seen || seen.position !== position) this.behind.set(name, { position, since: Date.now() });
    }
  }

  /** Projections stalled as last observed, and a failing catch-up being retried. */
  trouble(now = Date.now()): RunnerTrouble {
    const after = this.options.stallAfterMs ?? 30_000;
    const stalled = [...this.behind.entries()]
      .filter(([name, seen]) => now - seen.since >= after && (this.positions.get(name) ?? 0) === seen.position)
      .map(([name, seen]) => ({ name, position: seen.position, forMs: now - seen.since }));
    return { stalled, retrying: this.retrying };
  }

  /** Looks at the head now and then, so a stall is seen even when nobody asks for health. */
  private watch(): void {
    if (this.watchTimer) clearTimeout(this.watchTimer);
    const every = Math.min(Math.max((this.options.stallAfterMs ?? 30_000) / 3, 50), 5000);
    this.watchTimer = setTimeout(() => {
      this.watchTimer = null;
      if (this.stopped) return;
      void this.observe()
        .catch((error: unknown) => this.options.onError?.(error, null))
        .finally(() => (this.stopped ? undefined : this.watch()));
    }, every);
    this.watchTimer.unref();
  }

  private positionOf(names: readonly string[] | undefined): number {
    const chosen = names ? this.projections.filter((p) => names.includes(p.name)) : this.projections;
    if (chosen.length === 0) return Number.MAX_SAFE_INTEGER;
    let least = Number.MAX_SAFE_INTEGER;
    for (const projection of chosen) least = Math.min(least, this.positions.get(projection.name) ?? 0);
    return least;
  }

  /** Lease changes are acted on one at a time, without holding up the lease's own renewals. */
  private switchTo(held: boolean): void {
    this.switching = this.switching
      .then(() => (this.stopped ? undefined : held ? this.lead() : this.follow()))
      .catch((error: unknown) => this.options.onError?.(error, null));
  }

  /**
   * Becomes the writer: raises the fence to the lease's epoch, resets projections whose version
   * changed, then catches up and tails the log. If that start fails (the store refuses, an index
   * conflicts), the lease is given back for a pause that grows with each failure in a row, so another
   * process can lead meanwhile; `trouble()` says why.
   */
  private async lead(): Promise<void> {
    if (this.mode === 'leading') return;
    await this.processor?.stop();
    this.processor = null;
    const lease = this.options.lease;
    this.mode = 'leading';
    try {
      if (lease) {
        const fenced = new FencedReadStore(this.store, lease.epoch, PROJECTIONS_LEASE);
        await fenced.fence();
        this.writer = fenced;
      }
      await this.loadCheckpoints();
    } catch (error) {
      if (!lease) throw error;
      this.mode = 'idle';
      const pause = this.startFailed('lead', error);
      await lease.giveBack(pause);
      return;
    }
    this.startWorked('lead');
    this.startProcessor();
  }

  /** Notes a failed start of leading or following for `trouble()`: answers the pause before the next attempt. */
  private startFailed(kind: 'lead' | 'follow', error: unknown): number {
    this.options.onError?.(error, null);
    const message = error instanceof Error ? error.message : String(error);
    const what = kind === 'lead' ? 'could not start applying the log' : 'could not start following the log';
    const attempts = (this.failedStarts[kind] += 1);
    const since = this.failedStart === kind && this.retrying ? this.retrying.since : new Date().toISOString();
    this.retrying = { error: `${what}: ${message}`, since, attempts };
    this.failedStart = kind;
    return retryPause(attempts - 1);
  }

  /** A start of that kind worked: its failures are over (a leader that gave the lease back and follows is still in trouble). */
  private startWorked(kind: 'lead' | 'follow'): void {
    this.failedStarts[kind] = 0;
    if (this.failedStart !== kind && kind === 'follow') return;
    this.failedStart = null;
    this.retrying = null;
  }

  private startProcessor(): void {
    this.leading = this.runProcessor();
  }

  /**
   * Catches up, then follows the log. A catch-up that fails because the read store is away (or, on
   * a shared store, for any reason) is tried again after a pause that grows, while this runner still
   * leads; `trouble()` says so meanwhile. Alone, any other failure (the log cannot be read) fails `start`.
   */
  private async runProcessor(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const processor = this.newProcessor();
      try {
        await processor.start(this.progress);
        this.retrying = null;
        return;
      } catch (error) {
        if (!this.options.lease && !(error instanceof TransientStoreError)) throw error;
        this.options.onError?.(error, null);
        const message = error instanceof Error ? error.message : String(error);
        this.retrying = { error: message, since: this.retrying?.since ?? new Date().toISOString(), attempts: attempt + 1 };
        await processor.stop().catch(() => undefined);
        await this.pause(retryPause(attempt));
        if (this.stopped || this.mode !== 'leading' || this.processor !== processor) return;
      }
    }
  }

  /** Waits `ms`, or less if the runner stops meanwhile. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private newProcessor(): LogProcessor {
    const processor = new LogProcessor(this.events, {
      id: 'projections',
      pageSize: this.options.pageSize,
      checkpointEveryMs: this.options.checkpointEveryMs,
      // With a lease, a page checks the fence first unless the lease was renewed too recently for anyone
      // else to hold it (the steady state: no extra write): a leader that stalled past it stops here.
      handle: (page, context) =>
        this.inTurn(async () => {
          if (this.writer instanceof FencedReadStore && !this.options.lease?.surelyHeld) await this.writer.fence();
          // Live events are announced once committed: a push reads the models they changed.
          const applied = await this.inTransaction(() => this.applyPage(page, context));
          this.pages += 1;
          if (context.live) for (const event of applied) this.announce(event);
          return this.position;
        }),
      checkpoint: { load: async () => this.position, save: () => this.saveCheckpoints() },
      onError: (error) => this.options.onError?.(error, null),
    });
    // Events the processor skipped (system records the adapter filters out) count as reached by all.
    processor.onProgress((position) => {
      for (const projection of this.projections) if ((this.positions.get(projection.name) ?? 0) < position) this.positions.set(projection.name, position);
      this.release();
    });
    this.processor = processor;
    return processor;
  }

  /**
   * Stops writing and reads the positions the lease holder stores; still tells listeners of live
   * events. A follower that cannot start (the log cannot be read) tries again after a growing pause.
   */
  private async follow(): Promise<void> {
    if (this.mode === 'following') return;
    await this.processor?.stop();
    await this.leading.catch(() => undefined);
    this.mode = 'following';
    this.writer = this.store;
    const processor = new LogProcessor(this.events, {
      id: 'projections-follower',
      handle: (page, context) => this.announceWhenShared(page, context),
      // A follower replays no history: it only announces live events.
      checkpoint: { load: () => this.events.headPosition(), save: async () => undefined },
      onError: (error) => this.options.onError?.(error, null),
    });
    this.processor = processor;
    this.leading = processor.start();
    try {
      await this.leading;
    } catch (error) {
      const pause = this.startFailed('follow', error);
      await processor.stop().catch(() => undefined);
      this.processor = null;
      this.mode = 'idle';
      // Tried again outside the switching chain, so that taking the lease meanwhile is not held up.
      this.refollow = setTimeout(() => {
        this.refollow = null;
        if (!this.stopped && this.mode === 'idle') this.switchTo(false);
      }, pause);
      return;
    }
    this.startWorked('follow');
  }

  private async announceWhenShared(page: RecordedEvent[], context: HandleContext): Promise<number> {
    let reached = 0;
    for (const event of page) {
      while (!(await this.waitFor(event.position, 1000))) if (context.stopping()) return reached;
      this.announce(event);
      reached = event.position;
    }
    return reached;
  }

  /** Applies the page to every projection; answers the events all of them applied. */
  private async applyPage(page: RecordedEvent[], context: HandleContext): Promise<RecordedEvent[]> {
    // Callers waiting on the read models done so far need not wait for the rest of the page's projections;
    // the events every projection has applied are counted before those callers are told.
    let counted = this.position;
    const projected = () => {
      const now = this.position;
      this.processed += page.filter((event) => event.position > counted && event.position <= now).length;
      counted = Math.max(counted, now);
      this.release();
    };
    await applyToProjections(this.projections, page, this.writer, this.positions, context.stopping, projected, this.options.onFailure);
    const reached = this.position;
    projected();
    return page.filter((event) => event.position <= reached);
  }

  /**
   * A page's writes and the checkpoints they reach in one transaction, where the store has them
   * (SQLite: a crash at any point leaves the models at checkpoints they match, and the page's pages
   * reach the disk once). If it fails, the store rolls the writes back, and the positions go back with them.
   */
  private async inTransaction<R>(work: () => Promise<R>): Promise<R> {
    const store = this.writer;
    if (!store.transaction) return work();
    const before = new Map(this.positions);
    const stored = this.stored;
    try {
      return await store.transaction(async () => {
        const result = await work();
        await this.saveCheckpoints();
        return result;
      });
    } catch (error) {
      for (const [name, position] of before) this.positions.set(name, position);
      this.stored = stored;
      throw error;
    }
  }

  private announce(event: RecordedEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.onError?.(error, event);
      }
    }
  }

  /** Resolves once every projection reached `position` (or the runner stopped). */
  private async reach(position: number): Promise<void> {
    while (!this.stopped && !(await this.waitFor(position, 1000)));
  }

  /**
   * Read models are trusted only for the log they were built from: checkpoints of another log (its
   * first event is another, or it is shorter than they say, as when events.db was replaced) are
   * dropped and rebuilt like a new projection.
   */
  private async loadCheckpoints(): Promise<void> {
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    const log = await this.identifyLog();
    const head = await this.events.headPosition();
    for (const projection of this.projections) {
      const checkpoint = await checkpoints.findOne({ _id: projection.name });
      const reason: ResetReason | null = !checkpoint
        ? 'no checkpoint'
        : checkpoint.version !== projection.version
          ? 'new version'
          : checkpoint.position > head || (checkpoint.position > 0 && typeof checkpoint.log === 'string' && checkpoint.log !== log)
            ? 'another log'
            : null;
      if (checkpoint && !reason) {
        // Indexes declared since the models were stored are built.
        await projection.setup?.(this.writer);
        this.positions.set(projection.name, checkpoint.position);
        this.stored.set(projection.name, checkpoint.position);
      } else {
        this.options.onReset?.(projection.name, reason ?? 'no checkpoint');
        await this.reset(projection);
      }
    }
  }

  /** Only the writer resets: a version bump in a process without the lease empties nothing. */
  private async reset(projection: Projection): Promise<void> {
    for (const name of projection.collections) await this.writer.collection(name).drop();
    await faults(this.writer).deleteMany({ projection: projection.name });
    await projection.setup?.(this.writer);
    await this.writer
      .collection<Checkpoint>(CHECKPOINTS)
      .replaceOne({ _id: projection.name }, { _id: projection.name, version: projection.version, position: 0, log: this.logId }, { upsert: true });
    this.positions.set(projection.name, 0);
    this.stored.set(projection.name, 0);
  }

  /**
   * Checkpoints never move backwards, and never onto another version of the projection. One round trip
   * for all, and none when they are stored as they are: where each page stores them in its transaction,
   * the processor's timer finds nothing new (it wrote them again after every second page under load).
   */
  private async saveCheckpoints(): Promise<void> {
    if (this.projections.every(({ name }) => this.stored.get(name) === (this.positions.get(name) ?? 0))) return;
    const saving = new Map(this.positions);
    const log = this.position > 0 ? await this.identifyLog() : this.logId;
    const checkpoints = this.writer.collection<Checkpoint>(CHECKPOINTS);
    const positions = new Set(this.projections.map(({ name }) => saving.get(name) ?? 0));
    if (positions.size === 1) {
      // After a page every projection is at its last event: one query finds them all (on SQLite, 15 reads of a row each cost 0.04 ms a post).
      const position = saving.get(this.projections[0]!.name) ?? 0;
      const mine = this.projections.map(({ name, version }) => ({ _id: name, version }));
      await checkpoints.updateMany({ $or: mine, position: { $lt: position } }, { $set: { position, log } });
    } else
      await checkpoints.bulkWrite(
        this.projections.map(({ name, version }) => {
          const position = saving.get(name) ?? 0;
          return { updateOne: { filter: { _id: name, version, position: { $lt: position } }, update: { $set: { position, log } } } };
        }),
      );
    this.stored = saving;
  }

  /** The log's identity: the id of its first event (read until the log has one). */
  private async identifyLog(): Promise<string | null> {
    this.logId ??= (await this.events.readAll({ maxCount: 1 }))[0]?.id ?? null;
    return this.logId;
  }

  /** A follower's positions: the shared checkpoints of the same projection versions. */
  private async readShared(): Promise<void> {
    const stored = await this.store.collection<Checkpoint>(CHECKPOINTS).find({ _id: { $in: this.projections.map((p) => p.name) } });
    for (const projection of this.projections) {
      const checkpoint = stored.find((c) => c._id === projection.name);
      if (checkpoint?.version === projection.version && checkpoint.position > (this.positions.get(projection.name) ?? 0)) {
        this.positions.set(projection.name, checkpoint.position);
      }
    }
    this.release();
  }

  private scheduleFollow(): void {
    if (this.stopped) return;
    this.followTimer = setTimeout(() => {
      const read = this.mode === 'leading' ? Promise.resolve() : this.readShared();
      void read.catch((error: unknown) => this.options.onError?.(error, null)).finally(() => this.scheduleFollow());
    }, this.options.followEveryMs ?? 50);
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    // Callers wait on a few constant sets of names: each set's position is worked out once per release.
    const reached = new Map<readonly string[] | undefined, number>();
    const positionOf = (names: readonly string[] | undefined) => {
      let position = reached.get(names);
      if (position === undefined) reached.set(names, (position = this.positionOf(names)));
      return position;
    };
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.position > positionOf(waiter.names)) return true;
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
  }
}
