import type { NotificationPreferences, UserEvent } from '../domain/user/user';
import type { Role } from '#contract/users';
import type { Availability } from '#contract/teams';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '../domain/user/user';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { type RecordedOf, handledBy } from './events';
import type { Projection } from './runner';
import { type HoldsKeys, type UniqueKey, settleKey } from './uniqueKeys';

export const USERS = 'users_v1';

/** The user record of docs/contract.md: what every response carries, and nothing more. */
export interface PublicUser {
  _id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role;
  isActive: boolean;
  lastLogin: string | null;
  telegramUsername: string | null;
  /** Made by the e-mail channel for a new sender of the support mailbox (docs/email.md). */
  createdByEmail: boolean;
  createdAt: string;
}

/** A user as every screen reads one. Never holds a password hash: sign-in reads the user's stream. */
export interface UserView extends Doc, PublicUser, HoldsKeys {
  notificationPreferences: NotificationPreferences;
  /** Staff's availability for automatic assignment (docs/teams.md); customers keep the default. */
  availability: Availability;
  /** The Telegram user whose bot messages act as this account (never in responses). */
  telegramId: string | null;
  /** Sessions started at or before this global position are dead (deactivation, password reset). */
  sessionsValidAfter: number;
  updatedAt: string;
  _revision: number;
}

export const publicUser = (user: UserView): PublicUser => ({
  _id: user._id,
  username: user.username,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  role: user.role,
  isActive: user.isActive,
  lastLogin: user.lastLogin,
  telegramUsername: user.telegramUsername,
  createdByEmail: user.createdByEmail,
  createdAt: user.createdAt,
});

// Sign-in finds a user by e-mail: with two holders in the log, the first keeps it (see uniqueKeys.ts).
const EMAIL: UniqueKey = { projection: 'users', collection: USERS, field: 'email' };
const USERNAME: UniqueKey = { projection: 'users', collection: USERS, field: 'username' };

type UserEventOf<Type extends UserEvent['type']> = RecordedOf<Type>;

async function insertUser(
  store: ReadStore,
  event: UserEventOf<'UserRegistered'> | UserEventOf<'UserCreated'>,
  fields: Pick<UserView, 'role' | 'isActive' | 'telegramUsername'>,
) {
  const { userId, username, email, firstName, lastName } = event.data;
  const at = event.metadata.occurredAt;
  const view: Omit<UserView, '_id'> = {
    username,
    email,
    firstName,
    lastName,
    role: fields.role,
    isActive: fields.isActive,
    // Registering signs the customer in (the answer carries their tokens): it is their first login.
    lastLogin: event.type === 'UserRegistered' ? at : null,
    telegramUsername: fields.telegramUsername,
    // Accounts the channel made before `origin` was recorded are known by their actor's platform.
    createdByEmail: event.type === 'UserCreated' && (event.data.origin === 'email' || event.metadata.actor?.platform === 'email'),
    telegramId: null,
    notificationPreferences: DEFAULT_NOTIFICATION_PREFERENCES,
    availability: 'available',
    sessionsValidAfter: 0,
    _since: { email: event.position, username: event.position },
    createdAt: at,
    updatedAt: at,
    _revision: event.revision,
  };
  await store.collection<UserView>(USERS).updateOne({ _id: userId }, { $setOnInsert: view }, { upsert: true });
  await settleKey(store, EMAIL, [email], event);
  await settleKey(store, USERNAME, [username], event);
}

/** Sets fields on a user that has not seen this event yet. */
async function setUser(
  store: ReadStore,
  event: { data: { userId: string }; revision: number },
  fields: Partial<UserView> & { [since: `_since.${string}`]: number },
) {
  await store
    .collection<UserView>(USERS)
    .updateOne({ _id: event.data.userId, _revision: { $lt: event.revision } }, { $set: { ...fields, _revision: event.revision } });
}

export const usersProjection: Projection = {
  name: 'users',
  version: 7,
  collections: [USERS],
  async setup(store: ReadStore) {
    const users = store.collection(USERS);
    // Not unique: the write side keeps them so, and the log is the truth even where it failed to.
    await users.createIndex({ keys: { email: 1 } });
    await users.createIndex({ keys: { username: 1 } });
    await users.createIndex({ keys: { role: 1, createdAt: -1 } });
    await users.createIndex({ keys: { telegramId: 1 } });
  },
  ...handledBy({
    UserRegistered: (event, store) => insertUser(store, event, { role: 'customer', isActive: true, telegramUsername: null }),
    UserCreated: (event, store) =>
      insertUser(store, event, { role: event.data.role, isActive: event.data.isActive, telegramUsername: event.data.telegramUsername ?? null }),
    async UserDetailsUpdated(event, store) {
      const { changes, previous } = event.data;
      const since = Object.fromEntries(
        (['email', 'username'] as const).filter((field) => changes[field] !== undefined).map((field) => [`_since.${field}`, event.position]),
      );
      await setUser(store, event, { ...changes, ...since, updatedAt: event.metadata.occurredAt });
      if (changes.email !== undefined) await settleKey(store, EMAIL, [previous.email, changes.email], event);
      if (changes.username !== undefined) await settleKey(store, USERNAME, [previous.username, changes.username], event);
    },
    UserPasswordChanged: (event, store) =>
      setUser(
        store,
        event,
        event.data.endsSessions ? { sessionsValidAfter: event.position, updatedAt: event.metadata.occurredAt } : { updatedAt: event.metadata.occurredAt },
      ),
    UserRoleChanged: (event, store) => setUser(store, event, { role: event.data.to, updatedAt: event.metadata.occurredAt }),
    UserActivated: (event, store) => setUser(store, event, { isActive: true, updatedAt: event.metadata.occurredAt }),
    UserDeactivated: (event, store) => setUser(store, event, { isActive: false, sessionsValidAfter: event.position, updatedAt: event.metadata.occurredAt }),
    async UserDeleted(event, store) {
      await store.collection<UserView>(USERS).deleteOne({ _id: event.data.userId });
      await settleKey(store, EMAIL, [event.data.email], event);
      await settleKey(store, USERNAME, [event.data.username], event);
    },
    UserSignedIn: (event, store) => setUser(store, event, { lastLogin: event.metadata.occurredAt }),
    NotificationPreferencesSet(event, store) {
      const { userId: _userId, ...preferences } = event.data;
      return setUser(store, event, {
        notificationPreferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, ...preferences },
        updatedAt: event.metadata.occurredAt,
      });
    },
    AvailabilitySet: (event, store) => setUser(store, event, { availability: event.data.availability, updatedAt: event.metadata.occurredAt }),
    TelegramAccountLinked(event, store) {
      const { telegramId, telegramUsername } = event.data;
      return setUser(store, event, { telegramId, ...(telegramUsername !== null ? { telegramUsername } : {}), updatedAt: event.metadata.occurredAt });
    },
  }),
};
