/**
 * The ReadStore port: named collections speaking MongoDB's filter, update and aggregation language.
 * Read models are disposable (they can always be rebuilt from the log), so projections make each
 * write idempotent; `transaction` only lets a store that can (SQLite) commit a page of projection
 * writes with its checkpoint at once.
 */

export interface Doc {
  _id: string;
}
export type Filter = Record<string, unknown>;
export type Update = Partial<Record<'$set' | '$setOnInsert' | '$inc' | '$push' | '$pull' | '$unset' | '$addToSet' | '$max' | '$min', Record<string, unknown>>>;
export type Sort = Record<string, 1 | -1>;
type Projection = Record<string, 0 | 1>;
export type Pipeline = Record<string, unknown>[];

/** Text to match literally inside a `$regex` filter (user search input is never a pattern). */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Projection;
}

export interface UpdateResult {
  matched: number;
  modified: number;
  upsertedId: string | null;
}

/**
 * What a bulk write did, summed over its writes: so a caller whose guarded write matched nothing
 * (its document moved on meanwhile) learns it, instead of the write vanishing without a trace.
 */
export interface BulkResult {
  matched: number;
  modified: number;
  upserted: number;
  inserted: number;
  deleted: number;
}

export const noWrites = (): BulkResult => ({ matched: 0, modified: 0, upserted: 0, inserted: 0, deleted: 0 });

/** Adds one write's outcome to `total` (an update's result, a delete's count, or an insert). */
export function tally(total: BulkResult, outcome: UpdateResult | number | 'inserted'): BulkResult {
  if (outcome === 'inserted') total.inserted += 1;
  else if (typeof outcome === 'number') total.deleted += outcome;
  else {
    total.matched += outcome.matched;
    total.modified += outcome.modified;
    if (outcome.upsertedId !== null) total.upserted += 1;
  }
  return total;
}

export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
}

/** One write of a `bulkWrite`, as MongoDB's driver spells it. */
export type BulkOp<T extends Doc = Doc> =
  | { insertOne: { document: T } }
  | { updateOne: { filter: Filter; update: Update; upsert?: boolean } }
  | { updateMany: { filter: Filter; update: Update } }
  | { replaceOne: { filter: Filter; replacement: T; upsert?: boolean } }
  | { deleteOne: { filter: Filter } }
  | { deleteMany: { filter: Filter } };

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter): Promise<number>;
  insertOne(doc: T): Promise<void>;
  /** Matches at most one document; with `upsert`, inserts one built from the filter's equalities. */
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter?: Filter): Promise<number>;
  /**
   * The writes in order, each as its own method does it, in as few round trips as the store can
   * (MongoDB: one per run of inserts, updates or deletes). Ordered: it stops at the first failing
   * write, those before it done, and throws (DuplicateKeyError / TransientStoreError like the other
   * methods). Not a transaction: a crash may leave any prefix of the writes done. Answers the
   * counts of what the writes matched, changed, inserted and deleted.
   */
  bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult>;
  aggregate<R = Record<string, unknown>>(pipeline: Pipeline): Promise<R[]>;
  createIndex(spec: IndexSpec): Promise<void>;
  drop(): Promise<void>;
}

/** Does one write of a bulk with the collection's own method (the embedded store's `bulkWrite` does each so, in order). */
export async function writeOne<T extends Doc>(collection: Collection<T>, op: BulkOp<T>): Promise<UpdateResult | number | 'inserted'> {
  if ('insertOne' in op) {
    await collection.insertOne(op.insertOne.document);
    return 'inserted';
  }
  if ('updateOne' in op) return collection.updateOne(op.updateOne.filter, op.updateOne.update, { upsert: op.updateOne.upsert ?? false });
  if ('updateMany' in op) return collection.updateMany(op.updateMany.filter, op.updateMany.update);
  if ('replaceOne' in op) return collection.replaceOne(op.replaceOne.filter, op.replaceOne.replacement, { upsert: op.replaceOne.upsert ?? false });
  if ('deleteOne' in op) return collection.deleteOne(op.deleteOne.filter);
  return collection.deleteMany(op.deleteMany.filter);
}

export interface ReadStore {
  readonly kind: 'memory' | 'sqlite' | 'mongodb';
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /**
   * Runs `work` so that its writes are committed together or not at all (SQLite: one transaction).
   * The projection runner then stores each page's checkpoints inside it, so a crash leaves the
   * models at a checkpoint they match. Absent on MongoDB, where each write stands alone and the
   * projections' guards repair a page cut part way (docs/read-models.md); the heap store has one
   * that only runs `work`. Calls run one after another; not reentrant.
   */
  transaction?<R>(work: () => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

/** A write that would break a unique index: the same error on both adapters. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly keys: string[],
  ) {
    super(`Duplicate key in ${collection} on ${keys.join(', ')}`);
    this.name = 'DuplicateKeyError';
  }
}

/**
 * The store could not serve the operation now (unreachable, electing, shutting down): the same
 * operation may succeed later, so a projection retries it instead of recording the event as failed.
 */
export class TransientStoreError extends Error {
  constructor(
    readonly collection: string,
    cause: unknown,
  ) {
    super(`Read store unavailable (${collection}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'TransientStoreError';
  }
}
