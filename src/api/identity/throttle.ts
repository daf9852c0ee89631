import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '#contract/errors';
import type { RateLimiterFactory } from '../../platform/ratelimit';

/**
 * Brute-force protection for sign-in, after OWASP's advice, without handing anyone a way to lock
 * others out:
 * - per account and address: a few failures, then that pair waits (429). Checked first, so one
 *   person mistyping behind a shared NAT address stops only themselves;
 * - per address over any accounts: one machine cannot sweep many accounts (429);
 * - per account from any address: never a refusal, since anyone can send wrong passwords for any
 *   e-mail and the owner must still get in. Instead every attempt on that account is slowed down,
 *   longer with each failure, up to a cap: a spread-out guesser gets few guesses per hour while the
 *   owner, from an address with no failures, still signs in after at most the cap.
 * A success clears the account-and-address count.
 */
export const LOGIN_LIMITS = {
  accountAndAddress: { points: 5, duration: 15 * 60, blockDuration: 15 * 60 },
  address: { points: 100, duration: 60 * 60, blockDuration: 60 * 60 },
  /** Failures per account counted over an hour; past `free` of them each attempt waits. */
  account: { duration: 60 * 60, free: 5, firstDelayMs: 250, maxDelayMs: 4000 },
} as const;

/** The wait before an attempt on an account that has failed `failures` times this hour. */
export function accountDelayMs(failures: number): number {
  const { free, firstDelayMs, maxDelayMs } = LOGIN_LIMITS.account;
  if (failures < free) return 0;
  return Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(failures - free, 16));
}

export class LoginThrottle {
  private readonly accountAndAddress: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;
  private readonly address: RateLimiterAbstract;

  constructor(limiters: RateLimiterFactory) {
    this.accountAndAddress = limiters.create({ keyPrefix: 'login-fail-account-ip', ...LOGIN_LIMITS.accountAndAddress });
    // Only counted, never spent: the points are out of reach.
    this.account = limiters.create({ keyPrefix: 'login-fail-account-count', points: Number.MAX_SAFE_INTEGER, duration: LOGIN_LIMITS.account.duration });
    this.address = limiters.create({ keyPrefix: 'login-fail-ip', ...LOGIN_LIMITS.address });
  }

  /**
   * Throws 429 while this account-and-address pair, or this address, has spent its count; otherwise
   * answers how long to wait before checking the password.
   */
  async check(email: string, ip: string): Promise<{ delayMs: number }> {
    const checks: Array<[RateLimiterAbstract, string, number]> = [
      [this.accountAndAddress, `${email}|${ip}`, LOGIN_LIMITS.accountAndAddress.points],
      [this.address, ip, LOGIN_LIMITS.address.points],
    ];
    let waitMs = 0;
    for (const [limiter, key, points] of checks) {
      const state = await limiter.get(key);
      if (state && state.consumedPoints >= points) waitMs = Math.max(waitMs, state.msBeforeNext);
    }
    if (waitMs > 0) throw tooMany(waitMs);
    const failures = (await this.account.get(email))?.consumedPoints ?? 0;
    return { delayMs: accountDelayMs(failures) };
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    await Promise.all([spend(this.accountAndAddress, `${email}|${ip}`), spend(this.account, email), spend(this.address, ip)]);
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
  return new RateLimitedError(`Too many failed sign-in attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, seconds);
}
