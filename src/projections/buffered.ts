import type { RecordedEvent } from '../platform/eventstore/port';
import { noWrites } from '../platform/readstore/port';
import type { BulkOp, Collection, Doc, Filter, FindOptions, ReadStore, Update, UpdateResult } from '../platform/readstore/port';
import type { Projection } from './runner';

/** What a buffered write answers: the count is not known until the page is written, and no handler given here reads it. */
const UNKNOWN: UpdateResult = { matched: 0, modified: 0, upsertedId: null };

/**
 * A read store that holds the writes of a page and sends them as one ordered `bulkWrite` per
 * collection. A read of a collection first writes what is held for it, so a handler reads what the
 * events before it wrote, as it would event by event; writes to other collections stay held (what a
 * read answers depends on its own collection only).
 */
class PageWrites implements ReadStore {
  readonly kind: ReadStore['kind'];
  private readonly held = new Map<string, BulkOp[]>();

  constructor(private readonly store: ReadStore) {
    this.kind = store.kind;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    const target = this.store.collection<T>(name);
    const hold = (op: BulkOp) => {
      const ops = this.held.get(name) ?? [];
      ops.push(op);
      this.held.set(name, ops);
    };
    const written = () => this.flush(name);
    return {
      name,
      findOne: async (filter: Filter) => (await written(), target.findOne(filter)),
      find: async (filter: Filter, options?: FindOptions) => (await written(), target.find(filter, options)),
      count: async (filter?: Filter) => (await written(), target.count(filter)),
      aggregate: async (pipeline) => (await written(), target.aggregate(pipeline)),
      insertOne: async (document: T) => hold({ insertOne: { document } }),
      updateOne: async (filter: Filter, update: Update, options?: { upsert?: boolean }) => (
        hold({ updateOne: { filter, update, upsert: options?.upsert } }),
        UNKNOWN
      ),
      updateMany: async (filter: Filter, update: Update) => (hold({ updateMany: { filter, update } }), UNKNOWN),
      replaceOne: async (filter: Filter, replacement: T, options?: { upsert?: boolean }) => (
        hold({ replaceOne: { filter, replacement, upsert: options?.upsert } }),
        UNKNOWN
      ),
      deleteOne: async (filter: Filter) => (hold({ deleteOne: { filter } }), 0),
      deleteMany: async (filter?: Filter) => (hold({ deleteMany: { filter: filter ?? {} } }), 0),
      // Held like any write: its counts are not known until the page is written (see UNKNOWN).
      bulkWrite: async (ops: BulkOp<T>[]) => {
        for (const op of ops) hold(op as BulkOp);
        return noWrites();
      },
      createIndex: async (spec) => (await written(), target.createIndex(spec)),
      drop: async () => (await written(), target.drop()),
    };
  }

  /** Writes what is held for `name` (all collections when absent, `last` after the others), in the order it was written. */
  async flush(name?: string, last: readonly string[] = []): Promise<void> {
    const all = () => [...[...this.held.keys()].filter((held) => !last.includes(held)), ...last];
    for (const collection of name === undefined ? all() : [name]) {
      const ops = this.held.get(collection);
      if (!ops) continue;
      this.held.delete(collection);
      await this.store.collection(collection).bulkWrite(ops);
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Runs `apply` against a store that holds its writes, then sends them (one bulk write per collection).
 * A crash may leave any prefix of the collections written: a projection whose guard (the revision a
 * document has applied) lives in one collection and guards writes to others names it in `last`, so the
 * guard never moves before what it guards is written.
 */
export async function withHeldWrites(store: ReadStore, apply: (page: ReadStore) => Promise<void>, last: readonly string[] = []): Promise<void> {
  const page = new PageWrites(store);
  await apply(page);
  await page.flush(undefined, last);
}

/**
 * A projection written event by event, applied a page at a time: its handlers run in log order
 * against a store that holds their writes, sent as one bulk write per collection at the end of the
 * page (or before a read of that collection). On MongoDB a page of the users, directory,
 * satisfaction or webhooks models costs a round trip per collection instead of one per write.
 * A failed write fails the page, which the runner then applies event by event to record exactly the
 * failing event (each write is guarded, so those already done stay as they are).
 */
export function applyingPages(projection: Projection): Projection {
  if (projection.applyPage) return projection;
  return {
    ...projection,
    applyPage: (events: RecordedEvent[], store: ReadStore) =>
      withHeldWrites(store, async (page) => {
        for (const event of events) await projection.apply(event, page);
      }),
  };
}
