import { randomUUID } from 'node:crypto';
import { RateLimitedError } from '#contract/errors';
import { type RateLimiterFactory, memoryRateLimiters, redisRateLimiters } from '../../platform/ratelimit';
import { LOGIN_LIMITS, LoginThrottle } from './throttle';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.each<[string, () => RateLimiterFactory]>([
  ['memory', () => memoryRateLimiters()],
  // Real Redis, so several API processes share one count; a fresh namespace keeps runs apart.
  ['redis', () => redisRateLimiters(REDIS_URL, `test-${randomUUID()}`)],
])('Sign-in throttle on %s', (_kind, make) => {
  let limiters: RateLimiterFactory;
  let throttle: LoginThrottle;
  beforeEach(() => {
    limiters = make();
    throttle = new LoginThrottle(limiters);
  });
  afterEach(() => limiters.close());

  it('when one account fails from one address up to the limit, then the next attempt is refused with a wait', async () => {
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.points; i++) {
      await expect(throttle.check('a@example.com', '10.0.0.1')).resolves.toEqual({ delayMs: 0 });
      await throttle.recordFailure('a@example.com', '10.0.0.1');
    }
    const refused = await throttle.check('a@example.com', '10.0.0.1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBeGreaterThan(14 * 60);
    await expect(throttle.check('b@example.com', '10.0.0.1')).resolves.toEqual({ delayMs: 0 });
    // Another address is not refused; it only waits, as the account has failed five times.
    await expect(throttle.check('a@example.com', '10.0.0.2')).resolves.toEqual({ delayMs: LOGIN_LIMITS.account.firstDelayMs });
  });

  it('when a sign-in succeeds, then the failures of that account and address are forgotten', async () => {
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.points - 1; i++) await throttle.recordFailure('c@example.com', '10.0.0.3');
    await throttle.recordSuccess('c@example.com', '10.0.0.3');
    await throttle.recordFailure('c@example.com', '10.0.0.3');
    await expect(throttle.check('c@example.com', '10.0.0.3')).resolves.toEqual({ delayMs: LOGIN_LIMITS.account.firstDelayMs });
  });

  it('when one account is guessed from many addresses, then attempts on it wait longer and longer up to a cap, and are never refused', async () => {
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      delays.push((await throttle.check('d@example.com', '10.9.9.9')).delayMs);
      await throttle.recordFailure('d@example.com', `10.1.0.${i}`);
    }
    await expect(throttle.check('d@example.com', '10.9.9.9')).resolves.toEqual({ delayMs: LOGIN_LIMITS.account.maxDelayMs });
    expect(delays.slice(0, LOGIN_LIMITS.account.free)).toEqual(Array(LOGIN_LIMITS.account.free).fill(0));
    expect(delays.slice(LOGIN_LIMITS.account.free, LOGIN_LIMITS.account.free + 3)).toEqual([250, 500, 1000]);
    expect(delays.every((delay, i) => i === 0 || delay >= delays[i - 1]!)).toBe(true);
    expect(Math.max(...delays)).toBe(LOGIN_LIMITS.account.maxDelayMs);
    await expect(throttle.check('other@example.com', '10.9.9.9')).resolves.toEqual({ delayMs: 0 });
  });

  it('when one address sweeps many accounts, then the address is refused', async () => {
    for (let i = 0; i < LOGIN_LIMITS.address.points; i++) await throttle.recordFailure(`user${i}@example.com`, '10.2.0.1');
    await expect(throttle.check('fresh@example.com', '10.2.0.1')).rejects.toBeInstanceOf(RateLimitedError);
  });
});
