import type { Request, RequestHandler, Router } from 'express';
import type { AppDeps } from '../../app/deps';
import { HealthCheck } from '../../app/health';
import { STARTING_RETRY_AFTER_SECONDS } from '../../app/startup';
import { bearerMatches } from '../http/bearer';
import { open } from '../http/scopes';

/**
 * GET /api/health. Everyone gets `{ status }`, worked out without reading the log (a load balancer
 * or the container check may ask every second); an admin's token, the metrics token, or the metrics
 * port get the figures behind it: the projections' lag, failed deliveries, channel backlogs, the
 * read models' problems and whether the job queue answers.
 */
export const healthHandler = (deps: AppDeps, { detailedFor }: { detailedFor: (req: Request) => boolean }): RequestHandler => {
  const health = new HealthCheck(deps);
  return async (req, res) => {
    const body = detailedFor(req) ? await health.detailed() : { status: await health.status() };
    if (body.status === 'starting') res.status(503).setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  };
};

export const healthRoutes = (deps: AppDeps) => (router: Router) => {
  const token = deps.config.METRICS_TOKEN;
  const detailedFor = (req: Request) => req.user?.role === 'admin' || (token !== undefined && bearerMatches(req.get('authorization'), token));
  router.get('/health', open, healthHandler(deps, { detailedFor }));
};
