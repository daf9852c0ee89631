import type { Doc, ReadStore } from '../platform/readstore/port';
import type { ViewDetails } from '../domain/view/view';
import { handledBy } from './events';
import type { Projection } from './runner';

export const VIEWS = 'views_v1';

/** A saved view as the API returns it, plus the revision guard. */
export interface ViewView extends Doc, ViewDetails {
  ownerId: string;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

const views = (store: ReadStore) => store.collection<ViewView>(VIEWS);

/** Serves Live Tickets' views list and the live counts (docs/views.md); who sees which is decided at read time. */
export const viewsProjection: Projection = {
  name: 'views',
  version: 1,
  collections: [VIEWS],
  async setup(store: ReadStore) {
    await store.collection(VIEWS).createIndex({ keys: { scope: 1, teamId: 1, ownerId: 1 } });
  },
  ...handledBy({
    async ViewCreated(event, store) {
      const { viewId: _id, ...view } = event.data;
      const at = event.metadata.occurredAt;
      await views(store).updateOne(
        { _id: event.data.viewId },
        { $setOnInsert: { ...view, createdAt: at, updatedAt: at, _revision: event.revision } },
        { upsert: true },
      );
    },
    async ViewUpdated(event, store) {
      await views(store).updateOne(
        { _id: event.data.viewId, _revision: { $lt: event.revision } },
        { $set: { ...event.data.changes, updatedAt: event.metadata.occurredAt, _revision: event.revision } },
      );
    },
    async ViewDeleted(event, store) {
      await views(store).deleteOne({ _id: event.data.viewId });
    },
  }),
};
