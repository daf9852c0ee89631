import IORedis, { type Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

export interface LimiterOptions {
  /** Distinguishes one limiter's counters from another's. */
  keyPrefix: string;
  points: number;
  /** Seconds over which `points` may be spent. */
  duration: number;
  /** Seconds a key stays refused once it has spent its points. */
  blockDuration?: number;
}

/**
 * Makes rate limiters on the store the deployment has: Redis when REDIS_URL is set (so several API
 * processes share one count), otherwise memory in this process.
 */
export interface RateLimiterFactory {
  readonly kind: 'memory' | 'redis';
  create(options: LimiterOptions): RateLimiterAbstract;
  close(): Promise<void>;
}

export function memoryRateLimiters(): RateLimiterFactory {
  return { kind: 'memory', create: (options) => new RateLimiterMemory(options), close: async () => undefined };
}

/** The Redis connection opens with the first limiter, so processes that never limit never connect. */
export function redisRateLimiters(url: string, namespace = 'desk'): RateLimiterFactory {
  let client: Redis | null = null;
  return {
    kind: 'redis',
    create(options) {
      client ??= new IORedis(url, { maxRetriesPerRequest: 3 });
      return new RateLimiterRedis({ storeClient: client, ...options, keyPrefix: `${namespace}:${options.keyPrefix}` });
    },
    async close() {
      client?.disconnect();
    },
  };
}
