import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { DamagedHistoryError, DomainError, PendingViewError, RateLimitedError, StartingError, ValidationError } from '#contract/errors';
import { CorruptEventError, WrongExpectedVersionError } from '../../platform/eventstore/port';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

const DAMAGED_FOR_CALLER =
  'Part of the stored history this needs is damaged and cannot be read, so nothing was changed. An administrator can find where with npm run audit:verify.';

/** The one place typed errors become the error body of docs/contract.md. Unknown errors are logged, never leaked. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (thrown: unknown, _req, res, _next) => {
    let error = thrown;
    if (error instanceof CorruptEventError) {
      // The caller may be anyone: the event's name and place go to the log, not into the answer.
      logger.error({ err: error }, 'a stored event cannot be read');
      error = new DamagedHistoryError(DAMAGED_FOR_CALLER);
    }
    if (error instanceof DomainError) {
      if (error instanceof RateLimitedError || error instanceof StartingError || error instanceof PendingViewError)
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
      res.status(error.status).json({
        error: error.message,
        code: error.code,
        ...(error instanceof ValidationError && error.details.length > 0 ? { details: error.details } : {}),
        ...error.extra,
      });
      return;
    }
    if (error instanceof WrongExpectedVersionError) {
      res.status(409).json({ error: 'Someone else changed this at the same time; please try again', code: 'CONCURRENT_CHANGE' });
      return;
    }
    const bodyError = error as BodyParserError;
    if (bodyError?.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'The request body is not valid JSON', code: 'INVALID_JSON' });
      return;
    }
    if (bodyError?.type === 'charset.unsupported') {
      res.status(415).json({ error: 'The request body must be UTF-8 JSON (charset=utf-8)', code: 'UNSUPPORTED_CHARSET' });
      return;
    }
    if (bodyError?.type === 'entity.too.large') {
      res.status(413).json({ error: 'The request body is too large', code: 'PAYLOAD_TOO_LARGE' });
      return;
    }
    if (bodyError?.status && bodyError.status >= 400 && bodyError.status < 500) {
      res.status(bodyError.status).json({ error: bodyError.message, code: 'BAD_REQUEST' });
      return;
    }
    logger.error({ err: error }, 'unhandled error');
    res.status(500).json({ error: 'Something went wrong on our side', code: 'INTERNAL' });
  };

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `No API route for ${req.method} ${req.path}`, code: 'NOT_FOUND' });
};
