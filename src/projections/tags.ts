import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

const TAGS = 'ticket_tags_v1';

/** A tag in use, with how many tickets carry it (docs/teams.md): the tag field's suggestions. */
interface TagView extends Doc {
  uses: number;
  /** The log position last counted: a page applied again counts nothing twice. */
  position: number;
}

async function count(store: ReadStore, event: { data: { tag: string }; position: number }, by: 1 | -1) {
  const tags = store.collection<TagView>(TAGS);
  await tags.updateOne({ _id: event.data.tag }, { $setOnInsert: { uses: 0, position: 0 } }, { upsert: true });
  await tags.updateOne({ _id: event.data.tag, position: { $lt: event.position } }, { $inc: { uses: by }, $set: { position: event.position } });
}

/**
 * Serves GET /api/tags. A deleted ticket's tags stay counted: a tag once used stays suggested, and the
 * count is an order for suggestions, not a statistic.
 */
export const tagsProjection: Projection = {
  name: 'tags',
  version: 1,
  collections: [TAGS],
  ...handledBy({
    TicketTagAdded: (event, store) => count(store, event, 1),
    TicketTagRemoved: (event, store) => count(store, event, -1),
  }),
};

/** The tags in use that start with `prefix`, most used first. */
export async function tagSuggestions(store: ReadStore, prefix: string, limit: number): Promise<Array<{ tag: string; uses: number }>> {
  const found = await store
    .collection<TagView>(TAGS)
    .find(prefix ? { _id: { $gte: prefix, $lt: `${prefix}\uffff` } } : {}, { sort: { uses: -1, _id: 1 }, limit });
  return found.filter((view) => view.uses > 0).map((view) => ({ tag: view._id, uses: view.uses }));
}
