import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import IORedis, { type Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Collection, type Doc, DuplicateKeyError, type ReadStore } from './readstore/port';
import { REDIS_CLOSE_GRACE_MS } from './redis';

/**
 * Single active consumer: of all the processes that run a piece of work which must run exactly
 * once per deployment (the notifications reactor and the Telegram poller, in Redis; applying the log
 * to read models shared in MongoDB, in MongoDB itself), the one holding the lease
 * runs it; the others stand by and take over when the holder stops renewing.
 */
export interface Lease {
  readonly held: boolean;
  /**
   * The lease's epoch: a number that grows at every takeover, read when the lease is taken (0 before).
   * A holder stamps its writes with it, so that a store can refuse the writes of a holder that lost it.
   */
  readonly epoch: number;
  /**
   * Held, and taken or renewed so recently (by this process's monotonic clock, from when the request
   * was sent) that no other process can have taken it since: within half the ttl.
   */
  readonly surelyHeld: boolean;
  /**
   * No other process can hold it while this one lives (a lock of the operating system, `FileLease`):
   * a holder that stalls keeps it, so its writes need no fence.
   */
  readonly exclusive?: boolean;
  /** Called (one change at a time) when this process gains or loses the lease; returns the unsubscribe function. */
  onChange(listener: (held: boolean) => Promise<void> | void): () => void;
  start(): Promise<void>;
  /** Gives the lease up (if held) after telling the listeners. */
  stop(): Promise<void>;
  /**
   * Gives the lease up (if held, after telling the listeners) and does not try to take it again for
   * `pauseMs`, so another process can: a holder that cannot do the work steps aside.
   */
  giveBack(pauseMs: number): Promise<void>;
}

abstract class BaseLease implements Lease {
  private readonly listeners = new Set<(held: boolean) => Promise<void> | void>();
  private changes: Promise<void> = Promise.resolve();
  private holding = false;
  protected taken = 0;

  constructor(protected readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>) {}

  get held(): boolean {
    return this.holding;
  }

  get epoch(): number {
    return this.taken;
  }

  abstract get surelyHeld(): boolean;

  onChange(listener: (held: boolean) => Promise<void> | void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  abstract giveBack(pauseMs: number): Promise<void>;

  /** Moves to `held` and waits until every listener has acted on it. */
  protected change(held: boolean): Promise<void> {
    this.changes = this.changes.then(async () => {
      if (this.holding === held) return;
      this.holding = held;
      for (const listener of this.listeners) {
        try {
          await listener(held);
        } catch (error) {
          this.logger.error({ err: error, held }, 'lease listener failed');
        }
      }
    });
    return this.changes;
  }
}

/** One process, no Redis: the process is the only consumer there is. */
export class LocalLease extends BaseLease {
  private paused: NodeJS.Timeout | null = null;

  get surelyHeld(): boolean {
    return this.held;
  }

  async start(): Promise<void> {
    this.taken += 1;
    await this.change(true);
  }

  async stop(): Promise<void> {
    if (this.paused) clearTimeout(this.paused);
    this.paused = null;
    await this.change(false);
  }

  async giveBack(pauseMs: number): Promise<void> {
    await this.change(false);
    this.paused = setTimeout(() => {
      this.paused = null;
      void this.start();
    }, pauseMs);
  }
}

/**
 * A lease renewed every third of its ttl: `take` when free, `renew` while held. A renewal that finds
 * the lease taken ends the holding at once; one that fails (the store or Redis did not answer) does
 * not, while the last confirmed renewal is within two thirds of the ttl: one blip does not leave the
 * deployment without a holder until the ttl runs out, and two in a row stand the holder down before
 * anyone else can take it. A standby tries to take it every third of the ttl, at most every 500 ms,
 * so a holder that stops cleanly (and releases) is followed within a second. What no lease can stop
 * is a holder that stalls past the ttl and writes on when it resumes: its writes carry the epoch,
 * and the store refuses them once a newer holder raised the fence (readstore/fenced.ts).
 */
/** How often, at most, a standby tries to take a lease: a released one is taken within this. */
const STANDBY_EVERY_MS = 500;

abstract class TimedLease extends BaseLease {
  protected readonly token = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Until this time (ms since the epoch) the lease is not taken again: it was given back. */
  private notBefore = 0;
  /** When (performance.now()) the last take or renewal that succeeded was sent. */
  private confirmedAt = Number.NEGATIVE_INFINITY;

