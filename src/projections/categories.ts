import type { CategoryEvent } from '../domain/category/category';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const CATEGORIES = 'categories_v1';

export interface CategoryView extends Doc {
  name: string;
  description: string;
  color: string;
  order: number;
  isActive: boolean;
  customFields: Array<Record<string, unknown>>;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

/** Serves GET /api/categories: one document per live category, deleted ones removed. */
export const categoriesProjection: Projection = {
  name: 'categories',
  version: 1,
  collections: [CATEGORIES],
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (!recorded.streamId.startsWith('category-')) return;
    const event = recorded as unknown as RecordedEvent & CategoryEvent;
    const categories = store.collection<CategoryView>(CATEGORIES);
    const at = recorded.metadata.occurredAt;
    const id = event.data.categoryId;
    const guard = { _id: id, _revision: { $lt: recorded.revision } };
    switch (event.type) {
      case 'CategoryCreated': {
        const { categoryId: _id, ...details } = event.data;
        await categories.updateOne({ _id: id }, { $setOnInsert: { ...details, createdAt: at, updatedAt: at, _revision: recorded.revision } }, { upsert: true });
        return;
      }
      case 'CategoryUpdated':
        await categories.updateOne(guard, { $set: { ...event.data.changes, updatedAt: at, _revision: recorded.revision } });
        return;
      case 'CategoryReordered':
        await categories.updateOne(guard, { $set: { order: event.data.order, updatedAt: at, _revision: recorded.revision } });
        return;
      case 'CategoryDeleted':
        await categories.deleteOne({ _id: id });
        return;
    }
  },
};
