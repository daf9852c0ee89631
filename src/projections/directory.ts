import type { CategoryEvent } from '../domain/category/category';
import type { UserEvent } from '../domain/user/user';
import type { Role } from '#contract/users';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const DIRECTORY = 'directory_v1';

/**
 * Names of people and categories as other read models denormalise them. Unlike `users_v1` it
 * forgets nobody: a ticket keeps showing who wrote a message after that account is deleted, and a
 * rebuilt read model finds every name it needs whatever order projections are rebuilt in.
 */
export interface PersonEntry extends Doc {
  kind: 'user';
  userId: string;
  username: string;
  firstName: string;
  lastName: string;
  role: Role;
}

export interface CategoryEntry extends Doc {
  kind: 'category';
  name: string;
  color: string;
}

export const personKey = (userId: string) => `user:${userId}`;
export const categoryKey = (categoryId: string) => `category:${categoryId}`;

export async function findPerson(store: ReadStore, userId: string): Promise<PersonEntry> {
  const found = await store.collection<PersonEntry>(DIRECTORY).findOne({ _id: personKey(userId) });
  return found ?? { _id: personKey(userId), kind: 'user', userId, username: 'unknown', firstName: 'Unknown', lastName: 'user', role: 'customer' };
}

export async function findCategory(store: ReadStore, categoryId: string): Promise<CategoryEntry> {
  const found = await store.collection<CategoryEntry>(DIRECTORY).findOne({ _id: categoryKey(categoryId) });
  return found ?? { _id: categoryKey(categoryId), kind: 'category', name: 'Unknown category', color: '#6c757d' };
}

export const directoryProjection: Projection = {
  name: 'directory',
  version: 1,
  collections: [DIRECTORY],
  async apply(recorded: RecordedEvent, store: ReadStore) {
    const entries = store.collection<Doc>(DIRECTORY);
    if (recorded.streamId.startsWith('user-')) {
      const event = recorded as unknown as RecordedEvent & UserEvent;
      const key = personKey(event.data.userId);
      switch (event.type) {
        case 'UserRegistered':
        case 'UserCreated': {
          const { username, firstName, lastName } = event.data;
          const role = event.type === 'UserCreated' ? event.data.role : 'customer';
          const entry: PersonEntry = { _id: key, kind: 'user', userId: event.data.userId, username, firstName, lastName, role };
          await entries.replaceOne({ _id: key }, entry, { upsert: true });
          return;
        }
        case 'UserDetailsUpdated': {
          const { username, firstName, lastName } = event.data.changes;
          const changes = Object.fromEntries(Object.entries({ username, firstName, lastName }).filter(([, value]) => value !== undefined));
          if (Object.keys(changes).length > 0) await entries.updateOne({ _id: key }, { $set: changes });
          return;
        }
        case 'UserRoleChanged':
          await entries.updateOne({ _id: key }, { $set: { role: event.data.to } });
          return;
        default:
          return;
      }
    }
    if (recorded.streamId.startsWith('category-')) {
      const event = recorded as unknown as RecordedEvent & CategoryEvent;
      const key = categoryKey(event.data.categoryId);
      if (event.type === 'CategoryCreated') {
        const entry: CategoryEntry = { _id: key, kind: 'category', name: event.data.name, color: event.data.color };
        await entries.replaceOne({ _id: key }, entry, { upsert: true });
      } else if (event.type === 'CategoryUpdated') {
        const { name, color } = event.data.changes;
        const changes = Object.fromEntries(Object.entries({ name, color }).filter(([, value]) => value !== undefined));
        if (Object.keys(changes).length > 0) await entries.updateOne({ _id: key }, { $set: changes });
      }
    }
  },
};
