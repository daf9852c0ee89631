import { randomUUID } from 'node:crypto';
import { freePort } from '../../test/support/services';
import { type RateLimiterFactory, type Spacing, memoryRateLimiters, redisRateLimiters, spendAllowance } from './ratelimit';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const THREE_A_MINUTE = { points: 3, windowMs: 60_000 };
const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);

describe.each<[string, () => RateLimiterFactory]>([
  ['memory', () => memoryRateLimiters()],
  // Real Redis, where API processes share the buckets; a fresh namespace keeps runs apart.
  ['redis', () => redisRateLimiters(REDIS_URL, `test-${randomUUID()}`)],
])('An allowance spent as a token bucket on %s', (_kind, make) => {
  let limiters: RateLimiterFactory;
  let buckets: Spacing;
  beforeEach(() => {
    limiters = make();
    buckets = limiters.createSpacing('bucket');
  });
  afterEach(() => limiters.close());

  const spendAt = (at: number, key = 'caller') => spendAllowance(buckets, key, THREE_A_MINUTE, at);

  it('when it is full, then the whole allowance passes at once, and the next call is refused until one call comes back', async () => {
    expect([await spendAt(T0), await spendAt(T0), await spendAt(T0)]).toEqual([
      { allowed: true, remaining: 2, fullInMs: 20_000 },
      { allowed: true, remaining: 1, fullInMs: 40_000 },
      { allowed: true, remaining: 0, fullInMs: 60_000 },
    ]);
    expect(await spendAt(T0 + 5_000)).toEqual({ allowed: false, retryAfterMs: 15_000 });
    expect(await spendAt(T0 + 20_000)).toEqual({ allowed: true, remaining: 0, fullInMs: 60_000 });
    expect(await spendAt(T0 + 20_000, 'someone else')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('when a caller keeps to the average rate, then it is never refused', async () => {
    for (let i = 0; i < 30; i++) expect(await spendAt(T0 + i * 20_000)).toMatchObject({ allowed: true });
  });

  it('when the clock goes back by more than the window, then the turns its later time gave are forgotten', async () => {
    for (let i = 0; i < 3; i++) await spendAt(T0 + 7 * 24 * 60 * 60_000);
    expect(await spendAt(T0)).toEqual({ allowed: true, remaining: 2, fullInMs: 20_000 });
  });
});

describe('An allowance on a Redis that cannot be reached', () => {
  it('when Redis does not answer, then the bucket is kept in this process instead of failing every call', async () => {
    const limiters = redisRateLimiters(`redis://127.0.0.1:${await freePort()}`, `test-${randomUUID()}`);
    try {
      const buckets = limiters.createSpacing('bucket');
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await spendAllowance(buckets, 'caller', THREE_A_MINUTE, T0));
      expect(answers.map((answer) => answer.allowed)).toEqual([true, true, true, false]);
    } finally {
      await limiters.close();
    }
  });
});
