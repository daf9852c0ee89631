import IORedis, { type Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { REDIS_CLOSE_GRACE_MS } from './redis';

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
  /** `nowMs` is the caller's clock (a server's injected clock in tests); the wall clock by default. */
  take(key: string, gapMs: number, maxWaitMs: number, nowMs?: number): Promise<Turn>;
}

/** An allowance of `points` calls per `windowMs`, spent as a token bucket (see `spendAllowance`). */
export interface Allowance {
  points: number;
  windowMs: number;
}

type Spent = { allowed: true; remaining: number; fullInMs: number } | { allowed: false; retryAfterMs: number };

/**
 * Spends one call of an allowance, as a token bucket that holds `points` calls and refills one every
 * `windowMs / points` (the generic cell rate algorithm, on the spacing's atomic turns): a full bucket
 * lets `points` calls through at once, and a caller who keeps going is held to the allowance's average
 * rate, refused only for the time one call takes to come back, never for a whole window.
 */
export async function spendAllowance(spacing: Spacing, key: string, { points, windowMs }: Allowance, nowMs: number): Promise<Spent> {
  // Whole milliseconds, so the bucket holds exactly `points` (and the stored times stay integers).
  const gapMs = Math.max(1, Math.floor(windowMs / points));
  const turn = await spacing.take(key, gapMs, gapMs * points, nowMs);
  if (!turn.granted) return { allowed: false, retryAfterMs: turn.retryAfterMs };
  return { allowed: true, remaining: points - Math.ceil(turn.waitMs / gapMs), fullInMs: turn.waitMs };
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
  const connect = () => (client ??= new IORedis(url, { maxRetriesPerRequest: 3, disconnectTimeout: REDIS_CLOSE_GRACE_MS }));
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
    async take(key, gapMs, maxWaitMs, now = Date.now()) {
      if (lastStart.size > MEMORY_SPACING_KEYS) for (const [stale, at] of lastStart) if (at < now) lastStart.delete(stale);
      const previous = forgetIfAhead(lastStart.get(key) ?? 0, now, maxWaitMs);
      const start = Math.max(now, previous) + gapMs;
      if (start - now > maxWaitMs) return { granted: false, retryAfterMs: start - now - maxWaitMs };
      lastStart.set(key, start);
      return { granted: true, waitMs: start - now };
    },
  };
}

/**
 * A turn can start at most `maxWaitMs` ahead of the clock that gave it; one further ahead was given by a
 * clock that has since gone back (a stepped clock, a test's), and is forgotten rather than held against
 * every later caller for as long as the step.
 */
function forgetIfAhead(previous: number, now: number, maxWaitMs: number): number {
  return previous - now > maxWaitMs ? 0 : previous;
}

/** One script, so that reading the previous start and writing the new one cannot interleave with another process (and forgets as `forgetIfAhead` does). */
const TAKE_TURN = `
local now = tonumber(ARGV[1])
local gap = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
if previous - now > maxWait then previous = 0 end
local start = math.max(now, previous) + gap
if start - now > maxWait then return {0, start - now - maxWait} end
redis.call('SET', KEYS[1], start, 'PX', start - now + 1000)
return {1, start - now}
`;

const REDIS_DOWN = new Set(['reconnecting', 'close', 'end']);

function redisSpacing(client: Redis, keyPrefix: string): Spacing {
  // While Redis is down, turns are kept in this process, as the limiters' counts are: every API call
  // passes through a spacing, so failing or waiting with Redis would stop the whole API.
  const insurance = memorySpacing();
  return {
    async take(key, gapMs, maxWaitMs, nowMs = Date.now()) {
      // The callers' clocks stand in for one clock: API processes are expected to run NTP-synced, and a
      // skew of a few milliseconds only moves a turn by as much.
      // Once it is known to be down, not even the wait for a reconnection (its commands queue meanwhile).
      if (REDIS_DOWN.has(client.status)) return insurance.take(key, gapMs, maxWaitMs, nowMs);
      let answer: [number, number];
      try {
        answer = (await client.eval(TAKE_TURN, 1, `${keyPrefix}:${key}`, nowMs, gapMs, maxWaitMs)) as [number, number];
      } catch {
        return insurance.take(key, gapMs, maxWaitMs, nowMs);
      }
      const [granted, ms] = answer;
      return granted === 1 ? { granted: true, waitMs: ms } : { granted: false, retryAfterMs: ms };
    },
  };
}
