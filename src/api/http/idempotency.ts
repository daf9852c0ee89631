import type { Request } from 'express';
import { ValidationError } from '#contract/errors';
import type { Attachment } from '#contract/tickets';
import { type IdempotencyKey, fingerprintOf } from '../../app/idempotency';
import { currentUser } from './auth';

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Visible ASCII, as the IETF draft for the header and the payment APIs that use it accept. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key` with the caller and a fingerprint of what it asks (method, route,
 * the parsed body and, for uploads, each file's field, name, type and size); null without the header.
 */
export function idempotencyKeyOf(req: Request, body: unknown, files: Array<{ fieldName: string; attachment: Attachment }> = []): IdempotencyKey | null {
  const key = req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) return null;
  if (!KEY.test(key)) {
    const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
    throw new ValidationError(message, [{ path: IDEMPOTENCY_HEADER, message }]);
  }
  const described = files.map(({ fieldName, attachment: { originalName, mimeType, size } }) => ({ fieldName, originalName, mimeType, size }));
  const route = `${req.baseUrl}${req.route?.path ?? req.path}`;
  return { caller: currentUser(req).id, key, fingerprint: fingerprintOf(req.method, route, { body, files: described }) };
}
