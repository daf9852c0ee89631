import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '#contract/errors';
import type { RateLimiterFactory, Spacing } from '../../platform/ratelimit';

/**
 * Brute-force protection for sign-in, after OWASP's advice, without handing anyone a way to lock
 * the owner out (docs/identity.md, "Brute force"):
 * - per account from any address: every attempt is counted before its password is checked, and the
 *   attempts on one account take turns, spaced longer with each failure up to a cap. Parallel guesses
 *   from many addresses therefore wait in one line instead of all passing at once; a guess that would
 *   wait past the cap is refused (429) without a check;
 * - per account and address: a few failures, then a wrong password from that pair answers 429. The right
 *   password still gets in (after its turn), so strangers behind a shared address cannot lock the
 *   owner out there;
 * - per address over any accounts: one machine cannot sweep many accounts (429 before the check),
 *   except for an account that has signed in from that address before.
 * A success clears the account-and-address count and gives the attempt back to the account.
 */
export const LOGIN_LIMITS = {
  accountAndAddress: { points: 5, duration: 15 * 60, blockDuration: 15 * 60 },
  address: { points: 100, duration: 60 * 60, blockDuration: 60 * 60 },
  /** Attempts per account counted over an hour; past `free` of them each one waits its turn. */
  account: { duration: 60 * 60, free: 5, firstDelayMs: 250, maxDelayMs: 4000 },
  /** How long an address stays known for an account after a sign-in from it (the memory store's timers stop at 24 days). */
  knownAddress: { duration: 14 * 24 * 60 * 60 },
} as const;

/** The gap before an attempt on an account that has had `failures` unsuccessful attempts this hour. */
function accountDelayMs(failures: number): number {
  const { free, firstDelayMs, maxDelayMs } = LOGIN_LIMITS.account;
  if (failures < free) return 0;
  return Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(failures - free, 16));
}

/** One admitted sign-in attempt: wait `waitMs`, check the password, then settle it with the outcome. */
export interface LoginAttempt {
  readonly email: string;
  readonly ip: string;
  readonly waitMs: number;
  /** Set when this account and address have failed too often: the answer to a wrong password then. */
  readonly refusal: RateLimitedError | null;
}

export type LoginOutcome = 'succeeded' | 'failed' | 'abandoned';

export class LoginThrottle {
  private readonly accountAndAddress: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;
  private readonly address: RateLimiterAbstract;
  private readonly knownAddress: RateLimiterAbstract;
  private readonly turns: Spacing;

  constructor(limiters: RateLimiterFactory) {
    this.accountAndAddress = limiters.create({ keyPrefix: 'login-fail-account-ip', ...LOGIN_LIMITS.accountAndAddress });
    // Only counted, never spent: the points are out of reach.
    this.account = limiters.create({ keyPrefix: 'login-attempt-account', points: Number.MAX_SAFE_INTEGER, duration: LOGIN_LIMITS.account.duration });
    this.address = limiters.create({ keyPrefix: 'login-fail-ip', ...LOGIN_LIMITS.address });
    this.knownAddress = limiters.create({ keyPrefix: 'login-known-account-ip', points: 1, duration: LOGIN_LIMITS.knownAddress.duration });
    this.turns = limiters.createSpacing('login-turn-account');
  }

  /**
   * Counts the attempt on its account before anything is checked, so parallel attempts each see the
   * ones before them. Throws 429 while the address has swept too many accounts (unless this account
   * has signed in from it), or when the account's line is longer than the cap.
   */
  async admit(email: string, ip: string): Promise<LoginAttempt> {
    const pair = `${email}|${ip}`;
    const [pairState, addressState, known] = await Promise.all([this.accountAndAddress.get(pair), this.address.get(ip), this.knownAddress.get(pair)]);
    if (!known && spent(addressState, LOGIN_LIMITS.address.points)) throw tooMany(addressState!.msBeforeNext);
    const refusal = spent(pairState, LOGIN_LIMITS.accountAndAddress.points) ? tooMany(pairState!.msBeforeNext) : null;
    const attempts = (await this.account.consume(email)).consumedPoints;
    const gapMs = accountDelayMs(attempts - 1);
    // The owner at an address they signed in from before waits only the gap, not behind a crowd of
    // guessers elsewhere; a pair that has failed too often queues like a stranger.
    if (known && !refusal) return { email, ip, waitMs: gapMs, refusal };
    const turn = await this.turns.take(email, gapMs, LOGIN_LIMITS.account.maxDelayMs);
    if (!turn.granted) {
      await this.account.reward(email);
      const seconds = Math.max(1, Math.ceil(turn.retryAfterMs / 1000));
      throw new RateLimitedError(
        `Too many sign-in attempts on this account right now. Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        seconds,
      );
    }
    return { email, ip, waitMs: turn.waitMs, refusal };
  }

  /** A failure also counts for the pair and the address; any other outcome gives the attempt back. */
  async settle(attempt: LoginAttempt, outcome: LoginOutcome): Promise<void> {
    const pair = `${attempt.email}|${attempt.ip}`;
    if (outcome === 'failed') {
      await Promise.all([spend(this.accountAndAddress, pair), spend(this.address, attempt.ip)]);
      return;
    }
    await this.account.reward(attempt.email);
    if (outcome === 'succeeded') {
      await Promise.all([this.accountAndAddress.delete(pair), this.knownAddress.set(pair, 1, LOGIN_LIMITS.knownAddress.duration)]);
    }
  }
}

function spent(state: { consumedPoints: number } | null, points: number): boolean {
  return state !== null && state.consumedPoints >= points;
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
