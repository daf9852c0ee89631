/**
 * Typed errors carry their HTTP meaning (docs/architecture.md habit 3); one middleware turns them into the
 * error body of docs/contract.md. The domain throws them; routes never catch them.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** Extra top-level fields of the error body (for example `existingTicket`). */
  readonly extra: Record<string, unknown> = {};
}

export class ValidationError extends DomainError {
  readonly status = 400;
  readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export class UnauthorizedError extends DomainError {
  readonly status = 401;
  constructor(
    message = 'Authentication required',
    readonly code = 'UNAUTHORIZED',
  ) {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  constructor(
    message = 'You are not allowed to do this',
    readonly code = 'FORBIDDEN',
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
  constructor(what = 'Resource') {
    super(`${what} not found`);
  }
}

export class ConflictError extends DomainError {
  readonly status = 409;
  constructor(
    message: string,
    readonly code = 'CONFLICT',
    extra: Record<string, unknown> = {},
  ) {
    super(message);
    Object.assign(this.extra, extra);
  }
}

/** Something that existed and is no longer usable: a password link used, replaced or expired (docs/identity.md). */
export class GoneError extends DomainError {
  readonly status = 410;
  constructor(
    message: string,
    readonly code = 'GONE',
  ) {
    super(message);
  }
}

/** A request that is well-formed but cannot be taken as it is (an idempotency key reused for another request). */
export class UnprocessableError extends DomainError {
  readonly status = 422;
  constructor(
    message: string,
    readonly code = 'UNPROCESSABLE',
  ) {
    super(message);
  }
}

/**
 * Part of the stored history a request needs can no longer be read: the event log's file was altered
 * or damaged. Nothing was changed; `npm run audit:verify` names where the log breaks.
 */
export class DamagedHistoryError extends ConflictError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message, 'HISTORY_DAMAGED', extra);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class UnsupportedTypeError extends DomainError {
  readonly status = 415;
  readonly code = 'UNSUPPORTED_TYPE';
}

/** A request body in a format the endpoint does not read (a file's type is UnsupportedTypeError). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** A JSON body whose bytes are not UTF-8: refused rather than decoded into replacement characters and stored. */
export class InvalidEncodingError extends DomainError {
  readonly status = 400;
  readonly code = 'INVALID_ENCODING';
  constructor() {
    super('The request body is not valid UTF-8 text');
  }
}

export class RateLimitedError extends DomainError {
  readonly status = 429;
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** An outside service (the Telegram Bot API) refused or could not be reached: the request itself was fine. */
export class UpstreamError extends DomainError {
  readonly status = 502;
  readonly code = 'UPSTREAM_ERROR';
}

/** The job queue (Redis) did not answer in time: nothing was queued, and the caller may try again. */
export class QueueUnavailableError extends DomainError {
  readonly status = 503;
  readonly code = 'QUEUE_UNAVAILABLE';
}

export class MaintenanceError extends DomainError {
  readonly status = 503;
  readonly code = 'MAINTENANCE';
}

/**
 * A change was stored (at `position` of the log), but the read models did not show it within the
 * wait: rather than a stale view or a 404 for what was just written, the answer is 202 with the
 * position and Retry-After. Reading it again shortly shows it; a retry with the same
 * Idempotency-Key answers it without doing it twice.
 */
export class PendingViewError extends DomainError {
  readonly status = 202;
  readonly code = 'ACCEPTED_PENDING';
  readonly retryAfterSeconds = 1;
  constructor(position: number) {
    super('Saved. The desk is catching up and will show it in a moment.');
    Object.assign(this.extra, { position });
  }
}

/** The process is up but its read models are still catching up with the log: ask again shortly. */
export class StartingError extends DomainError {
  readonly status = 503;
  readonly code = 'STARTING';
  constructor(readonly retryAfterSeconds: number) {
    super('The desk is starting and catching up with its history. Please try again in a few seconds.');
  }
}
