import type { RequestHandler, Request } from 'express';
import jwt from 'jsonwebtoken';
import type { Role } from '../../domain/user/user';
import { ForbiddenError, UnauthorizedError } from '../../domain/shared/errors';
import { USERS, type UserView } from '../../projections/users';
import type { AppDeps } from '../deps';

export const TOKEN_ISSUER = 'support-desk';
export const TOKEN_AUDIENCE = 'support-desk-api';
export const ACCESS_TOKEN_SECONDS = 15 * 60;

export interface AuthUser {
  id: string;
  role: Role;
  username: string;
  firstName: string;
  lastName: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    user?: AuthUser;
  }
}

export function signAccessToken(secret: string, user: { _id: string; role: Role }): string {
  return jwt.sign({ role: user.role, typ: 'access' }, secret, {
    algorithm: 'HS256',
    subject: user._id,
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
    expiresIn: ACCESS_TOKEN_SECONDS,
  });
}

/**
 * Verifies an access token and loads its user from the read model on every call, so that a
 * deactivated or deleted user is refused at once and a role change holds from the next call.
 */
export async function authenticateToken(deps: Pick<AppDeps, 'jwtSecret' | 'readStore'>, token: string): Promise<AuthUser> {
  let claims: jwt.JwtPayload;
  try {
    const decoded = jwt.verify(token, deps.jwtSecret, { algorithms: ['HS256'], issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE });
    if (typeof decoded === 'string') throw new Error('unexpected token payload');
    claims = decoded;
  } catch (error) {
    const expired = error instanceof jwt.TokenExpiredError;
    throw new UnauthorizedError(expired ? 'Your session has expired' : 'Invalid token', expired ? 'TOKEN_EXPIRED' : 'INVALID_TOKEN');
  }
  if (claims.typ !== 'access' || typeof claims.sub !== 'string') throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: claims.sub });
  if (!user) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  if (!user.isActive) throw new UnauthorizedError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  return { id: user._id, role: user.role, username: user.username, firstName: user.firstName, lastName: user.lastName };
}

export const authenticate =
  (deps: Pick<AppDeps, 'jwtSecret' | 'readStore'>): RequestHandler =>
  async (req, _res, next) => {
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) req.user = await authenticateToken(deps, header.slice('Bearer '.length).trim());
    next();
  };

/** The one guard: a role or a list of roles (spec.md section 2). Without roles it only needs sign-in. */
export const requireRole =
  (...roles: Role[]): RequestHandler =>
  (req, _res, next) => {
    if (!req.user) throw new UnauthorizedError();
    if (roles.length > 0 && !roles.includes(req.user.role)) throw new ForbiddenError();
    next();
  };

export function currentUser(req: Request): AuthUser {
  if (!req.user) throw new UnauthorizedError();
  return req.user;
}
