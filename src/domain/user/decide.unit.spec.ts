import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, GoneError, NotFoundError, RateLimitedError, ValidationError } from '#contract/errors';
import { decide } from './decide';
import { DEFAULT_NOTIFICATION_PREFERENCES, type UserEvent, evolve, initialState } from './user';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const ADA = { username: 'ada', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };
const REGISTERED: UserEvent = { type: 'UserRegistered', data: { userId: 'u1', ...ADA, passwordHash: 'hash-1' } };
const AGENT_CREATED: UserEvent = {
  type: 'UserCreated',
  data: { userId: 'u2', ...ADA, role: 'agent', isActive: true, passwordHash: 'hash-2', telegramUsername: null },
};
const ADMIN_ID = 'admin-1';
const NOW = '2026-11-28T09:00:00.000Z';
const LATER = '2026-11-28T09:00:30.000Z';

describe('User', () => {
  describe('when nobody is registered yet', () => {
    it('then a registration records a customer with the hash it was given', () =>
      given([]).when({ type: 'RegisterUser', userId: 'u1', profile: ADA, passwordHash: 'hash-1' }).then([REGISTERED]));

    it('then an admin may create a user of any role, inactive if asked', () =>
      given([])
        .when({ type: 'CreateUser', userId: 'u2', profile: ADA, role: 'admin', isActive: false, passwordHash: 'h' })
        .then([{ type: 'UserCreated', data: { userId: 'u2', ...ADA, role: 'admin', isActive: false, passwordHash: 'h', telegramUsername: null } }]));

    it('then every other command finds no user', () => {
      given([])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { firstName: 'X' } })
        .thenThrows(NotFoundError);
      given([]).when({ type: 'DeleteUser', userId: 'u1', actorId: ADMIN_ID }).thenThrows(NotFoundError);
      given([]).when({ type: 'RecordSignIn', userId: 'u1', now: NOW }).thenThrows(NotFoundError);
    });
  });

  describe('when registered', () => {
    it('then registering the same id again is a conflict', () =>
      given([REGISTERED]).when({ type: 'RegisterUser', userId: 'u1', profile: ADA, passwordHash: 'h' }).thenThrows(ConflictError));

    it('then an update records only the fields that changed, with their earlier values', () =>
      given([REGISTERED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { firstName: 'Augusta', lastName: 'Lovelace', email: 'augusta@example.com' } })
        .then([
          {
            type: 'UserDetailsUpdated',
            data: { userId: 'u1', changes: { firstName: 'Augusta', email: 'augusta@example.com' }, previous: { firstName: 'Ada', email: 'ada@example.com' } },
          },
        ]));

    it('then an update that changes nothing records nothing', () =>
      given([REGISTERED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { ...ADA, role: 'customer', isActive: true } })
        .then([]));

    it("then an admin's new password ends the user's sessions, role and status changes are their own facts", () =>
      given([REGISTERED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { passwordHash: 'hash-2', role: 'agent', isActive: false } })
        .then([
          { type: 'UserPasswordChanged', data: { userId: 'u1', passwordHash: 'hash-2', endsSessions: true } },
          { type: 'UserRoleChanged', data: { userId: 'u1', from: 'customer', to: 'agent' } },
          { type: 'UserDeactivated', data: { userId: 'u1' } },
        ]));

    it('then sign-in is recorded (it gives lastLogin)', () =>
      given([REGISTERED])
        .when({ type: 'RecordSignIn', userId: 'u1', now: NOW })
        .then([{ type: 'UserSignedIn', data: { userId: 'u1' } }]));

    it('then notification preferences are recorded only when they change', () => {
      given([REGISTERED]).when({ type: 'SetNotificationPreferences', userId: 'u1', preferences: DEFAULT_NOTIFICATION_PREFERENCES }).then([]);
      given([REGISTERED])
        .when({
          type: 'SetNotificationPreferences',
          userId: 'u1',
          preferences: { newTickets: true, ticketUpdates: false, browserNotifications: true, mentionEmails: true },
        })
        .then([
          {
            type: 'NotificationPreferencesSet',
            data: { userId: 'u1', newTickets: true, ticketUpdates: false, browserNotifications: true, mentionEmails: true },
          },
        ]);
    });

    it('then an admin deletes it, keeping who it was for the audit trail', () =>
      given([REGISTERED])
        .when({ type: 'DeleteUser', userId: 'u1', actorId: ADMIN_ID })
        .then([{ type: 'UserDeleted', data: { userId: 'u1', username: 'ada', email: 'ada@example.com' } }]));
  });

  describe('when users act on themselves', () => {
    it('then nobody can change their own role', () =>
      given([AGENT_CREATED])
        .when({ type: 'UpdateUser', userId: 'u2', actorId: 'u2', changes: { role: 'admin' } })
        .thenThrows(ForbiddenError, 'You cannot change your own role'));

    it('then nobody can deactivate themselves', () =>
      given([AGENT_CREATED])
        .when({ type: 'UpdateUser', userId: 'u2', actorId: 'u2', changes: { isActive: false } })
        .thenThrows(ForbiddenError));

    it('then nobody can delete their own account', () =>
      given([AGENT_CREATED]).when({ type: 'DeleteUser', userId: 'u2', actorId: 'u2' }).thenThrows(ForbiddenError, 'Cannot delete your own account'));

    it('then changing their own password keeps their sessions', () =>
      given([AGENT_CREATED])
        .when({ type: 'UpdateUser', userId: 'u2', actorId: 'u2', changes: { passwordHash: 'new', role: 'agent' } })
        .then([{ type: 'UserPasswordChanged', data: { userId: 'u2', passwordHash: 'new', endsSessions: false } }]));
  });

  describe('when deactivated', () => {
    const DEACTIVATED: UserEvent = { type: 'UserDeactivated', data: { userId: 'u1' } };

    it('then sign-in is refused with 403', () =>
      given([REGISTERED, DEACTIVATED]).when({ type: 'RecordSignIn', userId: 'u1', now: NOW }).thenThrows(ForbiddenError, 'This account has been deactivated'));

    it('then deactivating again records nothing and activating records it', () => {
      given([REGISTERED, DEACTIVATED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { isActive: false } })
        .then([]);
      given([REGISTERED, DEACTIVATED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { isActive: true } })
        .then([{ type: 'UserActivated', data: { userId: 'u1' } }]);
    });
  });

  describe('when deleted', () => {
    const DELETED: UserEvent = { type: 'UserDeleted', data: { userId: 'u1', username: 'ada', email: 'ada@example.com' } };

    it('then it is gone for every command', () => {
      given([REGISTERED, DELETED])
        .when({ type: 'UpdateUser', userId: 'u1', actorId: ADMIN_ID, changes: { firstName: 'X' } })
        .thenThrows(NotFoundError);
      given([REGISTERED, DELETED]).when({ type: 'DeleteUser', userId: 'u1', actorId: ADMIN_ID }).thenThrows(NotFoundError);
      given([REGISTERED, DELETED]).when({ type: 'RecordSignIn', userId: 'u1', now: NOW }).thenThrows(NotFoundError);
    });

    it('then its id can never be registered again', () =>
      given([REGISTERED, DELETED]).when({ type: 'RegisterUser', userId: 'u1', profile: ADA, passwordHash: 'h' }).thenThrows(ConflictError));
  });

  describe('when availability is set (docs/teams.md)', () => {
    const AGENT = { userId: 'u2', role: 'agent' as const };
    it('then staff set their own, with the one it replaced, and the same again records nothing', () => {
      given([AGENT_CREATED])
        .when({ type: 'SetAvailability', userId: 'u2', actor: AGENT, availability: 'away', now: NOW })
        .then([{ type: 'AvailabilitySet', data: { userId: 'u2', availability: 'away', previous: 'available' } }]);
      given([AGENT_CREATED]).when({ type: 'SetAvailability', userId: 'u2', actor: AGENT, availability: 'available', now: NOW }).then([]);
    });

    it("then only an admin sets a colleague's, and a customer has none", () => {
      given([AGENT_CREATED])
        .when({ type: 'SetAvailability', userId: 'u2', actor: { userId: 'u3', role: 'agent' }, availability: 'away', now: NOW })
        .thenThrows(ForbiddenError);
      expect(
        given([AGENT_CREATED])
          .when({ type: 'SetAvailability', userId: 'u2', actor: { userId: ADMIN_ID, role: 'admin' }, availability: 'away', now: NOW })
          .result(),
      ).toHaveLength(1);
      given([REGISTERED])
        .when({ type: 'SetAvailability', userId: 'u1', actor: { userId: 'u1', role: 'customer' }, availability: 'away', now: NOW })
        .thenThrows(ValidationError, 'Only agents and admins have an availability');
    });
  });

  describe('when staff sign out, sign in and idle (docs/teams.md)', () => {
    const OFFLINE: UserEvent = {
      type: 'AvailabilitySet',
      data: { userId: 'u2', availability: 'offline', previous: 'available', reason: { kind: 'signed-out' } },
    };
    const SEEN: UserEvent = { type: 'StaffActivitySeen', data: { userId: 'u2', at: NOW } };

    it('then signing out sets them Offline and signing in Available again; a customer records no availability', () => {
      given([AGENT_CREATED]).when({ type: 'RecordSignOut', userId: 'u2', now: NOW }).then([OFFLINE]);
      given([AGENT_CREATED, OFFLINE])
        .when({ type: 'RecordSignIn', userId: 'u2', now: NOW })
        .then([
          { type: 'UserSignedIn', data: { userId: 'u2' } },
          { type: 'AvailabilitySet', data: { userId: 'u2', availability: 'available', previous: 'offline', reason: { kind: 'signed-in' }, at: NOW } },
        ]);
      given([REGISTERED]).when({ type: 'RecordSignOut', userId: 'u1', now: NOW }).then([]);
    });

    it('then activity is recorded at most once per interval, and only while Available', () => {
      given([AGENT_CREATED]).when({ type: 'RecordActivity', userId: 'u2', now: NOW, everyMs: 60_000 }).then([SEEN]);
      given([AGENT_CREATED, SEEN]).when({ type: 'RecordActivity', userId: 'u2', now: LATER, everyMs: 60_000 }).then([]);
      given([AGENT_CREATED, OFFLINE]).when({ type: 'RecordActivity', userId: 'u2', now: NOW, everyMs: 60_000 }).then([]);
    });

    it('then the idle timer sets Away with its reason, unless activity came after it was planned', () => {
      given([AGENT_CREATED, SEEN])
        .when({ type: 'SetAwayWhenIdle', userId: 'u2', since: NOW, minutes: 15 })
        .then([{ type: 'AvailabilitySet', data: { userId: 'u2', availability: 'away', previous: 'available', reason: { kind: 'idle', minutes: 15 } } }]);
      given([AGENT_CREATED, SEEN, { type: 'StaffActivitySeen', data: { userId: 'u2', at: LATER } }])
        .when({ type: 'SetAwayWhenIdle', userId: 'u2', since: NOW, minutes: 15 })
        .then([]);
    });
  });

  describe('when a password link is issued and used (docs/identity.md)', () => {
    const T0 = '2026-11-28T10:00:00.000Z';
    const issue = (linkId: string, now = T0) =>
      ({ type: 'IssuePasswordLink', userId: 'u1', linkId, tokenHash: `hash-${linkId}`, now, expiresAt: '2026-12-05T10:00:00.000Z', reason: 'admin' }) as const;
    const issued = (linkId: string, issuedAt = T0): UserEvent => ({
      type: 'PasswordLinkIssued',
      data: { userId: 'u1', linkId, tokenHash: `hash-${linkId}`, issuedAt, expiresAt: '2026-12-05T10:00:00.000Z', reason: 'admin' },
    });
    const use = (tokenHash: string, now = '2026-11-29T10:00:00.000Z') =>
      ({ type: 'SetPasswordWithLink', userId: 'u1', tokenHash, passwordHash: 'new', now }) as const;

    it('then it records the digest, and the same link again records nothing', () => {
      given([REGISTERED])
        .when(issue('l1'))
        .then([issued('l1')]);
      given([REGISTERED, issued('l1')])
        .when(issue('l1'))
        .then([]);
    });

    it('then the fourth within an hour is refused', () =>
      given([REGISTERED, issued('l1'), issued('l2'), issued('l3')])
        .when(issue('l4', '2026-11-28T10:30:00.000Z'))
        .thenThrows(RateLimitedError));

    it('then the link sets the password once, and ends the sessions', () => {
      given([REGISTERED, issued('l1')])
        .when(use('hash-l1'))
        .then([
          { type: 'PasswordLinkUsed', data: { userId: 'u1', linkId: 'l1' } },
          { type: 'UserPasswordChanged', data: { userId: 'u1', passwordHash: 'new', endsSessions: true } },
        ]);
      given([REGISTERED, issued('l1'), { type: 'PasswordLinkUsed', data: { userId: 'u1', linkId: 'l1' } }])
        .when(use('hash-l1'))
        .thenThrowsCode(GoneError, 'LINK_USED');
    });

    it('then an unknown, replaced or expired link is refused', () => {
      given([REGISTERED, issued('l1')])
        .when(use('hash-other'))
        .thenThrows(NotFoundError);
      given([REGISTERED, issued('l1'), issued('l2')])
        .when(use('hash-l1'))
        .thenThrowsCode(GoneError, 'LINK_REPLACED');
      given([REGISTERED, issued('l1')])
        .when(use('hash-l1', '2026-12-05T10:00:00.000Z'))
        .thenThrowsCode(GoneError, 'LINK_EXPIRED');
    });
  });
});
