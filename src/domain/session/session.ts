import type { DomainEvent } from '../shared/decider';

/**
 * A session is one refresh-token family: started at sign-in, rotated on every refresh, ended by
 * logout or by the reuse of a spent token. Only SHA-256 digests of refresh tokens are recorded.
 */
export const sessionStream = (sessionId: string) => `session-${sessionId}`;

export type SessionEndReason = 'logout' | 'refresh_token_reused';

export type SessionEvent =
  | DomainEvent<'SessionStarted', { sessionId: string; userId: string; tokenHash: string; expiresAt: string; ip: string | null; userAgent: string | null }>
  /** `rotatedAt` opens the reuse grace window of the token it spent (absent on rotations recorded before it existed: no window). */
  | DomainEvent<'RefreshTokenRotated', { sessionId: string; userId: string; tokenHash: string; expiresAt: string; rotatedAt?: string }>
  | DomainEvent<'SessionEnded', { sessionId: string; userId: string; reason: SessionEndReason }>;

export type SessionState =
  | { status: 'none' }
  | {
      status: 'open';
      sessionId: string;
      userId: string;
      currentHash: string;
      spentHashes: string[];
      expiresAt: string;
      /** When the last spent token was rotated away (null: never rotated, or recorded without a time). */
      rotatedAt: string | null;
    }
  | { status: 'ended'; sessionId: string; userId: string; spentHashes: string[]; reason: SessionEndReason };

/**
 * How long the token just rotated away may come back for the same successor (the "reuse interval" of
 * Auth0, the "grace period" of Okta): a client whose refresh answer was lost (a navigation aborted the
 * call, the network dropped) presents it again and must not lose the session for it. Later, or once
 * the successor itself was spent, the spent token is a replay and ends the family (docs/identity.md).
 */
export const REFRESH_REUSE_GRACE_MS = 30_000;

export const initialState: SessionState = { status: 'none' };

export function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted': {
      const { sessionId, userId, tokenHash, expiresAt } = event.data;
      return { status: 'open', sessionId, userId, currentHash: tokenHash, spentHashes: [], expiresAt, rotatedAt: null };
    }
    case 'RefreshTokenRotated':
      if (state.status !== 'open') return state;
      return {
        ...state,
        currentHash: event.data.tokenHash,
        spentHashes: [...state.spentHashes, state.currentHash],
        expiresAt: event.data.expiresAt,
        rotatedAt: event.data.rotatedAt ?? null,
      };
    case 'SessionEnded': {
      if (state.status === 'none') return state;
      const spentHashes = state.status === 'open' ? [...state.spentHashes, state.currentHash] : state.spentHashes;
      return { status: 'ended', sessionId: state.sessionId, userId: state.userId, spentHashes, reason: event.data.reason };
    }
  }
}
