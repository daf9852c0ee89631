import type { RecordedEvent } from '../platform/eventstore/port';
import { noWrites } from '../platform/readstore/port';
import type { BulkOp, Collection, Doc, Filter, FindOptions, ReadStore, Update, UpdateResult } from '../platform/readstore/port';
import type { Projection } from './runner';

/**
 * Writes sent at once that must all be done before what comes after them: waits for every one to
 * settle (none is still in flight when the page is applied again), then fails with the first failure.
 */
export async function together<T extends unknown[]>(...writes: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const outcomes = await Promise.allSettled(writes);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as T;
}

/** What a buffered write answers: the count is not known until the page is written, and no handler given here reads it. */
const UNKNOWN: UpdateResult = { matched: 0, modified: 0, upsertedId: null };

/** The revision of a guarded `$set` (`{ _id, _revision: { $lt: r } }`, `{ $set: { ..., _revision: r } }`: "apply event r once"), else null. */
function guardedRevision(op: BulkOp | undefined): number | null {
  if (!op || !('updateOne' in op) || op.updateOne.upsert) return null;
  const { filter, update } = op.updateOne;
  const guard = filter._revision as { $lt?: unknown } | undefined;
  const set = update.$set as Record<string, unknown> | undefined;
  if (typeof filter._id !== 'string' || Object.keys(filter).length !== 2 || Object.keys(update).length !== 1 || !set) return null;
  if (typeof guard?.$lt !== 'number' || Object.keys(guard).length !== 1 || set._revision !== guard.$lt) return null;
  return guard.$lt;
}

/**
 * Two guarded `$set`s of one document in a row (no write of the collection between them) as one:
 * the fields of both, guarded by the later revision. Where the first applies, so does the later and
 * the result is the same; where only the later does (a page applied again after a crash that wrote
 * part of it), the first's fields hold its values already, since no write between changed them.
 * Satisfaction's ticket entries take one write a page instead of one an event.
 */
function merged(previous: BulkOp | undefined, next: BulkOp): BulkOp | null {
  const before = guardedRevision(previous);
  const after = guardedRevision(next);
  if (before === null || after === null || after <= before) return null;
  const first = (previous as Extract<BulkOp, { updateOne: unknown }>).updateOne;
  const second = (next as Extract<BulkOp, { updateOne: unknown }>).updateOne;
  if (first.filter._id !== second.filter._id) return null;
  return { updateOne: { filter: second.filter, update: { $set: { ...first.update.$set, ...second.update.$set } } } };
}

/**
 * A read store that holds the writes of a page and sends them as one ordered `bulkWrite` per
 * collection. A read of a collection first writes what is held for it, so a handler reads what the
 * events before it wrote, as it would event by event; writes to other collections stay held (what a
 * read answers depends on its own collection only).
 */
class PageWrites implements ReadStore {
  readonly kind: ReadStore['kind'];
  private readonly held = new Map<string, BulkOp[]>();
  /**
   * Each collection's view, made once a page: a handler asks for its collections at every event, and
   * a view is a dozen closures (run by tsx, which names each one, two thirds of the satisfaction
   * fold's time in the profile of a replay).
   */
  private readonly views = new Map<string, Collection>();

  constructor(private readonly store: ReadStore) {
    this.kind = store.kind;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    const made = this.views.get(name);
    if (made) return made as unknown as Collection<T>;
    const view = this.view<T>(name);
    this.views.set(name, view as unknown as Collection);
    return view;
  }

  private view<T extends Doc>(name: string): Collection<T> {
    const target = this.store.collection<T>(name);
    const hold = (op: BulkOp) => {
      const ops = this.held.get(name) ?? [];
      const both = merged(ops.at(-1), op);
      if (both) ops[ops.length - 1] = both;
      else ops.push(op);
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
