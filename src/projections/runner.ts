import type { EventStore, RecordedEvent } from '../platform/eventstore/port';
import type { Lease } from '../platform/lease';
import { CachedReadStore, DocumentCache } from '../platform/readstore/cached';
import { FencedOutError, FencedReadStore } from '../platform/readstore/fenced';
import { type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { isTransient } from '../platform/readstore/transient';
import { Waiters } from './waiters';
import { type FailureFault, faults } from './faults';
import { applyTogether, applyToProjections } from './apply';
import { CatchUpBatch } from './batch';
import { type Leadership, type LeadershipEffect, type LeadershipInput, transition } from './leadership';
import { type HandleContext, LogProcessor, type ProgressReport } from './processor';
import { generationsOf } from './lineage';

/**
 * A read model fed by the global log. `apply` must be idempotent for a replayed event (guard each
 * write with the stream revision or log position it last applied) and should never throw on a
 * recorded fact: one that does is recorded as a failure and skipped (`applyToProjections`).
 */
export interface Projection {
  name: string;
  /** Bump when `apply` changes meaning: the projection's collections are then rebuilt from zero. */
  version: number;
  /**
   * The projections whose collections `apply` reads (the directory's names), earlier in the list: a
   * new version of one of them rebuilds this one too (lineage.ts), a writer that does not apply them
   * waits for them, and a live page, applied to every projection at once, applies this one after
   * them. No other projection's collection may be read without being named here.
   */
  reads?: readonly string[];
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
  /**
   * After a catch-up, before the first live page (none is applied meanwhile): work a rebuild leaves
   * that live pages should not pay for (the search index merges a rebuilt index whole).
   */
  caughtUp?(store: ReadStore): Promise<void>;
  /**
   * Read by nothing a command answers or a push sends (search): where the store has transactions, a live
   * page commits the other projections first, and this one applies the events of one or more pages after
   * them in a transaction of its own (`ProjectionRunner.applyLater`). Waiting on "every read model" does
   * not wait for it; its readers name it (docs/read-models.md, "Deferred projections").
   */
  deferred?: boolean;
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
  /** The projection's generation (lineage.ts): another means a model it reads was rebuilt (absent in checkpoints stored before). */
  generation?: string;
  /** On a store shared by several versions of the desk: the one whose leader writes these models (generations.ts). */
  owner?: string;
}

/** Why a projection's read models are dropped and built again from the log. */
export type ResetReason = 'no checkpoint' | 'new version' | 'a model it reads was rebuilt' | 'another log';

/**
 * Who writes which projection on a store shared by processes of several versions of the desk
 * (generations.ts): a projection of the same generation in two versions is one set of models, written
 * by one of them, and its checkpoint is keyed by its generation.
 */
export interface Ownership {
  /** The version of the desk this process runs, as checkpoints name their writer. */
  readonly owner: string;
  checkpointId(name: string): string;
  /** Takes over, for the writer of `epoch`, every projection no live process of another version writes: answers those it writes. */
  claim(writer: ReadStore, epoch: number): Promise<ReadonlySet<string>>;
  /** Whether one of these projections, written by another version, can be taken over now (no process of it leads). */
  claimable(names: readonly string[]): Promise<boolean>;
}

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
  /**
   * How often a runner that does not hold the lease reads the shared checkpoints while a caller waits
   * for them (a command's read-your-writes, a live event to announce; default 50 ms); idle, 20 times less often.
   */
  followEveryMs?: number;
  /** An event a projection threw on, recorded and skipped. */
  onFailure?: (failure: FailureFault) => void;
  /** A projection behind the head of the log at one position for this long is stalled (default 30 s). */
  stallAfterMs?: number;
  /** A projection's read models are dropped to be built again from the log (at start). */
  onReset?: (projection: string, reason: ResetReason) => void;
  /** The first pause before a failed catch-up or start is tried again (default 1 s), doubling, at most 30 times it. */
  retryPauseMs?: number;
  /**
   * Live pages read the documents by id from what this writer last read or wrote of them
   * (`DocumentCache`, src/platform/readstore/cached.ts) instead of the store. Default: on MongoDB,
   * where each read is a round trip.
   */
  cacheDocuments?: boolean;
  /** On a store shared by several versions of the desk: which projections this process writes when it leads. */
  ownership?: Ownership;
  /**
   * A catch-up from nothing (every projection at position 0: a first start, a rebuild, a new
   * generation) applies the log to the read models held in memory and writes what changed every this
   * many events (`CatchUpBatch`, src/projections/batch.ts). Default: 20,000 on MongoDB, where each
   * page's round trips are the replay's cost; 0 (page by page) elsewhere, and always on SQLite.
   */
  batchEvents?: number;
  /**
   * A writer: told after each page's transaction commits (its models and checkpoints readable by other
   * connections). The thread that applies the log for the app's thread tells it so (thread.ts).
   */
  onCommitted?: () => void;
  /**
   * A follower: hears the positions the writer just committed (the projection thread of this process,
   * thread.ts, which also tells what it applied and whether it is retrying), rather than reading the
   * shared checkpoints at its next look (`followEveryMs`, still done). Answers the unsubscribe function.
   */
  sharedMoved?: (listener: (word: WriterWord) => void) => () => void;
}

