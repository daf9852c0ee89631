import type { RequestHandler } from 'express';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { API_TOKEN_RATE_LIMIT } from '#contract/apiTokens';
import { MaintenanceError, RateLimitedError, StartingError } from '#contract/errors';
import { loadSystemSettings } from '../../projections/settings';
import type { AppDeps } from '../../app/deps';
import { maintenanceMessage } from '../../app/maintenance';
import { STARTING_RETRY_AFTER_SECONDS, type Startup } from '../../app/startup';

/** Routes that answer whatever the settings say: health checks, and the way back in for admins. */
const ALWAYS_OPEN = new Set(['/health', '/settings/public', '/auth/login', '/auth/refresh', '/auth/logout']);

/**
 * The API rate limit of the system settings, read on every request so a change holds at once:
 * per user when signed in, per address otherwise. Admins are not limited, so a limit set too low
 * can always be raised again. Counters are keyed by the limit itself, so a raised limit starts fresh.
 */
export const rateLimit = (deps: Pick<AppDeps, 'readStore' | 'limiters'>): RequestHandler => {
  const limiters = new Map<string, RateLimiterAbstract>();
  // API tokens have a limit of their own, per token, whatever the owner's role (docs/integrations.md).
  const tokens = deps.limiters.create({ keyPrefix: 'api-token', points: API_TOKEN_RATE_LIMIT.points, duration: API_TOKEN_RATE_LIMIT.durationSeconds });
  return async (req, res, next) => {
    // Before the routes, an API token's user is `req.tokenUser`, never `req.user`: an admin's token is limited.
    if (req.path === '/health' || req.user?.role === 'admin') return next();
    let limiter: RateLimiterAbstract;
    let points: number;
    let subject: string;
    if (req.tokenUser?.token) {
      ({ points } = API_TOKEN_RATE_LIMIT);
      limiter = tokens;
      subject = `token:${req.tokenUser.token.id}`;
    } else {
      const settings = await loadSystemSettings(deps.readStore);
      points = settings.rateLimitMaxRequests;
      const key = `${points}-${settings.rateLimitWindowMs}`;
      const known = limiters.get(key) ?? deps.limiters.create({ keyPrefix: `api-${key}`, points, duration: Math.ceil(settings.rateLimitWindowMs / 1000) });
      limiters.set(key, known);
      limiter = known;
      subject = req.user ? `user:${req.user.id}` : `ip:${req.ip ?? 'unknown'}`;
    }
    res.setHeader('RateLimit-Limit', String(points));
    try {
      const state = await limiter.consume(subject);
      res.setHeader('RateLimit-Remaining', String(state.remainingPoints));
      res.setHeader('RateLimit-Reset', String(Math.ceil(state.msBeforeNext / 1000)));
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const seconds = Math.max(1, Math.ceil((rejection as { msBeforeNext: number }).msBeforeNext / 1000));
      const minutes = Math.ceil(seconds / 60);
      res.setHeader('RateLimit-Remaining', '0');
      throw new RateLimitedError(`Too many requests. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, seconds);
    }
    next();
  };
};

/** Maintenance mode: 503 for everyone but admins, sign-in and health, from the moment it is switched on. */
export const maintenance =
  (deps: Pick<AppDeps, 'readStore'>): RequestHandler =>
  async (req, _res, next) => {
    if (ALWAYS_OPEN.has(req.path) || (req.user ?? req.tokenUser)?.role === 'admin') return next();
    const settings = await loadSystemSettings(deps.readStore);
    if (settings.maintenanceMode) throw new MaintenanceError(maintenanceMessage(settings.systemName));
    next();
  };

/** Cross-origin callers are allowed only from the origins of the system settings (same-origin needs none). */
export const corsOrigin =
  (deps: Pick<AppDeps, 'readStore'>) =>
  (origin: string | undefined, callback: (error: Error | null, allow?: boolean) => void): void => {
    if (!origin) return callback(null, false);
    loadSystemSettings(deps.readStore).then(
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
