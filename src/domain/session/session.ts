import type { DomainEvent } from '../shared/decider';

/**
 * A session is one refresh-token family: started at sign-in, rotated on every refresh, ended by
 * logout or by the reuse of a spent token. Only SHA-256 digests of refresh tokens are recorded.
 */
export const sessionStream = (sessionId: string) => `session-${sessionId}`;

export const SESSION_END_REASONS = ['logout', 'refresh_token_reused'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

export type SessionEvent =
  | DomainEvent<'SessionStarted', { sessionId: string; userId: string; tokenHash: string; expiresAt: string; ip: string | null; userAgent: string | null }>
  | DomainEvent<'RefreshTokenRotated', { sessionId: string; userId: string; tokenHash: string; expiresAt: string }>
  | DomainEvent<'SessionEnded', { sessionId: string; userId: string; reason: SessionEndReason }>;

export type SessionState =
  | { status: 'none' }
  | { status: 'open'; sessionId: string; userId: string; currentHash: string; spentHashes: string[]; expiresAt: string }
  | { status: 'ended'; sessionId: string; userId: string; spentHashes: string[]; reason: SessionEndReason };

export const initialState: SessionState = { status: 'none' };

export function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted': {
      const { sessionId, userId, tokenHash, expiresAt } = event.data;
      return { status: 'open', sessionId, userId, currentHash: tokenHash, spentHashes: [], expiresAt };
    }
    case 'RefreshTokenRotated':
      if (state.status !== 'open') return state;
      return { ...state, currentHash: event.data.tokenHash, spentHashes: [...state.spentHashes, state.currentHash], expiresAt: event.data.expiresAt };
    case 'SessionEnded': {
      if (state.status === 'none') return state;
      const spentHashes = state.status === 'open' ? [...state.spentHashes, state.currentHash] : state.spentHashes;
      return { status: 'ended', sessionId: state.sessionId, userId: state.userId, spentHashes, reason: event.data.reason };
    }
  }
}
