import IORedis, { type Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

interface LimiterOptions {
  /** Distinguishes one limiter's counters from another's. */
  keyPrefix: string;
  points: number;
  /** Seconds over which `points` may be spent. */
  duration: number;
  /** Seconds a key stays refused once it has spent its points. */
  blockDuration?: number;
}

/** A turn in a queue per key: when it may start, or how long until one could be given. */
type Turn = { granted: true; waitMs: number } | { granted: false; retryAfterMs: number };

/**
 * Spaces attempts on one key apart in time, atomically, so that parallel callers cannot all start at
 * once: each turn starts `gapMs` after the later of now and the previous turn's start. A turn that would
 * start more than `maxWaitMs` from now is not given (and changes nothing), so a flood cannot build an
 * endless queue for the others.
 */
export interface Spacing {
  take(key: string, gapMs: number, maxWaitMs: number): Promise<Turn>;
}

/**
 * Makes rate limiters on the store the deployment has: Redis when REDIS_URL is set (so several API
 * processes share one count), otherwise memory in this process.
 */
export interface RateLimiterFactory {
  readonly kind: 'memory' | 'redis';
  create(options: LimiterOptions): RateLimiterAbstract;
  createSpacing(keyPrefix: string): Spacing;
  close(): Promise<void>;
}

export function memoryRateLimiters(): RateLimiterFactory {
  return { kind: 'memory', create: (options) => new RateLimiterMemory(options), createSpacing: () => memorySpacing(), close: async () => undefined };
}

/** The Redis connection opens with the first limiter, so processes that never limit never connect. */
export function redisRateLimiters(url: string, namespace = 'desk'): RateLimiterFactory {
  let client: Redis | null = null;
  const connect = () => (client ??= new IORedis(url, { maxRetriesPerRequest: 3 }));
  return {
    kind: 'redis',
    create(options) {
      // While Redis is down, requests are counted in this process instead of failing or waiting for it.
      return new RateLimiterRedis({
        storeClient: connect(),
        ...options,
        keyPrefix: `${namespace}:${options.keyPrefix}`,
        insuranceLimiter: new RateLimiterMemory(options),
      });
    },
    createSpacing(keyPrefix) {
      return redisSpacing(connect(), `${namespace}:${keyPrefix}`);
    },
    async close() {
      client?.disconnect();
    },
  };
}

/** Past this many keys, the memory spacing forgets the turns that have already started. */
const MEMORY_SPACING_KEYS = 10_000;

function memorySpacing(): Spacing {
  const lastStart = new Map<string, number>();
  return {
    async take(key, gapMs, maxWaitMs) {
      const now = Date.now();
      if (lastStart.size > MEMORY_SPACING_KEYS) for (const [stale, at] of lastStart) if (at < now) lastStart.delete(stale);
      const previous = lastStart.get(key) ?? 0;
      const start = Math.max(now, previous) + gapMs;
      if (start - now > maxWaitMs) return { granted: false, retryAfterMs: start - now - maxWaitMs };
      lastStart.set(key, start);
      return { granted: true, waitMs: start - now };
    },
  };
}

/** One script, so that reading the previous start and writing the new one cannot interleave with another process. */
const TAKE_TURN = `
local now = tonumber(ARGV[1])
local gap = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(now, previous) + gap
if start - now > maxWait then return {0, start - now - maxWait} end
redis.call('SET', KEYS[1], start, 'PX', start - now + 1000)
return {1, start - now}
`;

function redisSpacing(client: Redis, keyPrefix: string): Spacing {
  return {
    async take(key, gapMs, maxWaitMs) {
      // The callers' clocks stand in for one clock: API processes are expected to run NTP-synced, and a
      // skew of a few milliseconds only moves a turn by as much.
      const [granted, ms] = (await client.eval(TAKE_TURN, 1, `${keyPrefix}:${key}`, Date.now(), gapMs, maxWaitMs)) as [number, number];
      return granted === 1 ? { granted: true, waitMs: ms } : { granted: false, retryAfterMs: ms };
    },
  };
}
