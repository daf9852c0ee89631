import type { CustomField } from '#contract/categories';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const CATEGORIES = 'categories_v1';

export interface CategoryView extends Doc {
  name: string;
  description: string;
  color: string;
  order: number;
  isActive: boolean;
  customFields: CustomField[];
  routeTeamId?: string | null;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

const update = (
  store: ReadStore,
  event: { data: { categoryId: string }; revision: number; metadata: { occurredAt: string } },
  fields: Record<string, unknown>,
) =>
  store
    .collection<CategoryView>(CATEGORIES)
    .updateOne(
      { _id: event.data.categoryId, _revision: { $lt: event.revision } },
      { $set: { ...fields, updatedAt: event.metadata.occurredAt, _revision: event.revision } },
    );

/** Serves GET /api/categories: one document per live category, deleted ones removed. */
export const categoriesProjection: Projection = {
  name: 'categories',
  version: 1,
  collections: [CATEGORIES],
  ...handledBy({
    async CategoryCreated(event, store) {
      const { categoryId: id, ...details } = event.data;
      const at = event.metadata.occurredAt;
      await store
        .collection<CategoryView>(CATEGORIES)
        .updateOne({ _id: id }, { $setOnInsert: { ...details, createdAt: at, updatedAt: at, _revision: event.revision } }, { upsert: true });
    },
    async CategoryUpdated(event, store) {
      await update(store, event, { ...event.data.changes });
    },
    async CategoryReordered(event, store) {
      await update(store, event, { order: event.data.order });
    },
    async CategoryDeleted(event, store) {
      await store.collection<CategoryView>(CATEGORIES).deleteOne({ _id: event.data.categoryId });
    },
  }),
};