/** How often a leader that writes only some projections asks whether the writer of the others stopped. */
const CLAIM_EVERY_MS = 1000;
/** A follower nobody waits on reads the shared checkpoints this many times less often (for health and the stall watch). */
const IDLE_SLOWER = 20;

/** A live page's events wait this long for the deferred projections (search), so that one transaction of theirs serves the pages of that time. */
const LATER_MS = 10;
/** ... or until this many wait. */
const LATER_EVENTS = 500;

/** A replay in batches goes on page by page once the store holds this many of its documents: the batch holds them all in memory. */
const BATCH_DOCUMENTS = 250_000;

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

export type ReplayProgress = ProgressReport;

/** What the writer on this process's projection thread tells with each commit (thread.ts). */
export interface WriterWord {
  processed: number;
  pages: number;
  retrying: RunnerTrouble['retrying'];
  /** Told right after a commit: the positions it stored (by projection), which a follower takes as read from the checkpoints. */
  positions?: Record<string, number>;
}

/** What `trouble().retrying` reports, by what failed. */
const TROUBLE = { lead: 'could not start applying the log: ', follow: 'could not start following the log: ', apply: '' } as const;

/**
 * Runs every projection from its own checkpoint over one pass of the log (a LogProcessor: catch-up
 * in pages, then live). Checkpoints are stored after the read models they cover, so a crash between
 * the two only replays events that the projections' guards then skip. With a lease (a shared read
 * store), a runner that does not hold it applies nothing: it reads the positions the holder stored
 * and still calls `onApplied` listeners once the shared read models include each live event. Who
 * applies is the state machine of `leadership.ts`; this class carries out its effects.
 */
