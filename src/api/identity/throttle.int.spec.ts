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

  const fail = async (email: string, ip: string) => throttle.settle(await throttle.admit(email, ip), 'failed');
  const refusalOr = <T>(promise: Promise<T>) => promise.catch((error: unknown) => error);

  it('when one account fails from one address up to the limit, then a wrong password from that pair is answered with a wait', async () => {
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.points; i++) await fail('a@example.com', '10.0.0.1');
    const attempt = await throttle.admit('a@example.com', '10.0.0.1');
    expect(attempt.refusal).toBeInstanceOf(RateLimitedError);
    expect(attempt.refusal!.retryAfterSeconds).toBeGreaterThan(14 * 60);
    await throttle.settle(attempt, 'abandoned');
    expect((await throttle.admit('b@example.com', '10.0.0.1')).refusal).toBeNull();
    // Another address has no refusal; it only waits its turn, as the account has failed five times.
    const elsewhere = await throttle.admit('a@example.com', '10.0.0.2');
    expect(elsewhere).toMatchObject({ refusal: null, waitMs: expect.any(Number) });
    expect(elsewhere.waitMs).toBeGreaterThanOrEqual(LOGIN_LIMITS.account.firstDelayMs - 5);
  });

  it('when a sign-in succeeds, then the failures of that account and address are forgotten and the attempt is given back', async () => {
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.points - 1; i++) await fail('c@example.com', '10.0.0.3');
    await throttle.settle(await throttle.admit('c@example.com', '10.0.0.3'), 'succeeded');
    await fail('c@example.com', '10.0.0.3');
    // Five failures on the account in all, the success not among them: the next one is the first to wait.
    const next = await throttle.admit('c@example.com', '10.0.0.3');
    expect(next.refusal).toBeNull();
    expect(next.waitMs).toBe(LOGIN_LIMITS.account.firstDelayMs);
  });

  it('when attempts on one account come at once, then each is counted before the others are checked and they take turns up to the cap', async () => {
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => refusalOr(throttle.admit('d@example.com', `10.1.0.${i}`))));
    const admitted = outcomes.filter((outcome) => !(outcome instanceof RateLimitedError)) as Array<{ waitMs: number }>;
    // The free attempts at once, then turns 250, 500, 1000 and 2000 ms apart; the next would wait past the cap.
    expect(admitted).toHaveLength(LOGIN_LIMITS.account.free + 4);
    const waits = admitted.map((attempt) => attempt.waitMs).sort((a, b) => a - b);
    expect(waits.slice(-4).map((wait) => Math.round(wait / 250) * 250)).toEqual([250, 750, 1750, 3750]);
    expect(Math.max(...waits)).toBeLessThanOrEqual(LOGIN_LIMITS.account.maxDelayMs);
  });

  it('when one address sweeps many accounts, then the address is refused, except for an account that signed in from it before', async () => {
    await throttle.settle(await throttle.admit('regular@example.com', '10.2.0.1'), 'succeeded');
    for (let i = 0; i < LOGIN_LIMITS.address.points; i++) await fail(`user${i}@example.com`, '10.2.0.1');
    await expect(throttle.admit('fresh@example.com', '10.2.0.1')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(throttle.admit('regular@example.com', '10.2.0.1')).resolves.toMatchObject({ refusal: null, waitMs: 0 });
  });
});
