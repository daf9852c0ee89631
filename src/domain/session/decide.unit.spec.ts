import { DeciderSpecification } from '../../../test/support/decider';
import { UnauthorizedError } from '#contract/errors';
import { type SessionCommand, decide } from './decide';
import { type SessionEvent, evolve, initialState } from './session';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const NOW = '2026-11-21T10:00:00.000Z';
const IN_A_WEEK = '2026-11-28T10:00:00.000Z';
const STARTED: SessionEvent = {
  type: 'SessionStarted',
  data: { sessionId: 's1', userId: 'u1', tokenHash: 'h1', expiresAt: IN_A_WEEK, ip: '127.0.0.1', userAgent: 'jest' },
};
const ROTATED_AT = '2026-11-21T09:59:50.000Z';
const ROTATED: SessionEvent = {
  type: 'RefreshTokenRotated',
  data: { sessionId: 's1', userId: 'u1', tokenHash: 'h2', expiresAt: IN_A_WEEK, rotatedAt: ROTATED_AT },
};
const rotate = (presentedHash: string, now = NOW, newHash = 'next'): SessionCommand => ({
  type: 'RotateRefreshToken',
  sessionId: 's1',
  presentedHash,
  newHash,
  expiresAt: IN_A_WEEK,
  now,
});

describe('Session (refresh-token family)', () => {
  describe('when open', () => {
    it('then the current token is spent for a new one', () =>
      given([STARTED])
        .when(rotate('h1'))
        .then([{ type: 'RefreshTokenRotated', data: { sessionId: 's1', userId: 'u1', tokenHash: 'next', expiresAt: IN_A_WEEK, rotatedAt: NOW } }]));

    const REUSED: SessionEvent[] = [{ type: 'SessionEnded', data: { sessionId: 's1', userId: 'u1', reason: 'refresh_token_reused' } }];

    it('then a token that was already spent ends the whole family', () => given([STARTED, ROTATED]).when(rotate('h1')).then(REUSED));

    it('then the token just spent, back within the grace window for the same successor, changes nothing', () =>
      given([STARTED, ROTATED])
        .when(rotate('h1', NOW, 'h2'))
        .then([]));

    it('then the token just spent, presented with another successor, ends the whole family', () =>
      given([STARTED, ROTATED])
        .when(rotate('h1', NOW, 'other'))
        .then(REUSED));

    it('then the token just spent, back after the grace window, ends the whole family', () =>
      given([STARTED, ROTATED])
        .when(rotate('h1', '2026-11-21T10:00:20.001Z', 'h2'))
        .then(REUSED));

    it('then the token just spent, back after its successor was spent, ends the whole family', () =>
      given([STARTED, ROTATED, { ...ROTATED, data: { ...ROTATED.data, tokenHash: 'h3' } }])
        .when(rotate('h1', NOW, 'h2'))
        .then(REUSED));

    it('then a rotation recorded without its time opens no grace window', () =>
      given([STARTED, { ...ROTATED, data: { sessionId: 's1', userId: 'u1', tokenHash: 'h2', expiresAt: IN_A_WEEK } }])
        .when(rotate('h1', NOW, 'h2'))
        .then(REUSED));

    it('then an unknown token is refused and changes nothing', () =>
      given([STARTED, ROTATED]).when(rotate('forged')).thenThrowsCode(UnauthorizedError, 'INVALID_REFRESH_TOKEN'));

    it('then an expired token is refused', () =>
      given([STARTED]).when(rotate('h1', '2026-11-28T10:00:00.001Z')).thenThrowsCode(UnauthorizedError, 'SESSION_EXPIRED'));

    it('then logout ends it', () =>
      given([STARTED])
        .when({ type: 'EndSession', sessionId: 's1', reason: 'logout' })
        .then([{ type: 'SessionEnded', data: { sessionId: 's1', userId: 'u1', reason: 'logout' } }]));

    it('then logout with a refresh token needs one of the family', () => {
      given([STARTED, ROTATED])
        .when({ type: 'EndSession', sessionId: 's1', reason: 'logout', presentedHash: 'forged' })
        .thenThrowsCode(UnauthorizedError, 'INVALID_REFRESH_TOKEN');
      given([STARTED, ROTATED])
        .when({ type: 'EndSession', sessionId: 's1', reason: 'logout', presentedHash: 'h2' })
        .then([{ type: 'SessionEnded', data: { sessionId: 's1', userId: 'u1', reason: 'logout' } }]);
    });
  });

  describe('when ended', () => {
    const ENDED: SessionEvent = { type: 'SessionEnded', data: { sessionId: 's1', userId: 'u1', reason: 'logout' } };

    it('then even its last token is refused', () => given([STARTED, ROTATED, ENDED]).when(rotate('h2')).thenThrowsCode(UnauthorizedError, 'SESSION_ENDED'));

    it('then ending it again records nothing', () => given([STARTED, ENDED]).when({ type: 'EndSession', sessionId: 's1', reason: 'logout' }).then([]));
  });

  describe('when it never existed', () => {
    it('then rotation and logout are refused', () => {
      given([]).when(rotate('h1')).thenThrowsCode(UnauthorizedError, 'INVALID_REFRESH_TOKEN');
      given([]).when({ type: 'EndSession', sessionId: 's1', reason: 'logout' }).thenThrowsCode(UnauthorizedError, 'INVALID_REFRESH_TOKEN');
    });
  });
});
