import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../../app/deps';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `X-Request-Id` when sane, else a fresh UUID; answered in `X-Request-Id`. */
    requestId: string;
  }
}

/** A caller's request id is taken as is only when short and plain, so it cannot forge log lines or blow up labels. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

const requestIdOf = (header: string | undefined): string => (header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID());

/**
 * The route pattern of a request (`/api/tickets/:id`), never its raw URL: the label of the latency
 * histogram and of the request log. The router that matched records its mount point (`markMount`),
 * since an error answered outside it no longer shows it on the request.
 */
function routeOf(req: Request, mount: string | undefined): string {
  if (req.route) return typeof req.route.path === 'string' ? `${mount ?? ''}${req.route.path}` : 'web app';
  // Through a router but no route of it: an unknown path (never its raw URL, which could be anything).
  return mount !== undefined ? 'unmatched' : 'static';
}

/** Placed first in a mounted router: remembers where it is mounted, for `routeOf`. */
export const markMount: RequestHandler = (req, res, next) => {
  res.locals.mount = req.baseUrl;
  next();
};

/**
 * First of every request: gives it its id, answers the id in `X-Request-Id`, and when the answer is
 * finished logs one line (method, route pattern, status, duration, request id, user id) and records
 * its latency. Never logs a body, a header value, a token or a query string.
 */
export const trackRequests =
  (deps: Pick<AppDeps, 'logger' | 'metrics'>): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    req.requestId = requestIdOf(req.get('x-request-id'));
    res.setHeader('X-Request-Id', req.requestId);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, res.locals.mount as string | undefined);
      const caller = req.user ?? req.tokenUser;
      // Closed before the answer was sent: the caller went away (nginx's 499).
      const status = res.writableFinished ? res.statusCode : 499;
      deps.metrics.httpDuration.observe({ method: req.method, route, status: String(status) }, seconds);
      deps.logger.info(
        { reqId: req.requestId, method: req.method, route, status, ms: Math.round(seconds * 10_000) / 10, ...(caller ? { userId: caller.id } : {}) },
        'request',
      );
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
