import type { MacroAction } from '#contract/macros';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { findPerson } from './directory';
import { handledBy } from './events';
import type { Projection } from './runner';

export const MACROS = 'macros_v1';

/** A macro as the API returns it, plus the revision guard. */
export interface MacroView extends Doc {
  name: string;
  shortcode: string;
  reply: string;
  actions: MacroAction[];
  shared: boolean;
  version: number;
  owner: { _id: string; firstName: string; lastName: string };
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

const macros = (store: ReadStore) => store.collection<MacroView>(MACROS);
const guard = (event: { data: { macroId: string }; revision: number }) => ({ _id: event.data.macroId, _revision: { $lt: event.revision } });

/** Serves the macros screen, the composer's Macros menu and `#shortcode` suggestions; a personal macro is filtered to its owner at read time. */
export const macrosProjection: Projection = {
  name: 'macros',
  version: 1,
  // The owner's name is looked up in the directory while applying.
  reads: ['directory'],
  collections: [MACROS],
  async setup(store: ReadStore) {
    await store.collection(MACROS).createIndex({ keys: { shortcode: 1 } });
  },
  ...handledBy({
    async MacroCreated(event, store) {
      const { macroId: _id, ownerId, ...details } = event.data;
      const at = event.metadata.occurredAt;
      const owner = await findPerson(store, ownerId);
      const view: Omit<MacroView, '_id'> = {
        ...details,
        owner: { _id: ownerId, firstName: owner.firstName, lastName: owner.lastName },
        createdAt: at,
        updatedAt: at,
        _revision: event.revision,
      };
      await macros(store).updateOne({ _id: event.data.macroId }, { $setOnInsert: view }, { upsert: true });
    },
    async MacroUpdated(event, store) {
      await macros(store).updateOne(guard(event), {
        $set: { ...event.data.changes, version: event.data.version, updatedAt: event.metadata.occurredAt, _revision: event.revision },
      });
    },
    async MacroDeleted(event, store) {
      await macros(store).deleteOne({ _id: event.data.macroId });
    },
    async UserDetailsUpdated(event, store) {
      const { firstName, lastName } = event.data.changes;
      const set = Object.fromEntries(Object.entries({ 'owner.firstName': firstName, 'owner.lastName': lastName }).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length > 0) await macros(store).updateMany({ 'owner._id': event.data.userId }, { $set: set });
    },
  }),
};
