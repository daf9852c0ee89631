import { createHmac, createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ForbiddenError } from '#contract/errors';
import { RATING_WINDOW_MS } from '../../domain/satisfaction/satisfaction';
import type { AppDeps } from '../deps';
import { TOKEN_ISSUER } from '../identity/tokens';

/**
 * The e-mailed rating links carry a token of their own, with its own audience, so neither an access
 * token nor a link token passes for the other. It names one ticket, one episode and its customer,
 * and expires when the episode's rating window does. It is signed with the current `rating-links`
 * key of the keyring, named in its header (`kid`), so a new key can be introduced while the links
 * already sent still verify with theirs (docs/satisfaction.md).
 */
const LINK_AUDIENCE = 'support-desk-satisfaction-link';

/** The key of the links sent before they named one: derived from JWT_SECRET for this purpose only. */
const legacyLinkKey = (jwtSecret: string) => createHmac('sha256', jwtSecret).update('satisfaction-link').digest();

/** The key a link names, the derived one for a link that names none; null for a kid the keyring does not hold. */
function keyOf(deps: Pick<AppDeps, 'keyring' | 'jwtSecret'>, token: string): Buffer | null {
  const header = jwt.decode(token, { complete: true })?.header;
  if (!header) return null;
  if (header.kid === undefined) return legacyLinkKey(deps.jwtSecret);
  return typeof header.kid === 'string' ? deps.keyring.find('rating-links', header.kid) : null;
}

export interface LinkClaims {
  ticketId: string;
  episode: number;
  customerId: string;
}

export function signRatingLink(deps: Pick<AppDeps, 'keyring'>, claims: LinkClaims, resolvedAt: Date): string {
  const expiresAt = Math.floor((resolvedAt.getTime() + RATING_WINDOW_MS) / 1000);
  const { kid, key } = deps.keyring.current('rating-links');
  // A key object, not the buffer: jsonwebtoken tries a buffer as a PEM key first (0.5 ms a call, tokens.ts).
  return jwt.sign({ tid: claims.ticketId, ep: claims.episode, exp: expiresAt }, createSecretKey(key), {
    algorithm: 'HS256',
    keyid: kid,
    subject: claims.customerId,
    issuer: TOKEN_ISSUER,
    audience: LINK_AUDIENCE,
  });
}

/** The link's claims, if it was made for this ticket and has not expired; 403 with the reason otherwise. */
export function verifyRatingLink(deps: Pick<AppDeps, 'keyring' | 'jwtSecret'>, token: string, ticketId: string, now: Date): LinkClaims {
  const key = keyOf(deps, token);
  if (!key) throw new ForbiddenError('This rating link is not valid', 'LINK_INVALID');
  let payload: jwt.JwtPayload;
  try {
    payload = jwt.verify(token, createSecretKey(key), {
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
