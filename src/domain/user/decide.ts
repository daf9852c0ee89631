import { changedFields } from '../shared/changes';
import { ConflictError, ForbiddenError, GoneError, NotFoundError, RateLimitedError, ValidationError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import {
  type AvailabilityReason,
  type NotificationPreferences,
  type PasswordLinkReason,
  type UserDetails,
  type UserEvent,
  type UserProfile,
  type UserState,
  evolve,
  initialState,
} from './user';
import { type Role, isStaff } from '#contract/users';
import type { Availability } from '#contract/teams';

export interface UserChanges extends Partial<UserDetails> {
  role?: Role;
  isActive?: boolean;
  /** Already hashed by the handler; absent keeps the current password. */
  passwordHash?: string;
}

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; profile: UserProfile; passwordHash: string }
  | {
      type: 'CreateUser';
      userId: string;
      profile: UserProfile;
      role: Role;
      isActive: boolean;
      passwordHash: string;
      telegramUsername?: string | null;
      origin?: 'email';
    }
  | { type: 'UpdateUser'; userId: string; actorId: string; changes: UserChanges }
  | { type: 'DeleteUser'; userId: string; actorId: string }
  /** `now` starts the idle time of staff, who become Available by signing in. */
  | { type: 'RecordSignIn'; userId: string; now: string }
  /** A staff member signing out goes Offline (a customer's sign-out records nothing). */
  | { type: 'RecordSignOut'; userId: string; now: string }
  /** Activity in the web app: recorded for Available staff when the last is at least `everyMs` old. */
  | { type: 'RecordActivity'; userId: string; now: string; everyMs: number }
  /** The system's idle timer: Away, provided nothing moved the idle time past `since` meanwhile. */
  | { type: 'SetAwayWhenIdle'; userId: string; since: string; minutes: number }
  | { type: 'SetNotificationPreferences'; userId: string; preferences: NotificationPreferences }
  | { type: 'LinkTelegramAccount'; userId: string; telegramId: string; telegramUsername: string | null }
  | { type: 'SetAvailability'; userId: string; actor: { userId: string; role: Role }; availability: Availability; now: string }
  | { type: 'IssuePasswordLink'; userId: string; linkId: string; tokenHash: string; now: string; expiresAt: string; reason: PasswordLinkReason }
  | { type: 'SetPasswordWithLink'; userId: string; tokenHash: string; passwordHash: string; now: string };

/** At most this many password links per user in PASSWORD_LINK_WINDOW_MS (each is a mail to someone's inbox). */
const PASSWORD_LINKS_PER_WINDOW = 3;
const PASSWORD_LINK_WINDOW_MS = 60 * 60 * 1000;

type Existing = Extract<UserState, { status: 'active' | 'inactive' }>;

function existing(state: UserState): Existing {
  if (state.status === 'none' || state.status === 'deleted') throw new NotFoundError('User');
  return state;
}

function updateUser(command: Extract<UserCommand, { type: 'UpdateUser' }>, state: UserState): UserEvent[] {
  const user = existing(state);
  const { userId, actorId, changes } = command;
  const self = userId === actorId;
  // An admin who demoted or deactivated themselves could leave the desk with no admin at all.
  if (self && changes.role !== undefined && changes.role !== user.role) throw new ForbiddenError('You cannot change your own role', 'CANNOT_CHANGE_OWN_ROLE');
  if (self && changes.isActive === false) throw new ForbiddenError('You cannot deactivate your own account', 'CANNOT_DEACTIVATE_SELF');

  const events: UserEvent[] = [];
  const { username, email, firstName, lastName, telegramUsername } = changes;
  const details = changedFields<UserDetails>(user, { username, email, firstName, lastName, telegramUsername });
  if (details) events.push({ type: 'UserDetailsUpdated', data: { userId, ...details } });
  if (changes.passwordHash !== undefined)
    events.push({ type: 'UserPasswordChanged', data: { userId, passwordHash: changes.passwordHash, endsSessions: !self } });
  if (changes.role !== undefined && changes.role !== user.role) events.push({ type: 'UserRoleChanged', data: { userId, from: user.role, to: changes.role } });
  if (changes.isActive === true && user.status === 'inactive') events.push({ type: 'UserActivated', data: { userId } });
  if (changes.isActive === false && user.status === 'active') events.push({ type: 'UserDeactivated', data: { userId } });
  return events;
}

/** Staff set their own availability; an admin may set a colleague's (a customer has none to set). */
function setAvailability(command: Extract<UserCommand, { type: 'SetAvailability' }>, state: UserState): UserEvent[] {
  const { actor, userId, availability } = command;
  if (actor.userId !== userId && actor.role !== 'admin') throw new ForbiddenError("Only an admin can set another staff member's availability");
  const user = existing(state);
  if (!isStaff(user.role)) throw new ValidationError(AVAILABILITY_RULE, [{ path: 'userId', message: AVAILABILITY_RULE }]);
  return availabilityChange(user, availability, command.now);
}

/** The change to `availability`, if it is one; becoming Available starts the idle time at `now`. */
function availabilityChange(user: Existing, availability: Availability, now: string, reason?: AvailabilityReason): UserEvent[] {
  if (user.availability === availability) return [];
  const data = { userId: user.userId, availability, previous: user.availability, ...(reason ? { reason } : {}) };
  return [{ type: 'AvailabilitySet', data: availability === 'available' ? { ...data, at: now } : data }];
}

function recordActivity(command: Extract<UserCommand, { type: 'RecordActivity' }>, state: UserState): UserEvent[] {
  const user = existing(state);
  if (!isStaff(user.role) || user.availability !== 'available') return [];
  if (user.activeAt !== null && Date.parse(command.now) - Date.parse(user.activeAt) < command.everyMs) return [];
  return [{ type: 'StaffActivitySeen', data: { userId: command.userId, at: command.now } }];
}