  constructor(
    protected readonly key: string,
    protected readonly ttlMs: number,
    logger: Pick<Logger, 'info' | 'warn' | 'error'>,
  ) {
    super(logger);
  }

  /** Takes the lease if nobody holds it (or the holder's expired): the new epoch when taken, else null. */
  protected abstract take(): Promise<number | null>;
  /** Extends a lease this process still holds; false when it was lost. */
  protected abstract renew(): Promise<boolean>;
  protected abstract release(): Promise<void>;
  protected async open(): Promise<void> {}
  protected close(): void {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
    await this.tick();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    const wasHeld = this.held;
    await this.change(false);
    if (wasHeld) await this.release().catch(() => undefined);
    this.close();
  }

  get surelyHeld(): boolean {
    return this.held && performance.now() - this.confirmedAt < this.ttlMs / 2;
  }

  async giveBack(pauseMs: number): Promise<void> {
    this.notBefore = Date.now() + pauseMs;
    // A renewal under way finishes first, so it cannot take the lease back after the release.
    await this.ticking;
    const wasHeld = this.held;
    await this.change(false);
    if (wasHeld) {
      this.logger.warn({ lease: this.key, pauseMs }, 'lease given back: standing by');
      await this.release().catch((error: unknown) => this.logger.warn({ err: error, lease: this.key }, 'lease not released: it expires'));
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    const every = Math.max(50, Math.floor(this.ttlMs / 3));
    this.timer = setTimeout(
      () => {
        this.ticking = this.tick().finally(() => this.schedule());
      },
      this.held ? every : Math.min(every, STANDBY_EVERY_MS),
    );
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (!this.held && Date.now() < this.notBefore) return;
    let holding: boolean;
    const sent = performance.now();
    try {
      if (this.held) holding = await this.renew();
      else {
        const epoch = await this.take();
        holding = epoch !== null;
        if (epoch !== null) this.taken = epoch;
      }
      if (holding) this.confirmedAt = sent;
    } catch (error) {
      // Not answered is not lost: still the holder's while its last confirmed renewal is recent enough.
      holding = this.held && performance.now() - this.confirmedAt < (this.ttlMs * 2) / 3;
      if (this.held) this.logger.warn({ err: error, lease: this.key }, holding ? 'lease not renewed: trying again' : 'lease not renewed: standing by');
    }
    if (holding !== this.held) this.logger.info({ lease: this.key, held: holding }, holding ? 'lease taken: running' : 'lease lost: standing by');
    await this.change(holding);
  }
}

export interface RedisLeaseOptions {
  url: string;
  key: string;
  /** The lease expires this long after its last renewal (default 10 s): the longest a failover waits. */
  ttlMs?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** Renews only a lease this process still holds: a holder that stalled past the expiry must not steal it back. */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Takes the lease if free and answers the new epoch (a counter beside it that only grows), else nil. */
const TAKE = `if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return redis.call('incr', KEYS[2]) else return nil end`;

/**
 * A lease in Redis: `SET key token NX PX ttl` to take it (and `INCR key:epoch`, in one script), a
 * compare-and-expire script to renew it.
 */
export class RedisLease extends TimedLease {
  private readonly redis: Redis;

  constructor(options: RedisLeaseOptions) {
    super(options.key, options.ttlMs ?? 10_000, options.logger);
    this.redis = new IORedis(options.url, { maxRetriesPerRequest: 1, lazyConnect: true, disconnectTimeout: REDIS_CLOSE_GRACE_MS });
    this.redis.on('error', () => undefined);
  }

