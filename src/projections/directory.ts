import type { Role } from '#contract/users';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
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

const personKey = (userId: string) => `user:${userId}`;
const categoryKey = (categoryId: string) => `category:${categoryId}`;

/** What a name no directory entry gives reads as. */
const unknownPerson = (userId: string): PersonEntry => ({
  _id: personKey(userId),
  kind: 'user',
  userId,
  username: 'unknown',
  firstName: 'Unknown',
  lastName: 'user',
  role: 'customer',
});
const unknownCategory = (categoryId: string): CategoryEntry => ({
  _id: categoryKey(categoryId),
  kind: 'category',
  name: 'Unknown category',
  color: '#6c757d',
});

export async function findPerson(store: ReadStore, userId: string): Promise<PersonEntry> {
  return (await store.collection<PersonEntry>(DIRECTORY).findOne({ _id: personKey(userId) })) ?? unknownPerson(userId);
}

export async function findCategory(store: ReadStore, categoryId: string): Promise<CategoryEntry> {
  return (await store.collection<CategoryEntry>(DIRECTORY).findOne({ _id: categoryKey(categoryId) })) ?? unknownCategory(categoryId);
}

/** The directory entries of a page's people and categories, in one query: names are joined per page, not per event. */
export async function loadDirectory(store: ReadStore, people: Iterable<string>, categories: Iterable<string>) {
  const keys = [...new Set([...[...people].map(personKey), ...[...categories].map(categoryKey)])];
  const found = keys.length === 0 ? [] : await store.collection<PersonEntry | CategoryEntry>(DIRECTORY).find({ _id: { $in: keys } });
  const byKey = new Map(found.map((entry) => [entry._id, entry]));
  return {
    person: (userId: string) => (byKey.get(personKey(userId)) as PersonEntry | undefined) ?? unknownPerson(userId),
    category: (categoryId: string) => (byKey.get(categoryKey(categoryId)) as CategoryEntry | undefined) ?? unknownCategory(categoryId),
  };
}

const entries = (store: ReadStore) => store.collection<Doc>(DIRECTORY);

async function setPerson(store: ReadStore, userId: string, details: Partial<Pick<PersonEntry, 'username' | 'firstName' | 'lastName' | 'role'>>) {
  const changes = Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length > 0) await entries(store).updateOne({ _id: personKey(userId) }, { $set: changes });
}

async function putPerson(
  store: ReadStore,
  { userId, username, firstName, lastName }: { userId: string; username: string; firstName: string; lastName: string },
  role: Role,
) {
  const entry: PersonEntry = { _id: personKey(userId), kind: 'user', userId, username, firstName, lastName, role };
  await entries(store).replaceOne({ _id: entry._id }, entry, { upsert: true });
}

export const directoryProjection: Projection = {
  name: 'directory',
  version: 1,
  collections: [DIRECTORY],
  ...handledBy({
    UserRegistered: (event, store) => putPerson(store, event.data, 'customer'),
    UserCreated: (event, store) => putPerson(store, event.data, event.data.role),
    UserDetailsUpdated: (event, store) => {
      const { username, firstName, lastName } = event.data.changes;
      return setPerson(store, event.data.userId, { username, firstName, lastName });
    },
    UserRoleChanged: (event, store) => setPerson(store, event.data.userId, { role: event.data.to }),
    async CategoryCreated(event, store) {
      const entry: CategoryEntry = { _id: categoryKey(event.data.categoryId), kind: 'category', name: event.data.name, color: event.data.color };
      await entries(store).replaceOne({ _id: entry._id }, entry, { upsert: true });
    },
    async CategoryUpdated(event, store) {
      const { name, color } = event.data.changes;
      const changes = Object.fromEntries(Object.entries({ name, color }).filter(([, value]) => value !== undefined));
      if (Object.keys(changes).length > 0) await entries(store).updateOne({ _id: categoryKey(event.data.categoryId) }, { $set: changes });
    },
  }),
};