function setAwayWhenIdle(command: Extract<UserCommand, { type: 'SetAwayWhenIdle' }>, state: UserState): UserEvent[] {
  if (state.status !== 'active' || state.availability !== 'available' || state.activeAt !== command.since) return [];
  return availabilityChange(state, 'away', command.since, { kind: 'idle', minutes: command.minutes });
}

/** A link per mail, a few an hour: refused past that (429), whoever asks, as the count is the user's stream's. */
function issuePasswordLink(command: Extract<UserCommand, { type: 'IssuePasswordLink' }>, state: UserState): UserEvent[] {
  const user = existing(state);
  if (user.status === 'inactive') throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  // The same link issued again (a mail's job run twice) is the one already recorded.
  if (user.passwordLinks.some((link) => link.linkId === command.linkId)) return [];
  const now = Date.parse(command.now);
  const recent = user.passwordLinks.filter((link) => now - Date.parse(link.issuedAt) < PASSWORD_LINK_WINDOW_MS);
  if (recent.length >= PASSWORD_LINKS_PER_WINDOW) {
    const minutes = Math.max(1, Math.ceil((Date.parse(recent[0]!.issuedAt) + PASSWORD_LINK_WINDOW_MS - now) / 60_000));
    throw new RateLimitedError(`Too many password links for this account. Please try again in ${minutes} minutes.`, minutes * 60);
  }
  const { userId, linkId, tokenHash, now: issuedAt, expiresAt, reason } = command;
  return [{ type: 'PasswordLinkIssued', data: { userId, linkId, tokenHash, issuedAt, expiresAt, reason } }];
}

/** The link of that token, once, before it expires and while it is the newest; it sets the password and ends every session. */
function setPasswordWithLink(command: Extract<UserCommand, { type: 'SetPasswordWithLink' }>, state: UserState): UserEvent[] {
  const link = state.status === 'active' || state.status === 'inactive' ? state.passwordLinks.find((each) => each.tokenHash === command.tokenHash) : undefined;
  if (!link) throw new NotFoundError('Password link');
  if (link.state === 'used') throw new GoneError('This password link has already been used', 'LINK_USED');
  if (link.state === 'replaced') throw new GoneError('A newer password link was sent: please use the latest one', 'LINK_REPLACED');
  if (Date.parse(command.now) >= Date.parse(link.expiresAt)) throw new GoneError('This password link has expired: please ask for a new one', 'LINK_EXPIRED');
  if (state.status === 'inactive') throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  const { userId, passwordHash } = command;
  return [
    { type: 'PasswordLinkUsed', data: { userId, linkId: link.linkId } },
    { type: 'UserPasswordChanged', data: { userId, passwordHash, endsSessions: true } },
  ];
}

const AVAILABILITY_RULE = 'Only agents and admins have an availability';

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'RegisterUser': {
      if (state.status !== 'none') throw new ConflictError('User already exists', 'USER_EXISTS');
      const { userId, profile, passwordHash } = command;
      return [{ type: 'UserRegistered', data: { userId, ...profile, passwordHash } }];
    }
    case 'CreateUser': {
      if (state.status !== 'none') throw new ConflictError('User already exists', 'USER_EXISTS');
      const { userId, profile, role, isActive, passwordHash, telegramUsername, origin } = command;
      return [
        {
          type: 'UserCreated',
          data: { userId, ...profile, role, isActive, passwordHash, telegramUsername: telegramUsername ?? null, ...(origin ? { origin } : {}) },
        },
      ];
    }
    case 'UpdateUser':
      return updateUser(command, state);
    case 'DeleteUser': {
      const user = existing(state);
      if (command.userId === command.actorId) throw new ForbiddenError('Cannot delete your own account', 'CANNOT_DELETE_SELF');
      return [{ type: 'UserDeleted', data: { userId: command.userId, username: user.username, email: user.email } }];
    }
    case 'RecordSignIn': {
      const user = existing(state);
      if (user.status === 'inactive') throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
      const signedIn: UserEvent = { type: 'UserSignedIn', data: { userId: command.userId } };
      return isStaff(user.role) ? [signedIn, ...availabilityChange(user, 'available', command.now, { kind: 'signed-in' })] : [signedIn];
    }
    case 'RecordSignOut':
      // A sign-out always succeeds: a deleted account (its session ended) has no availability to change.
      return (state.status === 'active' || state.status === 'inactive') && isStaff(state.role)
        ? availabilityChange(state, 'offline', command.now, { kind: 'signed-out' })
        : [];
    case 'RecordActivity':
      return recordActivity(command, state);
    case 'SetAwayWhenIdle':
      return setAwayWhenIdle(command, state);
    case 'SetNotificationPreferences': {
      const user = existing(state);
      const current = user.notificationPreferences;
      const next = command.preferences;
      if ((Object.keys(next) as Array<keyof typeof next>).every((key) => current[key] === next[key])) return [];
      return [{ type: 'NotificationPreferencesSet', data: { userId: command.userId, ...next } }];
    }
    case 'SetAvailability':
      return setAvailability(command, state);
    case 'IssuePasswordLink':
      return issuePasswordLink(command, state);
    case 'SetPasswordWithLink':
      return setPasswordWithLink(command, state);
    case 'LinkTelegramAccount': {
      const user = existing(state);
      const { userId, telegramId, telegramUsername } = command;
      if (user.telegramId === telegramId && (telegramUsername === null || telegramUsername === user.telegramUsername)) return [];
      return [{ type: 'TelegramAccountLinked', data: { userId, telegramId, telegramUsername } }];
    }
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { decide, evolve, initialState };
