import type { NotificationPreferences, UserEvent } from '../domain/user/user';
import type { Role } from '#contract/users';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '../domain/user/user';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const USERS = 'users_v1';

/** The user record of API.md: what every response carries, and nothing more. */
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
  createdAt: string;
}

/** A user as every screen reads one. Never holds a password hash: sign-in reads the user's stream. */
export interface UserView extends Doc, PublicUser {
  notificationPreferences: NotificationPreferences;
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
  createdAt: user.createdAt,
});

export const usersProjection: Projection = {
  name: 'users',
  version: 3,
  collections: [USERS],
  async setup(store: ReadStore) {
    const users = store.collection(USERS);
    await users.createIndex({ keys: { email: 1 }, unique: true });
    await users.createIndex({ keys: { username: 1 }, unique: true });
    await users.createIndex({ keys: { role: 1, createdAt: -1 } });
    await users.createIndex({ keys: { telegramId: 1 } });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (!recorded.streamId.startsWith('user-')) return;
    const event = recorded as unknown as RecordedEvent & UserEvent;
    const users = store.collection<UserView>(USERS);
    const at = recorded.metadata.occurredAt;
    const rev = recorded.revision;
    const userId = event.data.userId;
    const guarded = { _id: userId, _revision: { $lt: rev } };
    const set = (fields: Partial<UserView>) => users.updateOne(guarded, { $set: { ...fields, _revision: rev } });
    switch (event.type) {
      case 'UserRegistered':
      case 'UserCreated': {
        const { username, email, firstName, lastName } = event.data;
        const role = event.type === 'UserCreated' ? event.data.role : 'customer';
        const isActive = event.type === 'UserCreated' ? event.data.isActive : true;
        const telegramUsername = event.type === 'UserCreated' ? (event.data.telegramUsername ?? null) : null;
        const view: Omit<UserView, '_id'> = {
          username,
          email,
          firstName,
          lastName,
          role,
          isActive,
          lastLogin: null,
          telegramUsername,
          telegramId: null,
          notificationPreferences: DEFAULT_NOTIFICATION_PREFERENCES,
          sessionsValidAfter: 0,
          createdAt: at,
          updatedAt: at,
          _revision: rev,
        };
        await users.updateOne({ _id: userId }, { $setOnInsert: view }, { upsert: true });
        return;
      }
      case 'UserDetailsUpdated':
        await set({ ...event.data.changes, updatedAt: at });
        return;
      case 'UserPasswordChanged':
        if (event.data.endsSessions) await set({ sessionsValidAfter: recorded.position, updatedAt: at });
        else await set({ updatedAt: at });
        return;
      case 'UserRoleChanged':
        await set({ role: event.data.to, updatedAt: at });
        return;
      case 'UserActivated':
        await set({ isActive: true, updatedAt: at });
        return;
      case 'UserDeactivated':
        await set({ isActive: false, sessionsValidAfter: recorded.position, updatedAt: at });
        return;
      case 'UserDeleted':
        await users.deleteOne({ _id: userId });
        return;
      case 'UserSignedIn':
        await set({ lastLogin: at });
        return;
      case 'NotificationPreferencesSet': {
        const { newTickets, ticketUpdates, browserNotifications } = event.data;
        await set({ notificationPreferences: { newTickets, ticketUpdates, browserNotifications }, updatedAt: at });
        return;
      }
      case 'TelegramAccountLinked': {
        const { telegramId, telegramUsername } = event.data;
        await set({ telegramId, ...(telegramUsername !== null ? { telegramUsername } : {}), updatedAt: at });
        return;
      }
    }
  },
};
