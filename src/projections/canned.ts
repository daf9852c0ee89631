import type { Doc, ReadStore } from '../platform/readstore/port';
import { findCategory, findPerson } from './directory';
import { handledBy } from './events';
import type { Projection } from './runner';
import { type HoldsKeys, type UniqueKey, settleKey } from './uniqueKeys';

export const CANNED = 'canned_messages_v1';

/** A canned message as docs/contract.md returns it, plus the revision guard. */
export interface CannedView extends Doc, HoldsKeys {
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

const categoryRef = async (store: ReadStore, categoryId: string | null) =>
  categoryId ? { _id: categoryId, name: (await findCategory(store, categoryId)).name } : null;

const SHORTCODE: UniqueKey = { projection: 'canned', collection: CANNED, field: 'shortcode' };

const canned = (store: ReadStore) => store.collection<CannedView>(CANNED);
const guard = (event: { data: { cannedId: string }; revision: number }) => ({ _id: event.data.cannedId, _revision: { $lt: event.revision } });

/** Serves the canned-messages screen, the quick-messages panel and #shortcode suggestions. */
export const cannedProjection: Projection = {
  name: 'canned',
  version: 2,
  // The author's and category's names are looked up in the directory while applying.
  reads: ['directory'],
  collections: [CANNED],
  async setup(store: ReadStore) {
    // Not unique: two messages the log gives one shortcode are both kept, and the conflict recorded (uniqueKeys.ts).
    await store.collection(CANNED).createIndex({ keys: { shortcode: 1 } });
  },
  ...handledBy({
    async CannedMessageCreated(event, store) {
      const { shortcode, title, content, categoryId, createdBy } = event.data;
      const at = event.metadata.occurredAt;
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
        _since: { shortcode: event.position },
        _revision: event.revision,
      };
      await canned(store).updateOne({ _id: event.data.cannedId }, { $setOnInsert: view }, { upsert: true });
      await settleKey(store, SHORTCODE, [shortcode], event);
    },
    async CannedMessageUpdated(event, store) {
      const { categoryId, ...rest } = event.data.changes;
      const category = categoryId === undefined ? {} : { category: await categoryRef(store, categoryId) };
      const since = rest.shortcode === undefined ? {} : { '_since.shortcode': event.position };
      await canned(store).updateOne(guard(event), {
        $set: { ...rest, ...category, ...since, updatedAt: event.metadata.occurredAt, _revision: event.revision },
      });
      if (rest.shortcode !== undefined) await settleKey(store, SHORTCODE, [event.data.previous.shortcode, rest.shortcode], event);
    },
    async CannedMessageUsed(event, store) {
      await canned(store).updateOne(guard(event), { $inc: { usageCount: 1 }, $set: { lastUsed: event.metadata.occurredAt, _revision: event.revision } });
    },
    async CannedMessageDeleted(event, store) {
      await canned(store).deleteOne({ _id: event.data.cannedId });
      await settleKey(store, SHORTCODE, [event.data.shortcode], event);
    },
    // Names shown on canned messages follow their category and author.
    async CategoryUpdated(event, store) {
      if (event.data.changes.name !== undefined)
        await canned(store).updateMany({ 'category._id': event.data.categoryId }, { $set: { 'category.name': event.data.changes.name } });
    },
    async CategoryDeleted(event, store) {
      await canned(store).updateMany({ 'category._id': event.data.categoryId }, { $set: { category: null } });
    },
    async UserDetailsUpdated(event, store) {
      const { firstName, lastName } = event.data.changes;
      const set = Object.fromEntries(Object.entries({ 'createdBy.firstName': firstName, 'createdBy.lastName': lastName }).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length > 0) await canned(store).updateMany({ 'createdBy._id': event.data.userId }, { $set: set });
    },
  }),
};