  protected override async open(): Promise<void> {
    await this.redis.connect().catch(() => undefined);
  }

  protected override close(): void {
    this.redis.disconnect();
  }

  protected async take(): Promise<number | null> {
    const epoch = await this.redis.eval(TAKE, 2, this.key, `${this.key}:epoch`, this.token, String(this.ttlMs));
    return typeof epoch === 'number' ? epoch : null;
  }

  protected async renew(): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs))) === 1;
  }

  protected async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}

export const LEASES = 'leases';

interface LeaseDoc extends Doc {
  holder: string;
  /**
   * Milliseconds since the epoch, by the clock of the process that last took or renewed it (0 once
   * released): for people and for the retirement of old versions, never for taking the lease.
   */
  expiresAt: number;
  /** Grows at every take, renewal and release: a standby takes the lease once it saw one value for a whole ttl. */
  version?: number;
  /** Grows at every takeover; a release keeps the document (expired) so that it never goes back. */
  epoch?: number;
}

export interface StoreLeaseOptions {
  store: ReadStore;
  key: string;
  ttlMs?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  clock?: () => number;
  /**
   * A counter shared by several leases (the versions of the desk on one MongoDB, projections/generations.ts):
   * each take draws its epoch from it, so that an epoch is above every epoch any of them had before.
   */
  epochs?: Collection<Doc & { value: number }>;
}

/** The counter's one document. */
const EPOCH_COUNTER = 'epoch';

/**
 * A lease kept in the read store it guards (a document of the `leases` collection): the writers of
 * a shared MongoDB read store elect one without Redis. Expiry compares no clocks of two machines: the
 * holder bumps the document's `version` at every renewal, and a standby takes the lease (a conditional
 * update on the version it saw, or an insert the unique `_id` refuses to all but one) once it has seen
 * one version for a whole ttl by its own monotonic clock, or at once when it was released. The holder
 * counts its ttl from when it sent the renewal, so it stops trusting the lease (`surelyHeld`, half the
 * ttl) before any standby can take it, whatever their wall clocks say; only the rates of the clocks
 * matter. The cost: a process that starts beside a lease nobody renews (its holder died) waits a ttl.
 */
export class StoreLease extends TimedLease {
  private readonly clock: () => number;
  /** The lease as this standby last saw it, and when (performance.now()) it first saw that version. */
  private seen: { holder: string; version: number | undefined; since: number } | null = null;

  constructor(private readonly options: StoreLeaseOptions) {
    super(options.key, options.ttlMs ?? 10_000, options.logger);
    this.clock = options.clock ?? Date.now;
  }

  private get leases() {
    return this.options.store.collection<LeaseDoc>(LEASES);
  }

  protected async take(): Promise<number | null> {
    const now = this.clock();
    const current = await this.leases.findOne({ _id: this.key });
    if (current && current.expiresAt !== 0 && !this.unchangedForTtl(current)) return null;
    // Taken only as it was seen: a renewal (or another taker) since makes this match nothing.
    const taken = current
      ? await this.leases.updateOne(
          current.version === undefined ? { _id: this.key, holder: current.holder, expiresAt: current.expiresAt } : { _id: this.key, version: current.version },
          { $set: { holder: this.token, expiresAt: now + this.ttlMs }, $inc: { epoch: 1, version: 1 } },
        )
      : { matched: 0 };
    if (taken.matched === 1) {
      // Read back under this holder's token: if another process took it since (this one stalled), it is not taken.
      const mine = await this.leases.findOne({ _id: this.key, holder: this.token });
      return mine ? this.shared(mine.epoch ?? 1) : null;
    }
    try {
      if (current) return null;
      await this.leases.insertOne({ _id: this.key, holder: this.token, expiresAt: now + this.ttlMs, epoch: 1, version: 1 });
      return await this.shared(1);
    } catch (error) {
      if (error instanceof DuplicateKeyError) return null;
      throw error;
    }
  }

