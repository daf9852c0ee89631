import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../domain/shared/errors';
import type { RateLimiterFactory } from '../../platform/ratelimit';

/**
 * Brute-force protection for sign-in, after OWASP's advice: failures are counted per account and
 * address together (a few, so one attacker is stopped soon), per account from any address (so a
 * spread-out guess is stopped too) and per address over any accounts (so one machine cannot sweep
 * many accounts). A success clears the account-and-address count. Once a count is spent the
 * sign-in is refused with 429 before the password is even checked.
 */
export const LOGIN_LIMITS = {
  accountAndAddress: { points: 5, duration: 15 * 60, blockDuration: 15 * 60 },
  account: { points: 20, duration: 60 * 60, blockDuration: 60 * 60 },
  address: { points: 100, duration: 60 * 60, blockDuration: 60 * 60 },
} as const;

export class LoginThrottle {
  private readonly accountAndAddress: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;
  private readonly address: RateLimiterAbstract;

  constructor(limiters: RateLimiterFactory) {
    this.accountAndAddress = limiters.create({ keyPrefix: 'login-fail-account-ip', ...LOGIN_LIMITS.accountAndAddress });
    this.account = limiters.create({ keyPrefix: 'login-fail-account', ...LOGIN_LIMITS.account });
    this.address = limiters.create({ keyPrefix: 'login-fail-ip', ...LOGIN_LIMITS.address });
  }

  /** Throws 429 while any count for this e-mail or address is spent. */
  async check(email: string, ip: string): Promise<void> {
    const checks: Array<[RateLimiterAbstract, string, number]> = [
      [this.accountAndAddress, `${email}|${ip}`, LOGIN_LIMITS.accountAndAddress.points],
      [this.account, email, LOGIN_LIMITS.account.points],
      [this.address, ip, LOGIN_LIMITS.address.points],
    ];
    let waitMs = 0;
    for (const [limiter, key, points] of checks) {
      const state = await limiter.get(key);
      if (state && state.consumedPoints >= points) waitMs = Math.max(waitMs, state.msBeforeNext);
    }
    if (waitMs > 0) throw tooMany(waitMs);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    await Promise.all([
      spend(this.accountAndAddress, `${email}|${ip}`),
      spend(this.account, email),
      spend(this.address, ip),
    ]);
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    await this.accountAndAddress.delete(`${email}|${ip}`);
  }
}

/** A spent count rejects with its state, not an error: that is the expected way to reach the limit. */
async function spend(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof Error) throw rejection;
  }
}

function tooMany(waitMs: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const minutes = Math.ceil(seconds / 60);
  return new RateLimitedError(
    `Too many failed sign-in attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    seconds,
  );
}
