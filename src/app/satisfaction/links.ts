import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ForbiddenError } from '#contract/errors';
import { RATING_WINDOW_MS } from '../../domain/satisfaction/satisfaction';
import { TOKEN_ISSUER } from '../identity/tokens';

/**
 * The e-mailed rating links carry a token of their own: signed with a key derived from the JWT
 * secret for this purpose only, with its own audience, so neither an access token nor a link token
 * passes for the other. It names one ticket, one episode and its customer, and expires when the
 * episode's rating window does.
 */
const LINK_AUDIENCE = 'support-desk-satisfaction-link';

const linkKey = (secret: string) => createHmac('sha256', secret).update('satisfaction-link').digest();

export interface LinkClaims {
  ticketId: string;
  episode: number;
  customerId: string;
}

export function signRatingLink(secret: string, claims: LinkClaims, resolvedAt: Date): string {
  const expiresAt = Math.floor((resolvedAt.getTime() + RATING_WINDOW_MS) / 1000);
  return jwt.sign({ tid: claims.ticketId, ep: claims.episode, exp: expiresAt }, linkKey(secret), {
    algorithm: 'HS256',
    subject: claims.customerId,
    issuer: TOKEN_ISSUER,
    audience: LINK_AUDIENCE,
  });
}

/** The link's claims, if it was made for this ticket and has not expired; 403 with the reason otherwise. */
export function verifyRatingLink(secret: string, token: string, ticketId: string, now: Date): LinkClaims {
  let payload: jwt.JwtPayload;
  try {
    payload = jwt.verify(token, linkKey(secret), {
      algorithms: ['HS256'],
      issuer: TOKEN_ISSUER,
      audience: LINK_AUDIENCE,
      clockTimestamp: Math.floor(now.getTime() / 1000),
    }) as jwt.JwtPayload;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new ForbiddenError('This rating link has expired', 'LINK_EXPIRED');
    throw new ForbiddenError('This rating link is not valid', 'LINK_INVALID');
  }
  if (payload.tid !== ticketId || typeof payload.ep !== 'number' || typeof payload.sub !== 'string')
    throw new ForbiddenError('This rating link is not valid for this ticket', 'LINK_INVALID');
  return { ticketId, episode: payload.ep, customerId: payload.sub };
}

export const ratingLink = (baseUrl: string, ticketId: string, token: string, score?: number) =>
  `${baseUrl}/rate/${encodeURIComponent(ticketId)}?t=${encodeURIComponent(token)}${score === undefined ? '' : `&score=${score}`}`;
