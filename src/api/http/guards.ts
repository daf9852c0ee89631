import type { Request, RequestHandler, Response } from 'express';
import { API_TOKEN_RATE_LIMIT } from '#contract/apiTokens';
import { MaintenanceError, RateLimitedError, StartingError } from '#contract/errors';
import { requestCaches } from '../../app/caches';
import type { AppDeps } from '../../app/deps';
import { maintenanceMessage } from '../../app/maintenance';
import { STARTING_RETRY_AFTER_SECONDS, type Startup } from '../../app/startup';
import { spendAllowance } from '../../platform/ratelimit';

/** Routes that answer whatever the settings say: health checks, and the way back in for admins. */
const ALWAYS_OPEN = new Set(['/health', '/settings/public', '/auth/login', '/auth/refresh', '/auth/logout']);

/** Reads may be this many times the setting's number of calls: a page load is many reads for one thing a person does. */
const READS_PER_CHANGE = 10;

/**
 * An agent's changes may be this many times the setting: answering is their work, and a ticket taken,
 * answered, noted and resolved is four changes, where a customer's message is one. 200 tickets an hour
 * at four changes each fits with room; a script posting in a loop as an agent is still stopped.
 */
const CHANGES_PER_AGENT = 4;

/** Calls that only look, whatever their method: marking a ticket's messages read is part of viewing it. */
const VIEWING = /^\/tickets\/[^/]+\/messages\/read$/;

/** Whether a call is counted among the changes (the setting's own count) or among the reads. */
const isChange = (req: Request) => !['GET', 'HEAD', 'OPTIONS'].includes(req.method) && !VIEWING.test(req.path);

/**
 * The API rate limit of the system settings, checked on every request so a change holds at once (the
 * process's settings cache drops them when the change is applied, src/app/caches.ts), per
 * user when signed in, per address otherwise (docs/settings.md, "Rate limit"). It stops floods, not
 * work: the setting counts the calls that change something (each can open a ticket, send mail, notify
 * everyone), and reads have an allowance ten times as large of their own, so reloading a page never
 * uses up the allowance for answering. Both are token buckets: the full allowance at once, then its
 * average rate, and a refusal lasts until one call comes back, not for a whole window.
 * Admins are not limited, so a limit set too low can always be raised again. Counters are keyed by the
 * limit itself, so a changed limit starts fresh.
 */
export const rateLimit = (deps: Pick<AppDeps, 'readStore' | 'projections' | 'metrics' | 'limiters' | 'clock'>): RequestHandler => {
  const buckets = deps.limiters.createSpacing('api');
  // API tokens have a limit of their own, per token, whatever the owner's role (docs/integrations.md).
  const tokens = deps.limiters.create({ keyPrefix: 'api-token', points: API_TOKEN_RATE_LIMIT.points, duration: API_TOKEN_RATE_LIMIT.durationSeconds });
  return async (req, res, next) => {
    // Before the routes, an API token's user is `req.tokenUser`, never `req.user`: an admin's token is limited.
    if (req.path === '/health' || req.user?.role === 'admin') return next();
    if (req.tokenUser?.token) {
      res.setHeader('RateLimit-Limit', String(API_TOKEN_RATE_LIMIT.points));
      try {
        const state = await tokens.consume(`token:${req.tokenUser.token.id}`);
        setRemaining(res, state.remainingPoints, state.msBeforeNext);
      } catch (rejection) {
        if (rejection instanceof Error) throw rejection;
        throw tooManyRequests(res, (rejection as { msBeforeNext: number }).msBeforeNext);
      }
      return next();
    }
    const settings = await requestCaches(deps).settings();
    const change = isChange(req);
    const per = change ? (req.user?.role === 'agent' ? CHANGES_PER_AGENT : 1) : READS_PER_CHANGE;
    const allowance = { points: settings.rateLimitMaxRequests * per, windowMs: settings.rateLimitWindowMs };
    const subject = req.user ? `user:${req.user.id}` : `ip:${req.ip ?? 'unknown'}`;
    const key = `${change ? 'changes' : 'reads'}:${allowance.points}-${allowance.windowMs}:${subject}`;
    res.setHeader('RateLimit-Limit', String(allowance.points));
    const spent = await spendAllowance(buckets, key, allowance, deps.clock().getTime());
    if (!spent.allowed) throw tooManyRequests(res, spent.retryAfterMs);
    setRemaining(res, spent.remaining, spent.fullInMs);
    next();
  };
};

function setRemaining(res: Response, remaining: number, resetMs: number): void {
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(Math.ceil(resetMs / 1000)));
}

function tooManyRequests(res: Response, retryAfterMs: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const minutes = Math.ceil(seconds / 60);
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  res.setHeader('RateLimit-Remaining', '0');
  return new RateLimitedError(`Too many requests. Please try again in ${wait}.`, seconds);
}

/** Maintenance mode: 503 for everyone but admins, sign-in and health, from the moment it is switched on. */
export const maintenance =
  (deps: Pick<AppDeps, 'readStore' | 'projections' | 'metrics'>): RequestHandler =>
  async (req, _res, next) => {
    if (ALWAYS_OPEN.has(req.path) || (req.user ?? req.tokenUser)?.role === 'admin') return next();
    const settings = await requestCaches(deps).settings();
    if (settings.maintenanceMode) throw new MaintenanceError(maintenanceMessage(settings.systemName));
    next();
  };

/** Cross-origin callers are allowed only from the origins of the system settings (same-origin needs none). */
export const corsOrigin =
  (deps: Pick<AppDeps, 'readStore' | 'projections' | 'metrics'>) =>
  (origin: string | undefined, callback: (error: Error | null, allow?: boolean) => void): void => {
    if (!origin) return callback(null, false);
    requestCaches(deps)
      .settings()
      .then(
        (settings) => callback(null, settings.corsOrigins.includes(origin)),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
  };

/** Until ready, every API route but the health check answers 503 with Retry-After: it would read stale or empty views. */
export const whileStarting =
  (startup: Startup): RequestHandler =>
  (req, _res, next) => {
    if (startup.ready || req.path === '/health') return next();
    throw new StartingError(STARTING_RETRY_AFTER_SECONDS);
  };
