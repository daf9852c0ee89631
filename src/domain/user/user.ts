import type { DomainEvent } from '../shared/decider';
import type { Role } from '#contract/users';
import type { Availability } from '#contract/teams';

export const userStream = (userId: string) => `user-${userId}`;

export interface UserProfile {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface NotificationPreferences {
  newTickets: boolean;
  ticketUpdates: boolean;
  browserNotifications: boolean;
  /** A mail when a colleague mentions them in an internal note (docs/notifications.md, "Mentions"). */
  mentionEmails: boolean;
}

/** docs/product.md section 9: notification toggles start off. */
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = {
  newTickets: false,
  ticketUpdates: false,
  browserNotifications: false,
  mentionEmails: false,
};

export type UserDetails = UserProfile & { telegramUsername: string | null };

/** Why a password link was sent: the account was made for a sender of the support mailbox, or an admin asked (docs/identity.md). */
export type PasswordLinkReason = 'created-by-email' | 'admin';

/**
 * A link that lets a user set their password once (docs/identity.md). Only the SHA-256 digest of its
 * token is kept; `open` until used, expired, or replaced by a newer link.
 */
interface PasswordLink {
  linkId: string;
  tokenHash: string;
  issuedAt: string;
  expiresAt: string;
  state: 'open' | 'used' | 'replaced';
}

export type UserEvent =
  | DomainEvent<'UserRegistered', { userId: string; passwordHash: string } & UserProfile>
  /** `origin` `email`: made by the e-mail channel for a new sender of the support mailbox (docs/email.md). */
  | DomainEvent<
      'UserCreated',
      { userId: string; role: Role; isActive: boolean; passwordHash: string; telegramUsername?: string | null; origin?: 'email' } & UserProfile
    >
  /** Only the fields that changed, each with its earlier value, so an auditor sees before and after. */
  | DomainEvent<'UserDetailsUpdated', { userId: string; changes: Partial<UserDetails>; previous: Partial<UserDetails> }>
  /** `endsSessions` is false when users change their own password: the session they used survives. */
  | DomainEvent<'UserPasswordChanged', { userId: string; passwordHash: string; endsSessions: boolean }>
  /** The token itself is never recorded: its digest only, and the mail carries it (docs/identity.md). */
  | DomainEvent<'PasswordLinkIssued', { userId: string; linkId: string; tokenHash: string; issuedAt: string; expiresAt: string; reason: PasswordLinkReason }>
  | DomainEvent<'PasswordLinkUsed', { userId: string; linkId: string }>
  | DomainEvent<'UserRoleChanged', { userId: string; from: Role; to: Role }>
  | DomainEvent<'UserActivated', { userId: string }>
  | DomainEvent<'UserDeactivated', { userId: string }>
  | DomainEvent<'UserDeleted', { userId: string; username: string; email: string }>
  | DomainEvent<'UserSignedIn', { userId: string }>
  /** `mentionEmails` is absent from the events recorded before it existed. */
  | DomainEvent<'NotificationPreferencesSet', { userId: string } & Omit<NotificationPreferences, 'mentionEmails'> & { mentionEmails?: boolean }>
  /** The customer behind a Telegram user: bot messages of that user act as this account. */
  | DomainEvent<'TelegramAccountLinked', { userId: string; telegramId: string; telegramUsername: string | null }>
  /**
   * A staff member available for automatic assignment, away from it, or offline (docs/teams.md), set by them or an
   * admin (the actor). `reason` when it came with something else: a sign-in or sign-out, or the system after an idle time.
   */
  | DomainEvent<'AvailabilitySet', { userId: string; availability: Availability; previous: Availability; reason?: AvailabilityReason; at?: string }>
  /** Available staff were active in the web app (reported at most once a minute); the idle time is counted from the last. */
  | DomainEvent<'StaffActivitySeen', { userId: string; at: string }>;

export type AvailabilityReason = { kind: 'signed-in' } | { kind: 'signed-out' } | { kind: 'idle'; minutes: number };

interface ExistingUser extends UserDetails {
  userId: string;
  telegramId: string | null;
  role: Role;
  passwordHash: string;
  notificationPreferences: NotificationPreferences;
  availability: Availability;
  /** When the idle time starts: the last activity seen, or becoming Available (null before either). */
  activeAt: string | null;
  /** The latest password links, newest last (PASSWORD_LINKS_KEPT of them). */
  passwordLinks: PasswordLink[];
}

/** Links older than the last few are forgotten: a token of one is then unknown, as a made-up one is. */
const PASSWORD_LINKS_KEPT = 10;

export type UserState = { status: 'none' } | ({ status: 'active' | 'inactive' } & ExistingUser) | { status: 'deleted'; userId: string };

export const initialState: UserState = { status: 'none' };

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered': {
      const { userId, passwordHash, ...profile } = event.data;
      return {
        status: 'active',
        userId,
        role: 'customer',
        passwordHash,
        telegramUsername: null,
        telegramId: null,
        notificationPreferences: DEFAULT_NOTIFICATION_PREFERENCES,
        availability: 'available',
        activeAt: null,
        passwordLinks: [],
        ...profile,
      };
    }
    case 'UserCreated': {
      const { userId, passwordHash, role, isActive, telegramUsername, origin: _origin, ...profile } = event.data;
      return {
        status: isActive ? 'active' : 'inactive',
        userId,
        role,
        passwordHash,
        telegramUsername: telegramUsername ?? null,
        telegramId: null,
        notificationPreferences: DEFAULT_NOTIFICATION_PREFERENCES,
        availability: 'available',
        activeAt: null,
        passwordLinks: [],
        ...profile,
      };
    }
    case 'UserDeleted':
      return { status: 'deleted', userId: event.data.userId };
    case 'UserSignedIn':
      return state;
  }
  if (state.status !== 'active' && state.status !== 'inactive') return state;
  switch (event.type) {
    case 'UserDetailsUpdated':
      return { ...state, ...event.data.changes };
    case 'UserPasswordChanged':
      return { ...state, passwordHash: event.data.passwordHash };
    case 'UserRoleChanged':
      return { ...state, role: event.data.to };
    case 'UserActivated':
      return { ...state, status: 'active' };
    case 'UserDeactivated':
      return { ...state, status: 'inactive' };
    case 'NotificationPreferencesSet': {
      const { userId: _userId, ...preferences } = event.data;
      // Events from before a preference existed leave it at its default.
      return { ...state, notificationPreferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, ...preferences } };
    }
    case 'AvailabilitySet':
      return {
        ...state,
        availability: event.data.availability,
        activeAt: event.data.availability === 'available' ? (event.data.at ?? state.activeAt) : state.activeAt,
      };
    case 'StaffActivitySeen':
      return { ...state, activeAt: event.data.at };
    case 'PasswordLinkIssued': {
      const { linkId, tokenHash, issuedAt, expiresAt } = event.data;
      const earlier = state.passwordLinks.map((link) => (link.state === 'open' ? { ...link, state: 'replaced' as const } : link));
      return { ...state, passwordLinks: [...earlier, { linkId, tokenHash, issuedAt, expiresAt, state: 'open' as const }].slice(-PASSWORD_LINKS_KEPT) };
    }
    case 'PasswordLinkUsed':
      return { ...state, passwordLinks: state.passwordLinks.map((link) => (link.linkId === event.data.linkId ? { ...link, state: 'used' as const } : link)) };
    case 'TelegramAccountLinked':
      return { ...state, telegramId: event.data.telegramId, telegramUsername: event.data.telegramUsername ?? state.telegramUsername };
  }
}
