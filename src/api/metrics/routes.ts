import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { NotFoundError, UnauthorizedError } from '#contract/errors';
import type { AppDeps } from '../../app/deps';
import { errorHandler } from '../http/errors';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the Authorization header is `Bearer <token>`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const [scheme, given, ...rest] = (header ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !given || rest.length > 0) return false;
  return timingSafeEqual(digest(given), digest(token));
}

/** The Prometheus text of the process's registry, behind METRICS_TOKEN when that is set. */
const serveMetrics =
  (deps: Pick<AppDeps, 'metrics' | 'config'>): RequestHandler =>
  async (req, res) => {
    const token = deps.config.METRICS_TOKEN;
    if (token !== undefined && !bearerMatches(req.get('authorization'), token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedError('Send the metrics token as "Authorization: Bearer <token>"', 'INVALID_TOKEN');
    }
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
  app.get('/metrics', deps.config.METRICS_TOKEN !== undefined ? serveMetrics(deps) : closed);
};

/** The METRICS_PORT listener's app: GET /metrics and nothing else. */
export function createMetricsApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', serveMetrics(deps));
  app.use(closed);
  app.use(errorHandler(deps.logger));
  return app;
}
