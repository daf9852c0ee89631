import { isUtf8 } from 'node:buffer';
import type { Request, RequestHandler } from 'express';
import { InvalidEncodingError, UnsupportedMediaTypeError } from '#contract/errors';

/** The calls that carry files (docs/contract.md: multipart only where files travel); they take JSON too. */
const MULTIPART_ROUTES = [/^\/tickets\/?$/, /^\/tickets\/[^/]+\/messages\/?$/];

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Every body is JSON, or multipart where files travel. Anything else is refused with 415 before
 * any route runs: the JSON parser skips a body of another type, so a route would otherwise see no
 * fields at all and an update of optional fields would answer 200 having changed nothing.
 */
export const requireKnownBody: RequestHandler = (req, _res, next) => {
  if (!hasBody(req) || req.is('application/json')) return next();
  const multipart = req.method === 'POST' && MULTIPART_ROUTES.some((route) => route.test(req.path));
  if (multipart && req.is('multipart/form-data')) return next();
  throw new UnsupportedMediaTypeError(
    multipart ? 'Send the body as JSON (Content-Type: application/json) or as multipart/form-data' : 'Send the body as JSON (Content-Type: application/json)',
  );
};

/**
 * `express.json`'s check of the raw body (its `verify`): bytes that are not UTF-8 (`caf\xe9`) would
 * otherwise be decoded into U+FFFD replacement characters and stored as if the caller had sent them.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new InvalidEncodingError();
}
