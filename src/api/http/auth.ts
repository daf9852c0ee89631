import type { KeyObject } from 'node:crypto';
import type { RequestHandler, Request } from 'express';
import jwt from 'jsonwebtoken';
import type { Role } from '#contract/users';
import { API_TOKEN_PREFIX, type ApiTokenScope } from '#contract/apiTokens';
import { ForbiddenError, UnauthorizedError } from '#contract/errors';
import type { CommandContext } from '../../platform/commands';
import { requestCaches } from '../../app/caches';
import type { AppDeps } from '../../app/deps';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, secretKey } from '../../app/identity/tokens';
import { authenticateApiToken, tokenNotAllowed } from '../../app/apiTokens/service';

export interface AuthUser {
  id: string;
  role: Role;
  username: string;
  firstName: string;
  lastName: string;
  /** The sign-in (refresh-token family) this access token belongs to; `token:<id>` for an API token. */
  sessionId: string;
  /** Set when the call came with an API token: what it may do besides the role (docs/integrations.md). */
  token?: { id: string; label: string; scopes: ApiTokenScope[] };
}

declare module 'express-serve-static-core' {
  interface Request {
    user?: AuthUser;
    /**
     * The user of a valid API token, until the route's declaration (src/api/http/scopes.ts) lets
     * the token act there and makes it `user`.
     */
    tokenUser?: AuthUser;
    /** Why the presented token was refused, or is not (yet) let in; public routes ignore it, guarded routes answer with it. */
    authError?: UnauthorizedError | ForbiddenError;
  }
}

/**
 * Tokens whose signature was checked, with their claims, per secret. A client sends the same token
 * with every call for its 15 minutes: the HMAC and the decoding are done once. Only a token that
 * verified is kept (the key is the whole token, signature included); its expiry is still checked on
 * every use. The memory is cleared when full.
 */
const TOKENS_KEPT = 10_000;
const verifiedTokens = new WeakMap<KeyObject, Map<string, jwt.JwtPayload>>();

function verifiedClaims(secret: string, token: string): jwt.JwtPayload {
  const key = secretKey(secret);
  let known = verifiedTokens.get(key);
  if (!known) verifiedTokens.set(key, (known = new Map()));
  const cached = known.get(token);
  if (cached && typeof cached.exp === 'number' && cached.exp * 1000 > Date.now()) return cached;
  try {
    const decoded = jwt.verify(token, key, { algorithms: ['HS256'], issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE });
    if (typeof decoded === 'string') throw new Error('unexpected token payload');
    if (known.size >= TOKENS_KEPT) known.clear();
    known.set(token, decoded);
    return decoded;
  } catch (error) {
    known.delete(token);
    const expired = error instanceof jwt.TokenExpiredError;
    throw new UnauthorizedError(expired ? 'Your session has expired' : 'Invalid token', expired ? 'TOKEN_EXPIRED' : 'INVALID_TOKEN');
  }
}

/**
 * Verifies an access token and checks its user and session on every call, so that a deactivated or
 * deleted user, a logout or a revoked family is refused at once, and a role change holds from the
 * next call. Both come from the process's request caches, which drop them as soon as an event about
 * them is applied (src/app/caches.ts).
 */
export async function authenticateToken(deps: Pick<AppDeps, 'jwtSecret' | 'readStore' | 'projections' | 'metrics'>, token: string): Promise<AuthUser> {
  const claims = verifiedClaims(deps.jwtSecret, token);
  if (claims.typ !== 'access' || typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string')
    throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  return sessionUser(deps, claims.sub, claims.sid);
}

/**
 * The user of a session that is still on: the check behind every token, also made again for a live
 * socket whose token has run out, so a socket ends with its session exactly as HTTP access does.
 */
export async function sessionUser(deps: Pick<AppDeps, 'readStore' | 'projections' | 'metrics'>, userId: string, sessionId: string): Promise<AuthUser> {
  const caches = requestCaches(deps);
  const [user, session] = await Promise.all([caches.user(userId), caches.session(sessionId)]);
  if (!user || !session || session.userId !== user._id) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  if (!user.isActive) throw new UnauthorizedError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  if (session.endedAt !== null || session.startedPosition <= user.sessionsValidAfter)
    throw new UnauthorizedError('Your session has ended; please sign in again', 'SESSION_ENDED');
  return { id: user._id, role: user.role, username: user.username, firstName: user.firstName, lastName: user.lastName, sessionId: session._id };
}

/** The user an API token acts for, with the token's label and scopes (checked against its stream on every call). */
async function apiTokenUser(deps: AppDeps, presented: string): Promise<AuthUser> {
  const { tokenId, label, scopes, user } = await authenticateApiToken(deps, presented);
  const { _id: id, role, username, firstName, lastName } = user;
  return { id, role, username, firstName, lastName, sessionId: `token:${tokenId}`, token: { id: tokenId, label, scopes } };
}

/**
 * The user an Authorization header stands for, checked now: the check of every call, made again by
 * a long poll before it answers (a token revoked or a session ended while it waited is refused).
 */
export async function userOfBearer(deps: AppDeps, header: string): Promise<AuthUser> {
  const [scheme, token, ...rest] = header.trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0)
    throw new UnauthorizedError('The Authorization header must be "Bearer <token>"', 'INVALID_TOKEN');
  return token.startsWith(API_TOKEN_PREFIX) ? apiTokenUser(deps, token) : authenticateToken(deps, token);
}

/**
 * Reads the bearer token when one is sent. A refused token does not fail the request here: public
 * routes (sign-in, refresh, health) must still work for a client holding an expired token. An API
 * token's user is held apart until the route declares what tokens may do there (deny by default).
 */
export const authenticate =
  (deps: AppDeps): RequestHandler =>
  async (req, _res, next) => {
    const header = req.headers.authorization;
    if (header !== undefined) {
      try {
        const user = await userOfBearer(deps, header);
        if (!user.token) req.user = user;
        else {
          req.tokenUser = user;
          req.authError = tokenNotAllowed();
        }
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        req.authError = error;
      }
    }
    next();
  };

/** The one guard: a role or a list of roles (docs/product.md section 2). Without roles it only needs sign-in. */
export const requireRole =
  (...roles: Role[]): RequestHandler =>
  (req, _res, next) => {
    if (!req.user) throw req.authError ?? new UnauthorizedError();
    if (roles.length > 0 && !roles.includes(req.user.role)) throw new ForbiddenError();
    next();
  };

export function currentUser(req: Request): AuthUser {
  if (!req.user) throw req.authError ?? new UnauthorizedError();
  return req.user;
}

/** The command context of a signed-in request: who acts, from where, when, and the request id its events carry. */
export function commandContext(deps: Pick<AppDeps, 'clock'>, req: Request): CommandContext {
  const user = currentUser(req);
  const actor: CommandContext['actor'] = user.token
    ? { userId: user.id, role: user.role, platform: 'api', token: { id: user.token.id, label: user.token.label } }
    : { userId: user.id, role: user.role, platform: 'web' };
  return { actor, now: deps.clock(), correlationId: req.requestId };
}
