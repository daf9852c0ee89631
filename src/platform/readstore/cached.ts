import { Query } from 'mingo';
import { type AnyObject, applyUpdate, clone, upsertDocument } from './documents';
import type { BulkOp, BulkResult, Collection, Doc, Filter, FindOptions, ReadStore, Update, UpdateResult } from './port';

/** What the writes of a call were foreseen to do, to be checked against what the store answers. */
interface Foreseen {
  /** The documents they leave, by id (null: none), for the ids whose outcome is known. */
  next: Map<string, Doc | null>;
  /** The counts, when every write's outcome was known (else null: nothing to check them against). */
  counts: Pick<BulkResult, 'matched' | 'upserted' | 'inserted' | 'deleted'> | null;
}

const idOf = (filter: Filter): string | null => (typeof filter._id === 'string' ? filter._id : null);
const byIdAlone = (filter: Filter) => idOf(filter) !== null && Object.keys(filter).length === 1;

/** The ids a filter of `_id` alone names (`{ _id }` or `{ _id: { $in } }` of strings), else null. */
function idsOf(filter: Filter): string[] | null {
  if (Object.keys(filter).length !== 1) return null;
  if (typeof filter._id === 'string') return [filter._id];
  const condition = filter._id as { $in?: unknown } | undefined;
  if (!condition || typeof condition !== 'object' || Object.keys(condition).length !== 1 || !Array.isArray(condition.$in)) return null;
  return condition.$in.every((id) => typeof id === 'string') ? (condition.$in as string[]) : null;
}

const COMPARISONS: Record<string, (value: number, bound: number) => boolean> = {
  $lt: (value, bound) => value < bound,
  $lte: (value, bound) => value <= bound,
  $gt: (value, bound) => value > bound,
  $gte: (value, bound) => value >= bound,
};

/**
 * One top-level condition of the projections' guards (a number or string equal, or one comparison
 * of numbers) decided directly; null for anything else, which mingo decides (building its query was
 * a tenth of the cache's cost per message).
 */
function simply(value: unknown, condition: unknown): boolean | null {
  // An array matches when one of its items does: mingo's to decide.
  if (Array.isArray(value)) return null;
  if (typeof condition === 'number' || typeof condition === 'string') return value === condition;
  if (condition === null || typeof condition !== 'object') return null;
  const entries = Object.entries(condition);
  if (entries.length !== 1) return null;
  const [operator, bound] = entries[0]!;
  const compare = COMPARISONS[operator];
  if (!compare || typeof bound !== 'number') return null;
  return typeof value === 'number' && compare(value, bound);
}

function matches(doc: Doc, filter: Filter): boolean {
  const fields = doc as unknown as AnyObject;
  let all = true;
  for (const [key, condition] of Object.entries(filter)) {
    const decided = key.startsWith('$') || key.includes('.') ? null : simply(fields[key], condition);
    if (decided === null) return new Query(filter).test(fields);
    all &&= decided;
  }
  return all;
}

const withoutSetOnInsert = ({ $setOnInsert: _ignored, ...update }: Update): Update => update;

/**
 * The documents by id as the one writer of a shared store last read or wrote them (the leader of
 * docs/read-models.md, "One writer on a shared store"), per collection, the most recently used
 * `perCollection` of each. It holds only while nobody else writes: the runner makes one per
 * leadership, uses it for live pages only and clears it when a page fails.
 */
export class DocumentCache {
  private readonly collections = new Map<string, Map<string, Doc | null>>();
  /** Collections read by id through the cache: only these keep a document a write made that was not cached. */
  private readonly read = new Set<string>();
  /** Writes sent per collection: a read that a write overtook does not keep what it read. */
  private readonly writes = new Map<string, number>();
  private cleared = 0;

  constructor(readonly perCollection = 2000) {}

  readById(name: string): void {
    this.read.add(name);
  }

  isReadById(name: string): boolean {
    return this.read.has(name);
  }

  /** Counts the writes sent to `name` and the clearings: a read overtaken by either keeps nothing. */
  writesOf(name: string): number {
    return (this.writes.get(name) ?? 0) + this.cleared;
  }

  wrote(name: string): void {
    this.writes.set(name, this.writesOf(name) + 1);
  }

  entries(name: string): Map<string, Doc | null> {
    let entries = this.collections.get(name);
    if (!entries) this.collections.set(name, (entries = new Map()));
    return entries;
  }

  clear(): void {
    this.collections.clear();
    this.read.clear();
    this.cleared += 1;
  }
}

