import { ConflictError, UnauthorizedError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { type SessionEndReason, type SessionEvent, type SessionState, evolve, initialState } from './session';

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; tokenHash: string; expiresAt: string; ip: string | null; userAgent: string | null }
  /** `now` is an ISO time passed in by the handler; the decider never reads a clock. */
  | { type: 'RotateRefreshToken'; sessionId: string; presentedHash: string; newHash: string; expiresAt: string; now: string }
  /** With `presentedHash` the caller proves it holds one of the family's refresh tokens. */
  | { type: 'EndSession'; sessionId: string; reason: SessionEndReason; presentedHash?: string };

const invalid = () => new UnauthorizedError('Invalid refresh token', 'INVALID_REFRESH_TOKEN');

/**
 * Rotation with reuse detection: the current token buys a new one; a token already spent means
 * that two parties hold the family (one of them a thief), so the whole family is ended. The caller
 * sees the `SessionEnded` event and refuses the request.
 */
function rotate(command: Extract<SessionCommand, { type: 'RotateRefreshToken' }>, state: SessionState): SessionEvent[] {
  if (state.status === 'none') throw invalid();
  if (state.status === 'ended') {
    if (state.spentHashes.includes(command.presentedHash)) throw new UnauthorizedError('Your session has ended; please sign in again', 'SESSION_ENDED');
    throw invalid();
  }
  const { sessionId, userId } = state;
  if (state.spentHashes.includes(command.presentedHash)) return [{ type: 'SessionEnded', data: { sessionId, userId, reason: 'refresh_token_reused' } }];
  if (state.currentHash !== command.presentedHash) throw invalid();
  if (Date.parse(state.expiresAt) <= Date.parse(command.now)) throw new UnauthorizedError('Your session has expired; please sign in again', 'SESSION_EXPIRED');
  return [{ type: 'RefreshTokenRotated', data: { sessionId, userId, tokenHash: command.newHash, expiresAt: command.expiresAt } }];
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
