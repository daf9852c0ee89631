import { MemoryReadStore } from '../platform/readstore/memory';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';

/**
 * A replay from nothing in batches (docs/read-models.md "Replay in batches"): the projections apply
 * their catch-up pages to `models`, the whole read models held in memory (they started empty, and
 * only this writer writes them), so no page reads the store; `take` then answers the writes of each
 * document the batch made, changed or deleted, once, one bulk write per collection: each replaced by
 * id (upserted when new), the deleted ones deleted; the runner sends them while the next batch is applied. On MongoDB a batch of tens of thousands of events costs a
 * command or two per collection instead of a few per page, and none of them a read. (Inserted rather
 * than upserted, the documents left the fast server of docs/benchmark.md slower on every later command
 * of the chat: 4-8 times, then 2 times at 5,000 tickets, "The replay's new documents inserted".)
 */
export class CatchUpBatch {
  /** The ids written since the last flush, per collection, in the order the collections were last written. */
  private readonly changed = new Map<string, Set<string>>();
  /** The ids the store holds, per collection (it held none when the batch began). */
  private readonly stored = new Map<string, Set<string>>();
  /** The projection that writes each collection: the writes of different projections go at once. */
  private readonly owners = new Map<string, string>();
  /** The collection written last, with its ids: most writes follow one of the same collection. */
  private last: { collection: string; ids: Set<string> } | null = null;
  readonly models = new MemoryReadStore((collection, id) => {
    if (this.last?.collection === collection) {
      this.last.ids.add(id);
      return;
    }
    const ids = this.changed.get(collection) ?? new Set<string>();
    // Moved to the end: the map's order is that of each collection's last write.
    this.changed.delete(collection);
    this.changed.set(collection, ids.add(id));
    this.last = { collection, ids };
  });
  /** The log position each projection has applied to `models`. */
  readonly positions = new Map<string, number>();
  /** Events applied to `models` since the last flush. */
  events = 0;
  /** Documents the store holds once flushed. */
  documents = 0;

  constructor(projections: ReadonlyArray<{ name: string; collections: readonly string[] }>) {
    for (const { name, collections } of projections) {
      this.positions.set(name, 0);
      for (const collection of collections) this.owners.set(collection, name);
    }
  }

  /**
   * Takes what changed since the last flush (copies of the documents, so the models may go on with
   * the next batch meanwhile) and answers the writes that store it: each projection's collections
   * one at a time in the order of their last writes, the projections at once. A page writes children
   * before the document whose revision guards them (docs/read-models.md "A crash anywhere in a page"),
   * so a guard's last write comes after its children's, and a crash between two collections leaves no
   * guard ahead of what it guards. (In the order of their first writes, a ticket whose status changed
   * in the batch's first page was written before the messages of its later pages: a crash between them
   * lost those messages.) A projection's guards guard only its own collections, so the projections'
   * writes need no order among them: a crash leaves each a prefix of its own. Within a collection the
   * writes are grouped by kind (replacements, then deletions), so an ordered bulk write costs as few
   * commands as an unordered one, and a crash leaves a prefix of it done. The writes settle all
   * before the answer does, failed or not: the checkpoints move only after every one of them landed.
   */
  async take(): Promise<(store: ReadStore) => Promise<void>> {
    const byProjection = new Map<string, Array<{ name: string; ops: BulkOp[] }>>();
    for (const [name, ids] of this.changed) {
      const stored = this.stored.get(name) ?? new Set<string>();
      this.stored.set(name, stored);
      const docs = await this.models.collection(name).find({ _id: { $in: [...ids] } });
      const present = new Set(docs.map((doc) => doc._id));
      const ops: BulkOp[] = [
        ...docs.map((doc): BulkOp => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: !stored.has(doc._id) } })),
        ...[...ids].filter((id) => !present.has(id) && stored.has(id)).map((id): BulkOp => ({ deleteOne: { filter: { _id: id } } })),
      ];
      this.documents -= stored.size;
      for (const id of ids)
        if (present.has(id)) stored.add(id);
        else stored.delete(id);
      this.documents += stored.size;
      // A collection of no projection's list goes in a sequence of its own.
      const owner = this.owners.get(name) ?? `collection ${name}`;
      if (ops.length > 0) byProjection.set(owner, [...(byProjection.get(owner) ?? []), { name, ops }]);
    }
    this.changed.clear();
    this.last = null;
    return async (store) => {
      const writes = [...byProjection.values()].map(async (sequence) => {
        for (const { name, ops } of sequence) await store.collection<Doc>(name).bulkWrite(ops);
      });
      const failed = (await Promise.allSettled(writes)).find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    };
  }
}
