import type { UserEvent } from '../domain/user/user';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const USERS = 'users_v1';

/** A user as every screen reads one. Never holds a password hash: sign-in reads the user's stream. */
export interface UserView extends Doc {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  role: 'customer' | 'agent' | 'admin';
  isActive: boolean;
  lastLogin: string | null;
  telegramUsername: string | null;
  createdAt: string;
  _revision: number;
}

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  collections: [USERS],
  async setup(store: ReadStore) {
    await store.collection(USERS).createIndex({ keys: { email: 1 }, unique: true });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (!recorded.streamId.startsWith('user-')) return;
    const event = recorded as unknown as RecordedEvent & UserEvent;
    const users = store.collection<UserView>(USERS);
    const at = recorded.metadata.occurredAt;
    const rev = recorded.revision;
    switch (event.type) {
      case 'UserRegistered':
      case 'UserCreated': {
        const { userId, username, email, firstName, lastName } = event.data;
        const role = event.type === 'UserCreated' ? event.data.role : 'customer';
        const isActive = event.type === 'UserCreated' ? event.data.isActive : true;
        await users.updateOne(
          { _id: userId },
          { $setOnInsert: { username, email, firstName, lastName, role, isActive, lastLogin: null, telegramUsername: null, createdAt: at, _revision: rev } },
          { upsert: true },
        );
        return;
      }
      case 'UserSignedIn':
        await users.updateOne({ _id: event.data.userId, _revision: { $lt: rev } }, { $set: { lastLogin: at, _revision: rev } });
        return;
    }
  },
};

export const publicUser = ({ _revision: _ignored, ...user }: UserView) => user;