/**
 * A read store whose reads by id (`findOne({ _id })`, `find({ _id: { $in } })`, no options) are
 * answered from a `DocumentCache` where it knows the documents (present or absent), and whose
 * writes move the cached documents as the store does: each write is foreseen on the cached copy (its
 * filter matched with mingo, its update applied as the embedded stores apply it), and once the store
 * answered, the foreseen documents are kept when its counts agree (or could not be known), dropped
 * when they do not. A write the cache cannot foresee (`updateMany`, `deleteMany`, a filter without
 * an id) drops the collection's documents. On MongoDB the projections' reads of a page, which the
 * writes of the pages before mostly made, then cost no round trip.
 */
export class CachedReadStore implements ReadStore {
  constructor(
    private readonly store: ReadStore,
    private readonly cache: DocumentCache,
  ) {}

  get kind(): ReadStore['kind'] {
    return this.store.kind;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new CachedCollection<T>(this.store.collection<T>(name), this.cache);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

class CachedCollection<T extends Doc> implements Collection<T> {
  private readonly entries: Map<string, Doc | null>;

  constructor(
    private readonly inner: Collection<T>,
    private readonly cache: DocumentCache,
  ) {
    this.entries = cache.entries(inner.name);
  }

  get name(): string {
    return this.inner.name;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const [id] = (byIdAlone(filter) && idsOf(filter)) || [];
    if (id === undefined) return this.inner.findOne(filter);
    return (await this.byIds([id]))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const ids = Object.keys(options).length === 0 ? idsOf(filter) : null;
    return ids ? this.byIds(ids) : this.inner.find(filter, options);
  }

  /** The documents of `ids` (those that exist), reading those not cached in one query. */
  private async byIds(ids: string[]): Promise<T[]> {
    const wanted = [...new Set(ids)];
    const missing = wanted.filter((id) => !this.entries.has(id));
    const read = new Map<string, Doc>();
    if (missing.length > 0) {
      this.cache.readById(this.inner.name);
      const writes = this.cache.writesOf(this.inner.name);
      for (const doc of await this.inner.find({ _id: missing.length === 1 ? missing[0] : { $in: missing } })) read.set(doc._id, doc);
      // A write sent meanwhile may have landed before or after this read: what it read is answered, not kept.
      if (this.cache.writesOf(this.inner.name) === writes) for (const id of missing) this.remember(id, read.get(id) ?? null);
    }
    const found: T[] = [];
    for (const id of wanted) {
      const doc = this.entries.has(id) ? this.recall(id) : (read.get(id) ?? null);
      if (doc) found.push(clone(doc) as T);
    }
    return found;
  }

  count(filter?: Filter): Promise<number> {
    return this.inner.count(filter);
  }

  aggregate<R = Record<string, unknown>>(pipeline: Record<string, unknown>[]): Promise<R[]> {
    return this.inner.aggregate<R>(pipeline);
  }

  createIndex(spec: Parameters<Collection<T>['createIndex']>[0]): Promise<void> {
    return this.inner.createIndex(spec);
  }

  async drop(): Promise<void> {
    this.entries.clear();
    await this.inner.drop();
  }

  async insertOne(doc: T): Promise<void> {
    await this.written(
      [{ insertOne: { document: doc } }],
      () => this.inner.insertOne(doc),
      () => ({ inserted: 1 }),
    );
  }

  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.written([{ updateOne: { filter, update, upsert: options?.upsert } }], () => this.inner.updateOne(filter, update, options), counted);
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.written([{ updateMany: { filter, update } }], () => this.inner.updateMany(filter, update), counted);
  }

  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult> {
    return this.written([{ replaceOne: { filter, replacement: doc, upsert: options?.upsert } }], () => this.inner.replaceOne(filter, doc, options), counted);
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.written(
      [{ deleteOne: { filter } }],
      () => this.inner.deleteOne(filter),
      (deleted) => ({ deleted }),
    );
  }

  deleteMany(filter: Filter = {}): Promise<number> {
    return this.written(
      [{ deleteMany: { filter } }],
      () => this.inner.deleteMany(filter),
      (deleted) => ({ deleted }),
    );
  }

  bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult> {
    return this.written(
      ops as BulkOp[],
      () => this.inner.bulkWrite(ops),
      (result) => result,
    );
  }

  private recall(id: string): Doc | null {
    const doc = this.entries.get(id) ?? null;
    // Most recently used last: the first entries are the ones let go.
    this.entries.delete(id);
    this.entries.set(id, doc);
    return doc;
  }

  /** Keeps `doc` as it is: a document just read, or a copy the cache made; callers get copies of it. */
  private remember(id: string, doc: Doc | null): void {
    this.entries.delete(id);
    this.entries.set(id, doc);
    if (this.entries.size > this.cache.perCollection) this.entries.delete(this.entries.keys().next().value!);
  }

  private async written<R>(ops: BulkOp[], write: () => Promise<R>, counts: (result: R) => Partial<BulkResult>): Promise<R> {
    const foreseen = this.foresee(ops);
    // Until the store answers, the documents written are not known: a read meanwhile goes to the store.
    const before = new Map<string, Doc | null>();
    for (const op of ops) {
      const id = idOf(filterOf(op));
      if (id === null || !this.entries.has(id)) continue;
      before.set(id, this.entries.get(id)!);
      this.entries.delete(id);
    }
    if (!foreseen) this.entries.clear();
    this.cache.wrote(this.inner.name);
    const result = await write();
    if (!foreseen) return result;
    const answered = counts(result);
    const agree = !foreseen.counts || (['matched', 'upserted', 'inserted', 'deleted'] as const).every((key) => (answered[key] ?? 0) === foreseen.counts![key]);
    if (!agree) return result;
    // A write whose filter did not match left its document as it was.
    for (const [id, doc] of before) if (!foreseen.next.has(id)) this.remember(id, doc);
    for (const [id, doc] of foreseen.next) this.remember(id, doc);
    return result;
  }

  /** What `ops` do to the cached documents, in order; null when one of them is no write by id. */
  private foresee(ops: BulkOp[]): Foreseen | null {
    const next = new Map<string, Doc | null>();
    const counts = { matched: 0, upserted: 0, inserted: 0, deleted: 0 };
    let known = true;
    // A document not cached that a write makes whole is kept only where documents are read by id (not a conversation's messages).
    const keeps = this.cache.isReadById(this.inner.name);
    const now = (id: string): Doc | null | undefined => (next.has(id) ? next.get(id) : this.entries.get(id));
    const unknown = (id: string) => {
      next.delete(id);
      known = false;
    };
    for (const op of ops) {
      if ('updateMany' in op || 'deleteMany' in op) return null;
      if ('insertOne' in op) {
        const doc = op.insertOne.document;
        const current = now(doc._id);
        if (current !== undefined && current !== null) return null;
        if (current === null) counts.inserted += 1;
        else known = false;
        if (current === null || keeps) next.set(doc._id, clone(doc));
        continue;
      }
      const filter = filterOf(op);
      const id = idOf(filter);
      if (id === null) return null;
      const current = now(id);
      if ('replaceOne' in op) {
        const { replacement, upsert } = op.replaceOne;
        const replaced = { ...clone(replacement), _id: id };
        if (current === undefined) {
          // An upsert by id alone leaves the replacement, whatever was there.
          if (upsert && byIdAlone(filter) && keeps) {
            next.set(id, replaced);
            known = false;
          } else unknown(id);
        } else if (current !== null && matches(current, filter)) {
          counts.matched += 1;
          next.set(id, replaced);
        } else if (current === null && upsert) {
          counts.upserted += 1;
          next.set(id, replaced);
        } else if (current !== null && upsert) return null;
        continue;
      }
      if ('updateOne' in op) {
        const { update, upsert } = op.updateOne;
        if (current === undefined) unknown(id);
        else if (current !== null && matches(current, filter)) {
          const doc = clone(current) as unknown as AnyObject;
          applyUpdate(doc, withoutSetOnInsert(update));
          counts.matched += 1;
          next.set(id, doc as unknown as Doc);
        } else if (current === null && upsert) {
          counts.upserted += 1;
          next.set(id, upsertDocument(filter, update) as unknown as Doc);
        } else if (current !== null && upsert) return null;
        continue;
      }
      if (current === undefined) unknown(id);
      else if (current !== null && matches(current, filter)) {
        counts.deleted += 1;
        next.set(id, null);
      }
    }
    return { next, counts: known ? counts : null };
  }
}

function filterOf(op: BulkOp): Filter {
  if ('insertOne' in op) return { _id: op.insertOne.document._id };
  if ('updateOne' in op) return op.updateOne.filter;
  if ('replaceOne' in op) return op.replaceOne.filter;
  if ('deleteOne' in op) return op.deleteOne.filter;
  if ('updateMany' in op) return op.updateMany.filter;
  return op.deleteMany.filter;
}

const counted = (result: UpdateResult): Partial<BulkResult> => ({ matched: result.matched, upserted: result.upsertedId === null ? 0 : 1 });