  /**
   * With a shared counter, an epoch above both it and `own` (the lease's own count), noted on the
   * lease (null if another process took it meanwhile). Compare-and-set: no two takes draw one value.
   */
  private async shared(own: number): Promise<number | null> {
    const epochs = this.options.epochs;
    if (!epochs) return own;
    for (;;) {
      const counter = await epochs.findOne({ _id: EPOCH_COUNTER });
      const next = Math.max(counter?.value ?? 0, own) + 1;
      try {
        if (!counter) await epochs.insertOne({ _id: EPOCH_COUNTER, value: next });
        else if ((await epochs.updateOne({ _id: EPOCH_COUNTER, value: counter.value }, { $set: { value: next } })).matched !== 1) continue;
      } catch (error) {
        if (error instanceof DuplicateKeyError) continue;
        throw error;
      }
      const noted = await this.leases.updateOne({ _id: this.key, holder: this.token }, { $set: { epoch: next } });
      return noted.matched === 1 ? next : null;
    }
  }

  /** Whether this standby has seen the lease at this version for a whole ttl (noting it when it is new). */
  private unchangedForTtl(lease: LeaseDoc): boolean {
    const seen = this.seen;
    if (seen && seen.holder === lease.holder && seen.version === lease.version) return performance.now() - seen.since >= this.ttlMs;
    this.seen = { holder: lease.holder, version: lease.version, since: performance.now() };
    return false;
  }

  protected async renew(): Promise<boolean> {
    const renewed = await this.leases.updateOne(
      { _id: this.key, holder: this.token },
      { $set: { expiresAt: this.clock() + this.ttlMs }, $inc: { version: 1 } },
    );
    return renewed.matched === 1;
  }

  /** Expires the lease but keeps its document: the epoch must never start again from 1. */
  protected async release(): Promise<void> {
    await this.leases.updateOne({ _id: this.key, holder: this.token }, { $set: { expiresAt: 0 }, $inc: { version: 1 } });
  }
}

export interface FileLeaseOptions {
  /** The lock file (a SQLite database of one row: the epoch). */
  filename: string;
  key: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** How often a standby tries to take a file lease: a holder that stops or dies is followed within this. */
const FILE_LEASE_TTL_MS = 1_500;

/**
 * A lease for the processes of one machine sharing one DATA_DIR (the embedded read store's file, the
 * in-process workers): held as SQLite's exclusive lock on a file of its own, which the operating system
 * drops the moment the holder's process ends, SIGKILL included, so a standby takes over within
 * half a second and nothing expires. A holder that stalls (SIGSTOP) keeps it: nobody else can write
 * meanwhile, so nothing needs fencing. The epoch is kept in the file and grows at every take.
 */
export class FileLease extends TimedLease {
  readonly exclusive = true;
  private db: Database.Database | null = null;

  constructor(private readonly options: FileLeaseOptions) {
    super(options.key, FILE_LEASE_TTL_MS, options.logger);
  }

  override get surelyHeld(): boolean {
    return this.held;
  }

  protected async take(): Promise<number | null> {
    // No busy wait: a lock another process holds answers SQLITE_BUSY at once.
    const db = new Database(this.options.filename, { timeout: 0 });
    try {
      // In exclusive locking mode a connection keeps the lock of its first write until it closes.
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
      throw error;
    }
    try {
      db.exec('CREATE TABLE IF NOT EXISTS lease (key TEXT PRIMARY KEY, epoch INTEGER NOT NULL)');
      const { epoch } = db
        .prepare('INSERT INTO lease (key, epoch) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET epoch = epoch + 1 RETURNING epoch')
        .get(this.key) as { epoch: number };
      db.exec('COMMIT');
      this.db = db;
      return epoch;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The lock cannot be taken from a living holder. */
  protected async renew(): Promise<boolean> {
    return this.db !== null;
  }

  protected async release(): Promise<void> {
    this.db?.close();
    this.db = null;
  }

  protected override close(): void {
    void this.release();
  }
}
