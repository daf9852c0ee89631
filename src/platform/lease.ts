import { randomUUID } from 'node:crypto';
import IORedis, { type Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Doc, DuplicateKeyError, type ReadStore } from './readstore/port';

/**
 * Single active consumer: of all the processes that run a piece of work which must run exactly
 * once per deployment (the notifications reactor and the Telegram poller, in Redis; applying the log
 * to read models shared in MongoDB, in MongoDB itself), the one holding the lease
 * runs it; the others stand by and take over when the holder stops renewing.
 */
export interface Lease {
  readonly held: boolean;
  /** Called (one change at a time) when this process gains or loses the lease; returns the unsubscribe function. */
  onChange(listener: (held: boolean) => Promise<void> | void): () => void;
  start(): Promise<void>;
  /** Gives the lease up (if held) after telling the listeners. */
  stop(): Promise<void>;
}

abstract class BaseLease implements Lease {
  private readonly listeners = new Set<(held: boolean) => Promise<void> | void>();
  private changes: Promise<void> = Promise.resolve();
  private holding = false;

  constructor(protected readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>) {}

  get held(): boolean {
    return this.holding;
  }

  onChange(listener: (held: boolean) => Promise<void> | void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;

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
  async start(): Promise<void> {
    await this.change(true);
  }

  async stop(): Promise<void> {
    await this.change(false);
  }
}

/**
 * A lease renewed every third of its ttl: `take` when free, `renew` while held. A holder whose
 * renewal fails or finds the lease taken tells its listeners at once, and they stop their work. What
 * this cannot stop is a holder that stalls (a long pause, a frozen event loop, a slow store) past the
 * ttl: it learns it lost the lease only at its next renewal, so another process may already hold it
 * while writes the ex-holder had in hand still land. Nothing here fences them (no epoch is carried with
 * a write). What keeps most late writes harmless is the writer's own guard: read-model writes and
 * checkpoints are conditional on the revision or log position they apply, and jobs have ids derived
 * from their event; a late reset of a projection whose version changed has no such guard.
 */
abstract class TimedLease extends BaseLease {
  protected readonly token = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    protected readonly key: string,
    protected readonly ttlMs: number,
    logger: Pick<Logger, 'info' | 'warn' | 'error'>,
  ) {
    super(logger);
  }

  /** Takes the lease if nobody holds it (or the holder's expired); true when taken. */
  protected abstract take(): Promise<boolean>;
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

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.ticking = this.tick().finally(() => this.schedule());
      },
      Math.max(50, Math.floor(this.ttlMs / 3)),
    );
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let holding: boolean;
    try {
      holding = this.held ? await this.renew() : await this.take();
    } catch (error) {
      if (this.held) this.logger.warn({ err: error, lease: this.key }, 'lease not renewed: standing by');
      holding = false;
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

/** A lease in Redis: `SET key token NX PX ttl` to take it, a compare-and-expire script to renew it. */
export class RedisLease extends TimedLease {
  private readonly redis: Redis;

  constructor(options: RedisLeaseOptions) {
    super(options.key, options.ttlMs ?? 10_000, options.logger);
    this.redis = new IORedis(options.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    this.redis.on('error', () => undefined);
  }

  protected override async open(): Promise<void> {
    await this.redis.connect().catch(() => undefined);
  }

  protected override close(): void {
    this.redis.disconnect();
  }

  protected async take(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
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
  /** Milliseconds since the epoch, by the clock of the process that last took or renewed it. */
  expiresAt: number;
}

export interface StoreLeaseOptions {
  store: ReadStore;
  key: string;
  ttlMs?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  clock?: () => number;
}

/**
 * A lease kept in the read store it guards (a document of the `leases` collection): the writers of
 * a shared MongoDB read store elect one without Redis. Taking it is one conditional update (free or
 * expired), or an insert the unique `_id` refuses to all but one process; expiry compares the
 * processes' wall clocks, so their skew must stay well under the ttl (NTP keeps it in milliseconds).
 */
export class StoreLease extends TimedLease {
  private readonly clock: () => number;

  constructor(private readonly options: StoreLeaseOptions) {
    super(options.key, options.ttlMs ?? 10_000, options.logger);
    this.clock = options.clock ?? Date.now;
  }

  private get leases() {
    return this.options.store.collection<LeaseDoc>(LEASES);
  }

  protected async take(): Promise<boolean> {
    const now = this.clock();
    const taken = await this.leases.updateOne({ _id: this.key, expiresAt: { $lt: now } }, { $set: { holder: this.token, expiresAt: now + this.ttlMs } });
    if (taken.matched === 1) return true;
    try {
      await this.leases.insertOne({ _id: this.key, holder: this.token, expiresAt: now + this.ttlMs });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  protected async renew(): Promise<boolean> {
    const renewed = await this.leases.updateOne({ _id: this.key, holder: this.token }, { $set: { expiresAt: this.clock() + this.ttlMs } });
    return renewed.matched === 1;
  }

  protected async release(): Promise<void> {
    await this.leases.deleteOne({ _id: this.key, holder: this.token });
  }
}
