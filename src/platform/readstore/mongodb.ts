import { randomUUID } from 'node:crypto';
import {
  type AnyBulkWriteOperation,
  type CommandStartedEvent,
  type Collection as MongoCollection,
  type Db,
  MongoClient,
  MongoServerError,
  type UpdateFilter,
} from 'mongodb';
import {
  type BulkOp,
  type BulkResult,
  noWrites,
  tally,
  type Collection,
  type Doc,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Pipeline,
  type ReadStore,
  TransientStoreError,
  type Update,
  type UpdateResult,
} from './port';
import { EPOCH_FIELD } from './fenced';
import { isTransientMongoError } from './transient';

const DUPLICATE_KEY = 11000;
/** An index asked for again with other options (or other keys under its name). */
const INDEX_CONFLICTS = new Set([85, 86]);

/**
 * FerretDB (the wire server the tests run on) answers a unique index broken by an update or a
 * replacement of an existing document with SQLite's own error, as an InternalError (code 1), not 11000.
 */
const FERRETDB_UNIQUE_VIOLATION = /UNIQUE constraint failed/;

/** Listing the indexes of a collection not created yet: MongoDB says NamespaceNotFound (26). */
const isNamespaceMissing = (error: unknown) => error instanceof MongoServerError && error.code === 26;

function isDuplicate(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && (error.code === DUPLICATE_KEY || FERRETDB_UNIQUE_VIOLATION.test(error.message));
}

async function mapErrors<R>(name: string, work: () => Promise<R>): Promise<R> {
  try {
    return await work();
  } catch (error) {
    // MongoDB names the index's keys (a bulk write in its first write error); FerretDB does not, and then the keys are left unnamed.
    if (isDuplicate(error)) {
      const keyPattern = (error.keyPattern ?? (error as { writeErrors?: Array<{ err?: { keyPattern?: unknown } }> }).writeErrors?.[0]?.err?.keyPattern) as
        Record<string, unknown> | undefined;
      throw new DuplicateKeyError(name, Object.keys(keyPattern ?? {}));
    }
    if (isTransientMongoError(error)) throw new TransientStoreError(name, error);
    throw error;
  }
}

/** A filter of plain top-level equalities with a string `_id`: the document an upsert of it creates starts as exactly these fields. */
function seedOf(filter: Filter): Doc | null {
  const { _id, ...rest } = filter;
  if (typeof _id !== 'string') return null;
  const plain = Object.entries(rest).every(([key, value]) => !key.startsWith('$') && !key.includes('.') && (typeof value !== 'object' || value === null));
  return plain ? { ...rest, _id } : null;
}

/** A create-only upsert (`$setOnInsert` alone, by id): the document it would insert, made an insert (see `insertUnlessPresent`). */
function createOnly(filter: Filter, update: Update, upsert: boolean | undefined): Doc | null {
  const seed = upsert && Object.keys(update).join() === '$setOnInsert' ? seedOf(filter) : null;
  return seed && { ...update.$setOnInsert, ...seed };
}

/** Ids are strings everywhere in this product; an upsert without one in its filter gets a string id too. */
const withStringId = (filter: Filter, update: Update, upsert: boolean | undefined) =>
  (upsert && typeof filter._id !== 'string' ? { ...update, $setOnInsert: { _id: randomUUID(), ...update.$setOnInsert } } : update) as UpdateFilter<Doc>;

/** A replacement keeps the id of the document it replaces (or the filter's, upserted). */
const withoutId = ({ _id: _ignored, ...body }: Doc) => body;

function driverOp(op: BulkOp): AnyBulkWriteOperation<Doc> {
  if ('updateOne' in op) {
    const { filter, update, upsert = false } = op.updateOne;
    return { updateOne: { filter, update: withStringId(filter, update, upsert), upsert } };
  }
  if ('updateMany' in op) return { updateMany: { filter: op.updateMany.filter, update: op.updateMany.update as UpdateFilter<Doc> } };
  if ('replaceOne' in op) {
    const { filter, replacement, upsert = false } = op.replaceOne;
    return { replaceOne: { filter, replacement: withoutId(replacement), upsert } };
  }
  return op;
}

/** Readers never see the fencing epoch a fenced writer stamps (src/platform/readstore/fenced.ts). */
function withoutEpoch<D>(doc: D): D {
  if (doc !== null && typeof doc === 'object' && EPOCH_FIELD in doc) delete (doc as Record<string, unknown>)[EPOCH_FIELD];
  return doc;
}

class MongoReadCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly collection: MongoCollection<Doc>,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    return withoutEpoch((await mapErrors(this.name, () => this.collection.findOne(filter))) as T | null);
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.collection.find(filter, options.projection ? { projection: options.projection } : {});
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await mapErrors(this.name, () => cursor.toArray())).map((doc) => withoutEpoch(doc as T));
  }

  count(filter: Filter = {}): Promise<number> {
    return mapErrors(this.name, () => this.collection.countDocuments(filter));
  }

  async insertOne(doc: T): Promise<void> {
    await mapErrors(this.name, () => this.collection.insertOne(doc));
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const seed = createOnly(filter, update, options.upsert);
    if (seed) return this.insertUnlessPresent(filter, seed);
    const result = await mapErrors(this.name, () =>
      this.collection.updateOne(filter, withStringId(filter, update, options.upsert), { upsert: options.upsert ?? false }),
    );
    return {
      matched: result.matchedCount,
      modified: result.modifiedCount,
      upsertedId: result.upsertedId === null ? null : String(result.upsertedId),
    };
  }

  /**
   * A create-only upsert (`$setOnInsert` alone, by id) made an insert: FerretDB leaves out the
   * `$setOnInsert` fields whose value is null or an empty array (MongoDB sets them), an insert
   * stores the document whole on both. Present already, it is left as it is, as the upsert would.
   */
  private async insertUnlessPresent(filter: Filter, doc: Doc): Promise<UpdateResult> {
    try {
      await this.insertOne(doc as T);
      return { matched: 0, modified: 0, upsertedId: doc._id };
    } catch (error) {
      // Another document holding one of its unique keys is a conflict the upsert would have met too.
      if (!(error instanceof DuplicateKeyError) || (await this.collection.countDocuments(filter, { limit: 1 })) === 0) throw error;
      return { matched: 1, modified: 0, upsertedId: null };
    }
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const result = await mapErrors(this.name, () => this.collection.updateMany(filter, update as UpdateFilter<Doc>));
    return { matched: result.matchedCount, modified: result.modifiedCount, upsertedId: null };
  }

  async replaceOne(filter: Filter, doc: T, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const result = await mapErrors(this.name, () => this.collection.replaceOne(filter, withoutId(doc), { upsert: options.upsert ?? false }));
    return {
      matched: result.matchedCount,
      modified: result.modifiedCount,
      upsertedId: result.upsertedId === null ? null : String(result.upsertedId),
    };
  }

  /**
   * The driver's ordered bulkWrite: one command per run of inserts, updates or deletes. A create-only
   * upsert is the insert `updateOne` makes of it (FerretDB drops its null fields otherwise), done
   * between the runs before and after it.
   */
  async bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult> {
    let run: AnyBulkWriteOperation<Doc>[] = [];
    const total = noWrites();
    const flush = async () => {
      if (run.length === 0) return;
      const batch = run;
      run = [];
      const done = await mapErrors(this.name, () => this.collection.bulkWrite(batch, { ordered: true }));
      total.matched += done.matchedCount;
      total.modified += done.modifiedCount;
      total.upserted += done.upsertedCount;
      total.inserted += done.insertedCount;
      total.deleted += done.deletedCount;
    };
    for (const op of ops) {
      if ('updateOne' in op && createOnly(op.updateOne.filter, op.updateOne.update, op.updateOne.upsert)) {
        await flush();
        tally(total, await this.updateOne(op.updateOne.filter, op.updateOne.update, { upsert: true }));
      } else run.push(driverOp(op));
    }
    await flush();
    return total;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await mapErrors(this.name, () => this.collection.deleteOne(filter))).deletedCount;
  }

  async deleteMany(filter: Filter = {}): Promise<number> {
    return (await mapErrors(this.name, () => this.collection.deleteMany(filter))).deletedCount;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: Pipeline): Promise<R[]> {
    return (await mapErrors(this.name, () => this.collection.aggregate(pipeline).toArray())).map((doc) => withoutEpoch(doc) as R);
  }

  /**
   * Declared again with other options (a read model that dropped a unique constraint), the new
   * declaration wins. MongoDB refuses such a createIndex (IndexOptionsConflict, 85/86); FerretDB
   * answers it as done and keeps the old index. So the existing index of the same keys is looked up
   * first and dropped when its uniqueness differs, which both servers do alike.
   */
  async createIndex(spec: IndexSpec, attempt = 1): Promise<void> {
    const unique = spec.unique ?? false;
    const sameKeys = (key: Record<string, unknown>) => JSON.stringify(key) === JSON.stringify(spec.keys);
    const existing = (
      await mapErrors(this.name, () => this.collection.indexes()).catch((error) => (isNamespaceMissing(error) ? [] : Promise.reject(error)))
    ).find((index) => sameKeys(index.key));
    if (existing && Boolean(existing.unique) !== unique) await mapErrors(this.name, () => this.collection.dropIndex(existing.name!));
    try {
      await mapErrors(this.name, () => this.collection.createIndex(spec.keys, { unique }));
    } catch (error) {
      if (!(error instanceof MongoServerError && INDEX_CONFLICTS.has(error.code as number)) || attempt >= 3) throw error;
      // Another process changed it between the look-up and the create: look again.
      await this.createIndex(spec, attempt + 1);
    }
  }

  /** The driver's drop (the collection and its indexes, at once); a collection that is not there is dropped already. */
  async drop(): Promise<void> {
    await mapErrors(this.name, () => this.collection.drop()).catch((error: unknown) => (isNamespaceMissing(error) ? undefined : Promise.reject(error)));
  }
}

/** MongoDB adapter: the database named in the connection string holds every read-model collection. */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb' as const;
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /** `dbName` overrides the database of the connection string (tests keep theirs apart). */
  static async connect(url: string, dbName?: string): Promise<MongoReadStore> {
    const client = new MongoClient(url);
    await client.connect();
    return new MongoReadStore(client, client.db(dbName));
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoReadCollection<T>(name, this.db.collection<Doc>(name));
  }

  /**
   * Calls `listener` with each command the client sends (the driver's command monitoring, which
   * `monitorCommands=true` in the connection string turns on); returns the unsubscribe function.
   * The tests and the bench count the commands a posted message costs with it.
   */
  onCommand(listener: (event: CommandStartedEvent) => void): () => void {
    this.client.on('commandStarted', listener);
    return () => this.client.off('commandStarted', listener);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
