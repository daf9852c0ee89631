import { randomUUID } from 'node:crypto';
import IORedis, { type Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Single active consumer: of all the processes that run a piece of work which must run exactly
 * once per deployment (the notifications reactor, the Telegram poller), the one holding the lease
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

/**
 * A lease in Redis: `SET key token NX PX ttl` to take it, a compare-and-expire script to renew it
 * every third of the ttl. A holder that cannot renew (Redis gone, the process stalled) stops its
 * work at once, so two holders never overlap for longer than the renewal that failed.
 */
export class RedisLease extends BaseLease {
  private readonly token = randomUUID();
  private readonly ttlMs: number;
  private readonly redis: Redis;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: RedisLeaseOptions) {
    super(options.logger);
    this.ttlMs = options.ttlMs ?? 10_000;
    this.redis = new IORedis(options.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    this.redis.on('error', () => undefined);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.redis.connect().catch(() => undefined);
    await this.tick();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    const wasHeld = this.held;
    await this.change(false);
    if (wasHeld) await this.redis.eval(RELEASE, 1, this.options.key, this.token).catch(() => undefined);
    this.redis.disconnect();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule());
    }, Math.max(50, Math.floor(this.ttlMs / 3)));
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let holding: boolean;
    try {
      holding = this.held
        ? (await this.redis.eval(RENEW, 1, this.options.key, this.token, String(this.ttlMs))) === 1
        : (await this.redis.set(this.options.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
    } catch (error) {
      if (this.held) this.options.logger.warn({ err: error, lease: this.options.key }, 'lease not renewed: standing by');
      holding = false;
    }
    if (holding !== this.held) this.options.logger.info({ lease: this.options.key, held: holding }, holding ? 'lease taken: running' : 'lease lost: standing by');
    await this.change(holding);
  }
}
