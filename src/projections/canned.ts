import type { CannedEvent } from '../domain/canned/canned';
import type { CategoryEvent } from '../domain/category/category';
import type { UserEvent } from '../domain/user/user';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { findCategory, findPerson } from './directory';
import type { Projection } from './runner';

export const CANNED = 'canned_messages_v1';

/** A canned message as API.md returns it, plus the revision guard. */
export interface CannedView extends Doc {
  shortcode: string;
  title: string;
  content: string;
  category: { _id: string; name: string } | null;
  usageCount: number;
  createdBy: { _id: string; firstName: string; lastName: string };
  createdAt: string;
  updatedAt: string;
  lastUsed: string | null;
  _revision: number;
}

const categoryRef = async (store: ReadStore, categoryId: string | null) => (categoryId ? { _id: categoryId, name: (await findCategory(store, categoryId)).name } : null);

async function applyCanned(recorded: RecordedEvent, store: ReadStore) {
  const event = recorded as unknown as RecordedEvent & CannedEvent;
  const canned = store.collection<CannedView>(CANNED);
  const at = recorded.metadata.occurredAt;
  const rev = recorded.revision;
  const id = event.data.cannedId;
  const guard = { _id: id, _revision: { $lt: rev } };
  switch (event.type) {
    case 'CannedMessageCreated': {
      const { shortcode, title, content, categoryId, createdBy } = event.data;
      const author = await findPerson(store, createdBy);
      const view: Omit<CannedView, '_id'> = {
        shortcode,
        title,
        content,
        category: await categoryRef(store, categoryId),
        usageCount: 0,
        createdBy: { _id: createdBy, firstName: author.firstName, lastName: author.lastName },
        createdAt: at,
        updatedAt: at,
        lastUsed: null,
        _revision: rev,
      };
      await canned.updateOne({ _id: id }, { $setOnInsert: view }, { upsert: true });
      return;
    }
    case 'CannedMessageUpdated': {
      const { categoryId, ...rest } = event.data.changes;
      const category = categoryId === undefined ? {} : { category: await categoryRef(store, categoryId) };
      await canned.updateOne(guard, { $set: { ...rest, ...category, updatedAt: at, _revision: rev } });
      return;
    }
    case 'CannedMessageUsed':
      await canned.updateOne(guard, { $inc: { usageCount: 1 }, $set: { lastUsed: at, _revision: rev } });
      return;
    case 'CannedMessageDeleted':
      await canned.deleteOne({ _id: id });
      return;
  }
}

/** Serves the canned-messages screen, the quick-messages panel and #shortcode suggestions. */
export const cannedProjection: Projection = {
  name: 'canned',
  version: 1,
  collections: [CANNED],
  async setup(store: ReadStore) {
    await store.collection(CANNED).createIndex({ keys: { shortcode: 1 }, unique: true });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (recorded.streamId.startsWith('canned-')) return applyCanned(recorded, store);
    const event = recorded as unknown as RecordedEvent & (UserEvent | CategoryEvent);
    const canned = store.collection<CannedView>(CANNED);
    if (event.type === 'CategoryUpdated' && event.data.changes.name !== undefined) {
      await canned.updateMany({ 'category._id': event.data.categoryId }, { $set: { 'category.name': event.data.changes.name } });
    } else if (event.type === 'CategoryDeleted') {
      await canned.updateMany({ 'category._id': event.data.categoryId }, { $set: { category: null } });
    } else if (event.type === 'UserDetailsUpdated') {
      const { firstName, lastName } = event.data.changes;
      const set = Object.fromEntries(Object.entries({ 'createdBy.firstName': firstName, 'createdBy.lastName': lastName }).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length > 0) await canned.updateMany({ 'createdBy._id': event.data.userId }, { $set: set });
    }
  },
};
