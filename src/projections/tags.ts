import { renameTag } from '../domain/ticket/ticket';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

const TAGS = 'ticket_tags_v2';
/** Per tagged ticket its tags, so a deleted ticket's tags leave the counts. */
const TAGGED = 'ticket_tag_sets_v1';

/** A tag in use, with how many tickets carry it (docs/teams.md): suggestions, the Tags tab and the dashboard. */
interface TagView extends Doc {
  uses: number;
  /** The log position last counted: a page applied again counts nothing twice. */
  position: number;
}

interface TaggedView extends Doc {
  tags: string[];
}

async function count(store: ReadStore, tag: string, position: number, by: 1 | -1) {
  const tags = store.collection<TagView>(TAGS);
  await tags.updateOne({ _id: tag }, { $setOnInsert: { uses: 0, position: 0 } }, { upsert: true });
  await tags.updateOne({ _id: tag, position: { $lt: position } }, { $inc: { uses: by }, $set: { position } });
}

/** Counts first, the ticket's tags after: a page applied again after a crash between them finds the counts already moved. */
async function retag(store: ReadStore, ticketId: string, change: (tags: string[]) => string[], moves: Array<[string, 1 | -1]>, position: number) {
  for (const [tag, by] of moves) await count(store, tag, position, by);
  const tagged = store.collection<TaggedView>(TAGGED);
  const before = (await tagged.findOne({ _id: ticketId }))?.tags ?? [];
  await tagged.replaceOne({ _id: ticketId }, { _id: ticketId, tags: change(before) }, { upsert: true });
}

/**
 * Serves GET /api/tags, the admin's Tags tab and the dashboard's top tags: the tickets that carry each
 * tag now (a deleted ticket's tags leave the counts; version 1 kept them).
 */
export const tagsProjection: Projection = {
  name: 'tags',
  version: 2,
  collections: [TAGS, TAGGED],
  ...handledBy({
    TicketTagAdded: ({ data, position }, store) => retag(store, data.ticketId, (tags) => [...new Set([...tags, data.tag])], [[data.tag, 1]], position),
    TicketTagRemoved: ({ data, position }, store) => retag(store, data.ticketId, (tags) => tags.filter((tag) => tag !== data.tag), [[data.tag, -1]], position),
    TicketTagRenamed: ({ data, position }, store) =>
      retag(
        store,
        data.ticketId,
        (tags) => renameTag(tags, data),
        data.alreadyTagged
          ? [[data.from, -1]]
          : [
              [data.from, -1],
              [data.to, 1],
            ],
        position,
      ),
    async TicketDeleted({ data, position }, store) {
      const found = await store.collection<TaggedView>(TAGGED).findOne({ _id: data.ticketId });
      if (!found) return;
      for (const tag of found.tags) await count(store, tag, position, -1);
      await store.collection<TaggedView>(TAGGED).deleteOne({ _id: data.ticketId });
    },
  }),
};

/** The tags in use that start with `prefix`, most used first. */
export async function tagSuggestions(store: ReadStore, prefix: string, limit: number): Promise<Array<{ tag: string; uses: number }>> {
  const found = await store
    .collection<TagView>(TAGS)
    .find(prefix ? { _id: { $gte: prefix, $lt: `${prefix}\uffff` } } : {}, { sort: { uses: -1, _id: 1 }, limit });
  return found.filter((view) => view.uses > 0).map((view) => ({ tag: view._id, uses: view.uses }));
}

/** How many tickets carry `tag` now (0 for a tag never used). */
export async function tagUses(store: ReadStore, tag: string): Promise<number> {
  return (await store.collection<TagView>(TAGS).findOne({ _id: tag }))?.uses ?? 0;
}
