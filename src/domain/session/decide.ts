import { ConflictError, UnauthorizedError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { REFRESH_REUSE_GRACE_MS, type SessionEndReason, type SessionEvent, type SessionState, evolve, initialState } from './session';

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; tokenHash: string; expiresAt: string; ip: string | null; userAgent: string | null }
  /**
   * `now` is an ISO time passed in by the handler; the decider never reads a clock. `newHash` is the
   * digest of the presented token's one successor (derived from it, so the same token always has the
   * same successor).
   */
  | { type: 'RotateRefreshToken'; sessionId: string; presentedHash: string; newHash: string; expiresAt: string; now: string }
  /** With `presentedHash` the caller proves it holds one of the family's refresh tokens. */
  | { type: 'EndSession'; sessionId: string; reason: SessionEndReason; presentedHash?: string };

const invalid = () => new UnauthorizedError('Invalid refresh token', 'INVALID_REFRESH_TOKEN');

/**
 * The token just rotated away, back within the grace window while its successor is still unspent:
 * the client lost the answer, so it gets the same successor again and nothing changes.
 */
function isGraceReuse(command: Extract<SessionCommand, { type: 'RotateRefreshToken' }>, state: Extract<SessionState, { status: 'open' }>): boolean {
  if (state.rotatedAt === null || state.spentHashes.at(-1) !== command.presentedHash || state.currentHash !== command.newHash) return false;
  return Date.parse(command.now) - Date.parse(state.rotatedAt) <= REFRESH_REUSE_GRACE_MS;
}

/**
 * Rotation with reuse detection: the current token buys a new one; a token already spent means
 * that two parties hold the family (one of them a thief), so the whole family is ended, except the
 * one just spent within the grace window (see `isGraceReuse`), which decides nothing. The caller
 * sees the `SessionEnded` event and refuses the request.
 */
function rotate(command: Extract<SessionCommand, { type: 'RotateRefreshToken' }>, state: SessionState): SessionEvent[] {
  if (state.status === 'none') throw invalid();
  if (state.status === 'ended') {
    if (state.spentHashes.includes(command.presentedHash)) throw new UnauthorizedError('Your session has ended; please sign in again', 'SESSION_ENDED');
    throw invalid();
  }
  const { sessionId, userId } = state;
  if (isGraceReuse(command, state)) return [];
  if (state.spentHashes.includes(command.presentedHash)) return [{ type: 'SessionEnded', data: { sessionId, userId, reason: 'refresh_token_reused' } }];
  if (state.currentHash !== command.presentedHash) throw invalid();
  if (Date.parse(state.expiresAt) <= Date.parse(command.now)) throw new UnauthorizedError('Your session has expired; please sign in again', 'SESSION_EXPIRED');
  return [{ type: 'RefreshTokenRotated', data: { sessionId, userId, tokenHash: command.newHash, expiresAt: command.expiresAt, rotatedAt: command.now } }];
}

export function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  switch (command.type) {
    case 'StartSession': {
      if (state.status !== 'none') throw new ConflictError('Session already exists', 'SESSION_EXISTS');
      const { type: _type, ...data } = command;
      return [{ type: 'SessionStarted', data }];
    }
    case 'RotateRefreshToken':
      return rotate(command, state);
    case 'EndSession': {
      if (state.status === 'none') throw invalid();
      const { presentedHash } = command;
      const known = state.status === 'open' ? [state.currentHash, ...state.spentHashes] : state.spentHashes;
      if (presentedHash !== undefined && !known.includes(presentedHash)) throw invalid();
      if (state.status !== 'open') return [];
      return [{ type: 'SessionEnded', data: { sessionId: state.sessionId, userId: state.userId, reason: command.reason } }];
    }
  }
}

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = { decide, evolve, initialState };
