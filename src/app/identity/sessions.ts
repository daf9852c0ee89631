import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sessionDecider } from '../../domain/session/decide';
import { type SessionEndReason, sessionStream } from '../../domain/session/session';
import { UnauthorizedError } from '#contract/errors';
import type { Actor } from '../../platform/eventstore/port';
import { handleCommand } from '../../platform/commands';
import { SESSIONS, type SessionView } from '../../projections/sessions';
import { USERS, type UserView } from '../../projections/users';
import type { AppDeps } from '../deps';
import { signAccessToken } from './tokens';

/** docs/contract.md: refresh tokens live 7 days; each refresh starts the 7 days again. */
const REFRESH_TOKEN_SECONDS = 7 * 24 * 60 * 60;

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  /** The id of the request that signs in: the correlation id of the events it appends. */
  requestId?: string;
}

/** The token names its session so it can be found; only its digest is ever recorded. */
const newRefreshToken = (sessionId: string) => `${sessionId}.${randomBytes(32).toString('base64url')}`;
/**
 * A token's one successor: keyed on the server's secret, so nobody without it can compute it, and
 * the same for every presentation of the token, so a refresh whose answer was lost can be answered
 * again with the same pair (the reuse grace window, docs/identity.md) without storing any token.
 */
const successorOf = (secret: string, sessionId: string, token: string) =>
  `${sessionId}.${createHmac('sha256', secret).update(`refresh-successor\u0000${token}`).digest('base64url')}`;
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const actorOf = (user: Pick<UserView, '_id' | 'role'>): Actor => ({ userId: user._id, role: user.role, platform: 'web' });

function expiresAt(deps: AppDeps): string {
  return new Date(deps.clock().getTime() + REFRESH_TOKEN_SECONDS * 1000).toISOString();
}

/** Starts a refresh-token family at sign-in or registration and returns the first pair of tokens. */
export async function startSession(deps: AppDeps, user: UserView, client: ClientInfo): Promise<Tokens> {
  const sessionId = deps.newId();
  const refreshToken = newRefreshToken(sessionId);
  const result = await handleCommand(
    deps.events,
    sessionStream(sessionId),
    sessionDecider,
    {
      type: 'StartSession',
      sessionId,
      userId: user._id,
      tokenHash: digest(refreshToken),
      expiresAt: expiresAt(deps),
      ip: client.ip,
      userAgent: client.userAgent?.slice(0, 256) ?? null,
    },
    { actor: actorOf(user), now: deps.clock(), correlationId: client.requestId },
  );
  await deps.projections.waitFor(result.position);
  return { accessToken: signAccessToken(deps.jwtSecret, user, sessionId), refreshToken };
}

const invalidRefreshToken = () => new UnauthorizedError('Invalid refresh token', 'INVALID_REFRESH_TOKEN');

function sessionIdOf(refreshToken: string): string {
  const sessionId = refreshToken.split('.', 1)[0]!;
  if (!SESSION_ID.test(sessionId)) throw invalidRefreshToken();
  return sessionId;
}

/**
 * Spends a refresh token for a new pair. The token just spent, back within the grace window before
 * its successor was used, gets that same successor again (with a fresh access token). Presenting any
 * other spent token ends the whole family (its access tokens stop working at once too) and answers 401.
 */
export async function refreshSession(deps: AppDeps, refreshToken: string, correlationId?: string): Promise<Tokens> {
  const sessionId = sessionIdOf(refreshToken);
  const session = await deps.readStore.collection<SessionView>(SESSIONS).findOne({ _id: sessionId });
  if (!session) throw invalidRefreshToken();
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: session.userId });
  if (!user) throw invalidRefreshToken();
  if (!user.isActive) throw new UnauthorizedError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  if (session.startedPosition <= user.sessionsValidAfter) throw new UnauthorizedError('Your session has ended; please sign in again', 'SESSION_ENDED');

  const nextToken = successorOf(deps.jwtSecret, sessionId, refreshToken);
  const now = deps.clock();
  const result = await handleCommand(
    deps.events,
    sessionStream(sessionId),
    sessionDecider,
    {
      type: 'RotateRefreshToken',
      sessionId,
      presentedHash: digest(refreshToken),
      newHash: digest(nextToken),
      expiresAt: expiresAt(deps),
      now: now.toISOString(),
    },
    { actor: actorOf(user), now, correlationId },
  );
  await deps.projections.waitFor(result.position);
  if (result.events.some((event) => event.type === 'SessionEnded')) {
    throw new UnauthorizedError('This refresh token was already used, so the session has been ended for safety; please sign in again', 'REFRESH_TOKEN_REUSED');
  }
  return { accessToken: signAccessToken(deps.jwtSecret, user, sessionId), refreshToken: nextToken };
}

/** Ends a session (logout); ending one that is already over changes nothing. */
export async function endSession(deps: AppDeps, sessionId: string, reason: SessionEndReason, actor: Actor, correlationId?: string): Promise<void> {
  const result = await handleCommand(
    deps.events,
    sessionStream(sessionId),
    sessionDecider,
    { type: 'EndSession', sessionId, reason },
    { actor, now: deps.clock(), correlationId },
  );
  await deps.projections.waitFor(result.position);
}

/** Logout with a refresh token: ends its family, provided the token really belongs to it; answers whose session it was. */
export async function endSessionOfRefreshToken(deps: AppDeps, refreshToken: string, correlationId?: string): Promise<Actor> {
  const sessionId = sessionIdOf(refreshToken);
  const session = await deps.readStore.collection<SessionView>(SESSIONS).findOne({ _id: sessionId });
  if (!session) throw invalidRefreshToken();
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: session.userId });
  const actor: Actor = user ? actorOf(user) : { userId: session.userId, role: 'customer', platform: 'web' };
  const result = await handleCommand(
    deps.events,
    sessionStream(sessionId),
    sessionDecider,
    { type: 'EndSession', sessionId, reason: 'logout', presentedHash: digest(refreshToken) },
    { actor, now: deps.clock(), correlationId },
  );
  await deps.projections.waitFor(result.position);
  return actor;
}