export class ProjectionRunner {
  private readonly positions = new Map<string, number>();
  /** Each projection's generation (lineage.ts), stored with its checkpoint. */
  private readonly generations: Map<string, string>;
  /** The projections this process writes while it leads (all but those another version of the desk writes). */
  private owned: ReadonlySet<string>;
  private claimCheckedAt = 0;
  private sharedReadAt = 0;
  /** The positions as the checkpoints last stored them (by a page's transaction, or a save of its own). */
  private stored = new Map<string, number>();
  private readonly listeners = new Set<(event: RecordedEvent) => void>();
  private readonly waiters = new Waiters((names) => this.positionOf(names));
  /** The writer's processor (leading) and the follower's (announcing live events). */
  private processor: LogProcessor | null = null;
  private follower: LogProcessor | null = null;
  private leadership: Leadership = { kind: 'stopped' };
  /** The machine's effects, carried out one at a time. */
  private effects: Promise<void> = Promise.resolve();
  private serial: Promise<unknown> = Promise.resolve();
  /** The last batch's writes and then its checkpoints, sent while the next batch is applied (null once awaited). */
  private batchWrites: Promise<void> | null = null;
  private followTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | null = null;
  private unshare: (() => void) | null = null;
  /** What this process's projection thread last told (none without one). */
  private thread: WriterWord = { processed: 0, pages: 0, retrying: null };
  private progress: ((progress: ReplayProgress) => void) | undefined;
  private stopped = false;
  /** Aborted by `stop`, so a start waiting to `reach` the head ends at once. */
  private halt = new AbortController();
  private live = false;
  private processed = 0;
  private pages = 0;
  /** Per projection behind the head: the position it was seen at and since when. */
  private readonly behind = new Map<string, { position: number; since: number }>();
  private retrying: RunnerTrouble['retrying'] = null;
  /** Which failure `retrying` reports, when it reports one. */
  private troubleOf: keyof typeof TROUBLE | null = null;
  private watchTimer: NodeJS.Timeout | null = null;
  /** Where the projections write: with a lease, the store fenced with the lease's epoch of this leadership. */
  private writer: ReadStore;
  /** The id of the log's first event, once it has one: the identity the checkpoints record. */
  private logId: string | null = null;
  /** What the writer's live pages last read or wrote, by id (on MongoDB; none while it does not write). */
  private cache: DocumentCache | null = null;
  /** Callers of a start without a lease: told once the catch-up reached the head, or failed for good. */
  private catchUps: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  /** Live events the deferred projections have yet to apply, after the others committed them (`applyLater`). */
  private later: RecordedEvent[] = [];
  private laterTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: RunnerOptions = {},
  ) {
    this.writer = store;
    this.generations = generationsOf(projections);
    this.owned = new Set(projections.map(({ name }) => name));
  }

  /** The projections this process writes when it leads. */
  private get mine(): Projection[] {
    return this.projections.filter(({ name }) => this.owned.has(name));
  }

  /** The deferred projections this process writes, where a live page commits them apart (a store with transactions). */
  private get deferredMine(): Projection[] {
    return this.writer.transaction ? this.mine.filter((projection) => projection.deferred) : [];
  }

  /** The position every projection this process writes has applied. */
  private get written(): number {
    return this.positionOf([...this.owned]);
  }

  private checkpointId(name: string): string {
    return this.options.ownership?.checkpointId(name) ?? name;
  }

  /** The global position every projection but the deferred has applied: what commands and pushes wait for. */
  get position(): number {
    return this.positionOf(undefined);
  }

  /** The global position every projection has applied, the deferred too (the rebuild check compares them all there). */
  get allApplied(): number {
    return this.positionOf(this.projections.map(({ name }) => name));
  }

  /** The log position each projection has applied. */
  get positionsByName(): Array<{ name: string; position: number }> {
    return this.projections.map(({ name }) => ({ name, position: this.positions.get(name) ?? 0 }));
  }

  /** Caught up with the log and following it live. */
  get isLive(): boolean {
    return this.live;
  }

  /** Events this process applied to the read models since it started, here or on its projection thread (none while it does not hold the lease). */
  get eventsProcessed(): number {
    return this.processed + this.thread.processed;
  }

  /** Pages this process applied (each one transaction of the read store where it has them): posts per page tell how much one commit serves. */
  get pagesApplied(): number {
    return this.pages + this.thread.pages;
  }

  /**
   * The read models for a reaction of this process: while it applies the log live, its reads by id
   * come from what the pages last read or wrote (the documents a page just wrote cost no round trip on
   * MongoDB); otherwise the store itself.
   */
  get reader(): ReadStore {
    return this.cache && this.isWriter && this.processor?.isLive ? new CachedReadStore(this.store, this.cache) : this.store;
  }

  /** This process applies the events (no lease, or it holds the lease). */
  get isWriter(): boolean {
    return this.leadership.kind === 'leading';
  }

  /** Where the leadership state machine stands (docs/read-models.md "Leadership states"). */
  get state(): Leadership {
    return this.leadership;
  }

  /**
   * Loads checkpoints, rebuilds projections whose version changed, catches up to the head, then
   * tails live. With a lease it resolves once the read models (applied here or by the holder)
   * reach the head the log had at the call.
   */
  async start(onProgress?: (progress: ReplayProgress) => void): Promise<void> {
    this.stopped = false;
    this.halt = new AbortController();
    this.live = false;
    this.progress = onProgress;
    this.watch();
    const lease = this.options.lease;
    if (!lease) {
      const caughtUp = new Promise<void>((resolve, reject) => this.catchUps.push({ resolve, reject }));
      this.dispatch({ type: 'start' });
      this.dispatch({ type: 'leaseWon', epoch: 0 });
      await caughtUp;
    } else {
      // A store away at start is read again by the follower's poll: it does not fail the start.
      await this.readShared().catch((error: unknown) => this.options.onError?.(error, null));
      this.scheduleFollow();
      this.unshare =
        this.options.sharedMoved?.((word) => {
          this.thread = word;
          if (word.positions) this.takeShared(word.positions);
        }) ?? null;
      this.unlisten = lease.onChange((held) => this.dispatch(held ? { type: 'leaseWon', epoch: lease.epoch } : { type: 'leaseLost' }));
      this.dispatch({ type: 'start' });
      await lease.start();
      await this.effects;
      const head = await this.events.headPosition();
      await this.reach(head);
      // The leader's catch-up ends after the positions reach the head: its projections' `caughtUp` work
      // (merging a rebuilt search index) is done before the desk serves. Looked at every 50 ms, so a
      // lease lost meanwhile ends the wait too.
      while (!this.stopped && this.isWriter && this.processor && !this.processor.isLive) await new Promise((resolve) => setTimeout(resolve, 50));
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
      await this.effects;
      if (this.leadership.kind !== 'leading') throw new Error('Another process holds the read-model lease: rebuild there');
      this.progress = onProgress;
      await this.processor?.stop();
      for (const projection of this.mine) await this.reset(projection);
      await this.runProcessor(this.leadership.epoch);
      return;
    }
    await this.stop();
    for (const projection of this.projections) await this.reset(projection);
    await this.start(onProgress);
  }

  /** The log position the named projections have all applied. */
  appliedBy(names: readonly string[]): number {
    return this.positionOf(names);
  }

  /**
   * Read-your-writes: resolves true once `position` is projected (by the named projections only,
   * when given), false if the timeout, an abort of `signal` or the runner's stop came first. Woken as pages are
   * applied (or, on a follower, as the shared checkpoints move), never by polling the log.
   */
  waitFor(position: number, timeoutMs = 5000, names?: readonly string[], signal?: AbortSignal): Promise<boolean> {
    const unknown = names?.find((name) => !this.projections.some((projection) => projection.name === name));
    if (unknown) throw new Error(`no projection named ${unknown}`);
    return this.waiters.waitFor(position, timeoutMs, names, signal);
  }

  /** Pages run one after another through this chain. */
  private inTurn<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.serial.then(fn);
    this.serial = result.catch(() => undefined);
    return result;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halt.abort();
    this.live = false;
    // Read-your-writes and long polls answer now with what they have, instead of waiting out their timeouts.
    this.waiters.wake();
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = null;
    this.unlisten?.();
    this.unlisten = null;
    this.unshare?.();
    this.unshare = null;
    if (this.followTimer) clearTimeout(this.followTimer);
    this.followTimer = null;
    this.dispatch({ type: 'stop' });
    await this.effects;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const caller of this.catchUps.splice(0)) caller.resolve();
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
    return { stalled, retrying: this.retrying ?? this.thread.retrying };
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

  /** The least position of the named projections; unnamed, of every one but the deferred (which their readers name). */
  private positionOf(names: readonly string[] | undefined): number {
    const chosen = names ? this.projections.filter((p) => names.includes(p.name)) : this.projections.filter((p) => !p.deferred);
    if (chosen.length === 0) return Number.MAX_SAFE_INTEGER;
    let least = Number.MAX_SAFE_INTEGER;
    for (const projection of chosen) least = Math.min(least, this.positions.get(projection.name) ?? 0);
    return least;
  }

  /** Feeds the state machine; its effects are queued behind those before them. */
  private dispatch(input: LeadershipInput): void {
    const { state, effects } = transition(this.leadership, input, this.options.retryPauseMs);
    this.leadership = state;
    for (const effect of effects) this.effects = this.effects.then(() => this.carryOut(effect)).catch((error: unknown) => this.options.onError?.(error, null));
  }

  private async carryOut(effect: LeadershipEffect): Promise<void> {
    switch (effect.type) {
      case 'follow':
        return this.follow();
      case 'stopFollowing': {
        const follower = this.follower;
        this.follower = null;
        await follower?.stop();
        return;
      }
      case 'lead':
        return this.lead(effect.epoch);
      case 'stopApplying':
        return this.stopApplying();
      case 'giveBack':
        return this.options.lease?.giveBack(effect.pauseMs);
      case 'retryAfter':
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          if (!this.stopped) this.dispatch({ type: 'retryDue' });
        }, effect.pauseMs);
        return;
      case 'releaseLease':
        return this.options.lease?.stop();
    }
  }

  /** Notes a failure for `trouble()` and feeds the machine what kind it was. */
  private failed(kind: keyof typeof TROUBLE, error: unknown): void {
    this.options.onError?.(error, null);
    const message = error instanceof Error ? error.message : String(error);
    const attempts = 'attempts' in this.leadership ? this.leadership.attempts + 1 : 1;
    const since = this.troubleOf === kind && this.retrying ? this.retrying.since : new Date().toISOString();
    this.retrying = { error: `${TROUBLE[kind]}${message}`, since, attempts };
    this.troubleOf = kind;
    this.dispatch({ type: error instanceof FencedOutError ? 'fenceRefused' : 'storeError' });
  }

  /** Failures of that kind are over (a leader that gave the lease back and follows is still in trouble). */
  private recovered(kind: keyof typeof TROUBLE): void {
    if (this.troubleOf !== null && this.troubleOf !== kind && kind === 'follow') return;
    this.troubleOf = null;
    this.retrying = null;
  }

  /**
   * Becomes the writer of `epoch`: raises the fence to it, resets projections whose version changed,
   * then catches up and tails the log (not awaited: the machine hears how it went).
   */
  private async lead(epoch: number): Promise<void> {
    if (this.leadership.kind !== 'leading' || this.leadership.epoch !== epoch || this.stopped) return;
    const lease = this.options.lease;
    try {
      // A lease no other process can hold while this one lives (a file lock) needs no fence.
      if (lease && !lease.exclusive) {
        const fenced = new FencedReadStore(this.store, epoch, PROJECTIONS_LEASE, () => this.standing(epoch));
        await fenced.fence();
        this.writer = fenced;
      }
      if (this.options.ownership) this.owned = await this.options.ownership.claim(this.writer, epoch);
      await this.loadCheckpoints();
    } catch (error) {
      if (!lease) return this.fail(error);
      return this.failed('lead', error);
    }
    this.recovered('lead');
    this.dispatch({ type: 'started' });
    void this.runProcessor(epoch).catch(() => undefined);
  }

  /**
   * Where the writer of `epoch` stands (FencedReadStore asks before each write): gone once the lease
   * of that epoch is lost or the machine leads under another; a writer stopping cleanly still stores
   * its checkpoints.
   */
  private standing(epoch: number): 'sure' | 'unsure' | 'gone' {
    const lease = this.options.lease;
    const state = this.leadership;
    if (!lease?.held || lease.epoch !== epoch || state.kind === 'following' || ('epoch' in state && state.epoch !== epoch)) return 'gone';
    return lease.surelyHeld ? 'sure' : 'unsure';
  }

  /**
   * One attempt at catching up, then following the log live. A failure goes to the machine, which
   * tries again after a pause (the store is away) or stands down (fenced out); alone, a failure that
   * is not the store's (the log cannot be read) fails `start`.
   */
  private async runProcessor(epoch: number): Promise<void> {
    const processor = this.newProcessor(epoch);
    try {
      await processor.start(this.progress);
    } catch (error) {
      if (this.processor !== processor) return;
      if (!this.options.lease && !isTransient(error)) return this.fail(error);
      return this.failed('apply', error);
    }
    if (this.processor !== processor || this.stopped) return;
    this.recovered('apply');
    this.dispatch({ type: 'caughtUp' });
    for (const caller of this.catchUps.splice(0)) caller.resolve();
  }

  /** Without a lease, a failure that trying again cannot mend ends the start. */
  private fail(error: unknown): void {
    this.dispatch({ type: 'stop' });
    for (const caller of this.catchUps.splice(0)) caller.reject(error);
  }

  /** Stops the writer and stores its checkpoints; the machine hears whether they were stored. */
  private async stopApplying(): Promise<void> {
    const processor = this.processor;
    this.processor = null;
    try {
      await processor?.stop();
      // What the deferred projections hold is applied before the checkpoints are left for the next writer.
      if (processor) await this.inTurn(() => this.applyLater(processor, true));
      await this.batchWritten();
    } catch (error) {
      this.options.onError?.(error, null);
      this.dispatch({ type: 'checkpointSaveFailed' });
      return;
    }
    this.dispatch({ type: 'steppedDown' });
  }

  private newProcessor(epoch: number): LogProcessor {
    // One per processor: a new leadership, a rebuild or a retried catch-up starts with nothing cached.
    const cache = (this.options.cacheDocuments ?? this.store.kind === 'mongodb') ? new DocumentCache() : null;
    this.cache = cache;
    // Not on SQLite: the models held in memory are the heap store's, and the search projection writes SQLite's otherwise (FTS5).
    const batchEvents = this.store.kind === 'sqlite' ? 0 : (this.options.batchEvents ?? (this.store.kind === 'mongodb' ? 20_000 : 0));
    // Only for a writer of every model: one that writes some reads the others' from the store as another version applies them.
    const whole = this.mine.length === this.projections.length;
    let batch =
      batchEvents > 0 && whole && this.projections.every(({ name }) => (this.positions.get(name) ?? 0) === 0) ? new CatchUpBatch(this.projections) : null;
    const processor: LogProcessor = new LogProcessor(this.events, {
      id: 'projections',
      pageSize: this.options.pageSize,
      checkpointEveryMs: this.options.checkpointEveryMs,
      restartAfterMs: this.options.retryPauseMs,
      // A page of a writer the machine no longer lets write is given up before it writes anything.
      handle: (page, context) =>
        this.inTurn(async () => {
          if (this.processor !== processor || this.leadership.kind !== 'leading' || this.leadership.epoch !== epoch) {
            throw new FencedOutError(PROJECTIONS_LEASE, epoch);
          }
          if (this.writer instanceof FencedReadStore && !this.options.lease?.surelyHeld) await this.writer.fence();
          if (batch && !context.live) {
            await this.applyToBatch(page, batch, context);
            if (batch.events >= batchEvents) batch = await this.flushBatch(batch);
            return this.written;
          }
          // A page writes over what the batches wrote: after it.
          await this.batchWritten();
          // A catch-up page goes after what the deferred projections hold (after a failed live page, say).
          if (!context.live) await this.applyLater(processor);
          // The cache holds while only this processor's live pages write; a failed page may have left any part written.
          if (!context.live) cache?.clear();
          const store = context.live && cache ? new CachedReadStore(this.writer, cache) : this.writer;
          // Live, the deferred projections apply the page after this one's commit, with the pages that come meanwhile.
          const deferred = context.live ? this.deferredMine : [];
          const now = deferred.length > 0 ? this.mine.filter((projection) => !projection.deferred) : this.mine;
          // Live events are announced once committed: a push reads the models they changed.
          const applied = await this.inTransaction(() => this.applyPage(page, context, store, now)).then(
            (done) => {
              // A catch-up page wrote around the cache: what a reaction read meanwhile is not kept.
              if (!context.live) cache?.clear();
              return done;
            },
            (error: unknown) => {
              cache?.clear();
              throw error;
            },
          );
          this.pages += 1;
          this.options.onCommitted?.();
          if (context.live) for (const event of applied) this.announce(event);
          if (deferred.length > 0) this.holdForLater(processor, applied);
          return this.written;
        }),
      endOfCatchUp: () =>
        this.inTurn(async () => {
          await this.applyLater(processor);
          if (batch) await this.flushBatch(batch);
          batch = null;
          await this.batchWritten();
          for (const projection of this.mine) await projection.caughtUp?.(this.writer);
          return this.written;
        }),
      checkpoint: {
        load: async () => this.written,
        save: (): Promise<void> => this.saveCheckpoints().catch((error: unknown) => this.saveAgain(processor, error)),
      },
      // A live page or a checkpoint refused by the fence: a newer writer leads.
      onError: (error) => {
        this.options.onError?.(error, null);
        if (error instanceof FencedOutError && this.processor === processor) this.dispatch({ type: 'fenceRefused' });
      },
    });
    // Events the processor skipped (system records the adapter filters out) count as reached by all.
    processor.onProgress((position) => {
      for (const projection of this.mine) if ((this.positions.get(projection.name) ?? 0) < position) this.positions.set(projection.name, position);
      this.release();
    });
    this.processor = processor;
    this.later = [];
    return processor;
  }

  /**
   * Holds a committed live page's events for the deferred projections, applied `LATER_MS` after the
   * first of them (at once past `LATER_EVENTS`), behind the pages queued by then: under load one
   * transaction of theirs serves the pages of those milliseconds, and the pages, which commands and
   * pushes wait for, do not wait behind theirs at every post.
   */
  private holdForLater(processor: LogProcessor, events: RecordedEvent[]): void {
    const last = this.later.at(-1)?.position ?? 0;
    for (const event of events) if (event.position > last) this.later.push(event);
    if (this.later.length === 0) return;
    const apply = () => {
      this.laterTimer = null;
      void this.inTurn(() => this.applyLater(processor)).catch((error: unknown) => this.options.onError?.(error, null));
    };
    if (this.later.length >= LATER_EVENTS) {
      if (this.laterTimer) clearTimeout(this.laterTimer);
      apply();
    } else this.laterTimer ??= setTimeout(apply, LATER_MS);
  }

  /**
   * The deferred projections apply the events held for them, in a transaction of their own with their
   * checkpoints (a crash in between leaves them behind the others, at a checkpoint they match, and the
   * next start applies the rest). One that fails is tried again after a pause; a writer that no longer
   * leads drops them (the next holds the same checkpoints). At the processor's stop they are applied
   * as its checkpoints are stored (a fenced store refuses both to a writer that lost its lease).
   */
  private async applyLater(processor: LogProcessor, atStop = false): Promise<void> {
    // Another processor's: its stop applies them, a new one starts with none.
    if (this.later.length === 0 || (!atStop && this.processor !== processor)) return;
    if (!atStop && this.leadership.kind !== 'leading') {
      this.later = [];
      return;
    }
    const page = this.later;
    const deferred = this.deferredMine;
    try {
      await this.inTransaction(() =>
        applyToProjections(
          deferred,
          page,
          this.writer,
          this.positions,
          () => false,
          () => undefined,
          this.options.onFailure,
        ),
      );
    } catch (error) {
      this.options.onError?.(error, null);
      if (atStop) this.later = [];
      if (atStop || this.laterTimer || this.processor !== processor) return;
      this.laterTimer = setTimeout(() => {
        this.laterTimer = null;
        void this.inTurn(() => this.applyLater(processor)).catch((failed: unknown) => this.options.onError?.(failed, null));
      }, this.options.retryPauseMs ?? 1000).unref();
      return;
    }
    const reached = this.positionOf(deferred.map(({ name }) => name));
    this.later = this.later.filter((event) => event.position > reached);
    this.processed += page.filter((event) => event.position <= reached).length;
    this.options.onCommitted?.();
    this.release();
  }

  /**
   * A checkpoint that could not be stored is stored again after a pause (while this processor
   * writes): followers wait on it, and the processor itself saves again only when the log moves.
   */
  private saveAgain(processor: LogProcessor, error: unknown): never {
    const again = () =>
      setTimeout(() => {
        if (this.processor !== processor || !processor.isRunning) return;
        this.saveCheckpoints().catch((failed: unknown) => {
          this.options.onError?.(failed, null);
          again();
        });
      }, this.options.retryPauseMs ?? 1000).unref();
    again();
    throw error;
  }

  /**
   * Stops writing and reads the positions the lease holder stores; still tells listeners of live
   * events. A follower that cannot start (the log cannot be read) tries again after a growing pause.
   */
  private async follow(): Promise<void> {
    if (this.leadership.kind !== 'following' || this.stopped) return;
    this.writer = this.store;
    await this.follower?.stop();
    const processor = new LogProcessor(this.events, {
      id: 'projections-follower',
      handle: (page, context) => this.announceWhenShared(page, context),
      // A follower replays no history: it only announces live events.
      checkpoint: { load: () => this.events.headPosition(), save: async () => undefined },
      onError: (error) => this.options.onError?.(error, null),
    });
    this.follower = processor;
    try {
      await processor.start();
    } catch (error) {
      await processor.stop().catch(() => undefined);
      if (this.follower === processor) this.follower = null;
      return this.failed('follow', error);
    }
    this.recovered('follow');
    this.dispatch({ type: 'started' });
  }

  private async announceWhenShared(page: RecordedEvent[], context: HandleContext): Promise<number> {
    let reached = 0;
    for (const event of page) {
      while (!(await this.waitFor(event.position, 1000, undefined, context.signal))) if (context.stopping()) return reached;
      this.announce(event);
      reached = event.position;
    }
    return reached;
  }

  /**
   * A catch-up page of a replay from nothing, applied to the batch's models in memory (no round trip);
   * the store and the positions move when the batch is flushed. What a replay cut short in its first
   * flush left in the store is replaced by the same documents, upserted by id.
   */
  private async applyToBatch(page: RecordedEvent[], batch: CatchUpBatch, context: HandleContext): Promise<void> {
    // The models' indexes, for the queries the projections make of them.
    if (batch.events === 0 && batch.documents === 0) for (const projection of this.projections) await projection.setup?.(batch.models);
    await applyToProjections(this.projections, page, batch.models, batch.positions, context.stopping, () => undefined, this.options.onFailure);
    batch.events += page.length;
    this.pages += 1;
  }

  /**
   * Sends what the batch changed, then the checkpoints (after the models, as a page does), while the
   * next batch is applied: the app folds and the store writes at once. A batch's writes start once the
   * last batch's and its checkpoints landed (a later batch's document never goes before an earlier
   * one's), and a failure of theirs fails this page. Answers the batch to go on with, or null (page by
   * page) once the store holds more of its documents than it keeps.
   */
  private async flushBatch(batch: CatchUpBatch): Promise<CatchUpBatch | null> {
    if (batch.events === 0) return batch;
    await this.batchWritten();
    const write = await batch.take();
    const positions = new Map(batch.positions);
    const events = batch.events;
    batch.events = 0;
    const writer = this.writer;
    const writes = (async () => {
      await write(writer);
      for (const [name, position] of positions) this.positions.set(name, position);
      this.processed += events;
      await this.saveCheckpoints();
      this.release();
    })();
    // Awaited by the next batch, the next page, the end of the catch-up or the stop; not unhandled meanwhile.
    writes.catch(() => undefined);
    this.batchWrites = writes;
    return batch.documents < BATCH_DOCUMENTS ? batch : null;
  }

  /** Waits for the last batch's writes and checkpoints; throws their failure once. */
  private async batchWritten(): Promise<void> {
    const writes = this.batchWrites;
    this.batchWrites = null;
    await writes;
  }

  /** Applies the page to `projections` (every one this process writes); answers the events all of them applied. */
  private async applyPage(page: RecordedEvent[], context: HandleContext, store: ReadStore, projections = this.mine): Promise<RecordedEvent[]> {
    await this.awaitReadModels(page.at(-1)?.position ?? 0, context);
    // Callers waiting on the read models done so far need not wait for the rest of the page's projections;
    // the events every projection has applied are counted before those callers are told.
    let counted = this.written;
    const projected = () => {
      const now = this.written;
      this.processed += page.filter((event) => event.position > counted && event.position <= now).length;
      counted = Math.max(counted, now);
      this.release();
    };
    // Live, the projections apply the page at once (the catch-up goes through them in turn).
    const apply = context.live ? applyTogether : applyToProjections;
    await apply(projections, page, store, this.positions, context.stopping, projected, this.options.onFailure);
    const reached = this.positionOf(projections.map(({ name }) => name));
    projected();
    return page.filter((event) => event.position <= reached);
  }

  /**
   * A projection this process writes may read one that another version of the desk writes (the
   * directory): a page waits until that one has applied it, so that the names it looks up are there.
   */
  private async awaitReadModels(last: number, context: HandleContext): Promise<void> {
    const read = [...new Set(this.mine.flatMap((projection) => projection.reads ?? []))].filter((name) => !this.owned.has(name));
    if (read.length === 0) return;
    while (!(await this.waitFor(last, 1000, read, context.signal)))
      if (context.stopping()) throw new TransientStoreError(CHECKPOINTS, new Error(`stopped waiting for ${read.join(', ')} to apply position ${last}`));
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
    while (!this.stopped && !(await this.waitFor(position, 1000, undefined, this.halt.signal)));
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
    const rebuilt = new Set<string>();
    for (const projection of this.mine) {
      const checkpoint = await checkpoints.findOne({ _id: this.checkpointId(projection.name) });
      const generation = checkpoint?.generation;
      const reason: ResetReason | null = !checkpoint
        ? 'no checkpoint'
        : checkpoint.version !== projection.version
          ? 'new version'
          : (generation !== undefined && generation !== this.generations.get(projection.name)) || projection.reads?.some((name) => rebuilt.has(name))
            ? 'a model it reads was rebuilt'
            : checkpoint.position > head || (checkpoint.position > 0 && typeof checkpoint.log === 'string' && checkpoint.log !== log)
              ? 'another log'
              : null;
      if (reason) rebuilt.add(projection.name);
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
    const _id = this.checkpointId(projection.name);
    const owner = this.options.ownership?.owner;
    const generation = this.generations.get(projection.name);
    await this.writer
      .collection<Checkpoint>(CHECKPOINTS)
      .replaceOne({ _id }, { _id, version: projection.version, position: 0, log: this.logId, generation, ...(owner ? { owner } : {}) }, { upsert: true });
    this.positions.set(projection.name, 0);
    this.stored.set(projection.name, 0);
  }

  /**
   * Checkpoints never move backwards, and never onto another version of the projection. One round trip
   * for all, and none when they are stored as they are: where each page stores them in its transaction,
   * the processor's timer finds nothing new (it wrote them again after every second page under load).
   */
  private async saveCheckpoints(): Promise<void> {
    const written = this.mine;
    if (written.every(({ name }) => this.stored.get(name) === (this.positions.get(name) ?? 0))) return;
    const saving = new Map(this.positions);
    const log = this.written > 0 ? await this.identifyLog() : this.logId;
    const checkpoints = this.writer.collection<Checkpoint>(CHECKPOINTS);
    const positions = new Set(written.map(({ name }) => saving.get(name) ?? 0));
    if (positions.size === 1) {
      // After a page every projection is at its last event: one query finds them all (on SQLite, 15 reads of a row each cost 0.04 ms a post).
      const position = saving.get(written[0]!.name) ?? 0;
      const mine = written.map(({ name, version }) => ({ _id: this.checkpointId(name), version }));
      await checkpoints.updateMany({ $or: mine, position: { $lt: position } }, { $set: { position, log } });
    } else
      await checkpoints.bulkWrite(
        written.map(({ name, version }) => {
          const position = saving.get(name) ?? 0;
          return { updateOne: { filter: { _id: this.checkpointId(name), version, position: { $lt: position } }, update: { $set: { position, log } } } };
        }),
      );
    this.stored = saving;
  }

  /** The log's identity: the id of its first event (read until the log has one). */
  private async identifyLog(): Promise<string | null> {
    this.logId ??= (await this.events.readAll({ maxCount: 1 }))[0]?.id ?? null;
    return this.logId;
  }

  /** A follower's positions (a leader's, of the projections another version writes): the shared checkpoints of the same projection versions. */
  private async readShared(projections = this.projections): Promise<void> {
    const stored = await this.store.collection<Checkpoint>(CHECKPOINTS).find({ _id: { $in: projections.map((p) => this.checkpointId(p.name)) } });
    for (const projection of projections) {
      const checkpoint = stored.find((c) => c._id === this.checkpointId(projection.name));
      if (checkpoint?.version === projection.version && checkpoint.position > (this.positions.get(projection.name) ?? 0)) {
        this.positions.set(projection.name, checkpoint.position);
      }
    }
    this.release();
  }

  /** The positions the writer (this process's projection thread) just committed, taken as the shared checkpoints would be read. */
  private takeShared(positions: Record<string, number>): void {
    if (this.stopped || this.leadership.kind === 'leading') return;
    for (const projection of this.projections) {
      const position = positions[projection.name];
      if (position !== undefined && position > (this.positions.get(projection.name) ?? 0)) this.positions.set(projection.name, position);
    }
    this.release();
  }

  private scheduleFollow(): void {
    if (this.stopped) return;
    this.followTimer = setTimeout(() => {
      // Nobody waiting: the positions are read once a second instead of 20 times (they are only for health then).
      const idle = !this.waiters.pending && Date.now() - this.sharedReadAt < IDLE_SLOWER * (this.options.followEveryMs ?? 50);
      if (!idle) this.sharedReadAt = Date.now();
      const read = idle ? Promise.resolve() : this.leadership.kind === 'leading' ? this.readOthers() : this.readShared();
      void read.catch((error: unknown) => this.options.onError?.(error, null)).finally(() => this.scheduleFollow());
    }, this.options.followEveryMs ?? 50);
  }

  /**
   * A leader that writes only some projections reads the positions of the others, and now and then
   * asks whether their writer (a process of another version of the desk) stopped: it then gives its
   * lease back and takes it again under a new epoch, and its next start claims them (generations.ts).
   */
  private async readOthers(): Promise<void> {
    const others = this.projections.filter(({ name }) => !this.owned.has(name));
    const ownership = this.options.ownership;
    if (others.length === 0 || !ownership) return;
    await this.readShared(others);
    if (Date.now() - this.claimCheckedAt < CLAIM_EVERY_MS) return;
    this.claimCheckedAt = Date.now();
    if (await ownership.claimable(others.map(({ name }) => name))) await this.options.lease?.giveBack(0);
  }

  private release(): void {
    this.waiters.release();
  }
}
