import express, { type RequestHandler } from 'express';
import { NotFoundError, UnauthorizedError } from '#contract/errors';
import type { AppDeps } from '../../app/deps';
import { healthHandler } from '../health/routes';
import { bearerMatches } from '../http/bearer';
import { errorHandler } from '../http/errors';

/** Refuses a request without METRICS_TOKEN as its bearer token, when that is set. */
const metricsTokenAsked =
  (deps: Pick<AppDeps, 'config'>): RequestHandler =>
  (req, res, next) => {
    const token = deps.config.METRICS_TOKEN;
    if (token !== undefined && !bearerMatches(req.get('authorization'), token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedError('Send the metrics token as "Authorization: Bearer <token>"', 'INVALID_TOKEN');
    }
    next();
  };

/** The Prometheus text of the process's registry, behind METRICS_TOKEN when that is set. */
const serveMetrics =
  (deps: Pick<AppDeps, 'metrics' | 'config'>): RequestHandler =>
  async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await deps.metrics.registry.metrics());
  };

const closed: RequestHandler = () => {
  throw new NotFoundError('Metrics endpoint');
};

/**
 * GET /metrics on the app's port: served only with METRICS_TOKEN (and then only to its bearer).
 * Without a token it answers 404, whether or not METRICS_PORT serves the figures elsewhere.
 */
export const metricsRoute = (deps: AppDeps) => (app: express.Express) => {
  app.get('/metrics', ...(deps.config.METRICS_TOKEN !== undefined ? [metricsTokenAsked(deps), serveMetrics(deps)] : [closed]));
};

/** The METRICS_PORT listener's app: GET /metrics and the detailed GET /api/health, and nothing else. */
export function createMetricsApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsTokenAsked(deps), serveMetrics(deps));
  app.get('/api/health', metricsTokenAsked(deps), healthHandler(deps, { detailedFor: () => true }));
  app.use(closed);
  app.use(errorHandler(deps.logger));
  return app;
}
