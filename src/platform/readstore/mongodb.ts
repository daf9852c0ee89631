import { randomUUID } from 'node:crypto';
import {
  type Collection as MongoCollection,
  type Db,
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type UpdateFilter,
} from 'mongodb';
import {
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

/**
 * The server could not be reached or could not serve the write now (network, elections, shutdown):
 * worth trying again, unlike an error the same write would meet again.
 */
const isTransient = (error: unknown) =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNotConnectedError ||
  error instanceof MongoTopologyClosedError ||
  (error instanceof MongoError && (error.hasErrorLabel('RetryableWriteError') || error.hasErrorLabel('TransientTransactionError')));

async function mapErrors<R>(name: string, work: () => Promise<R>): Promise<R> {
  try {
    return await work();
  } catch (error) {
    // MongoDB names the index's keys; FerretDB does not, and then the keys are left unnamed.
    if (isDuplicate(error)) throw new DuplicateKeyError(name, Object.keys((error.keyPattern as Record<string, unknown> | undefined) ?? {}));
    if (isTransient(error)) throw new TransientStoreError(name, error);
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

class MongoReadCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly collection: MongoCollection<Doc>,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    return (await mapErrors(this.name, () => this.collection.findOne(filter))) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.collection.find(filter, options.projection ? { projection: options.projection } : {});
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await mapErrors(this.name, () => cursor.toArray())) as T[];
  }

  count(filter: Filter = {}): Promise<number> {
    return mapErrors(this.name, () => this.collection.countDocuments(filter));
  }

  async insertOne(doc: T): Promise<void> {
    await mapErrors(this.name, () => this.collection.insertOne(doc));
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const seed = options.upsert && Object.keys(update).join() === '$setOnInsert' ? seedOf(filter) : null;
    if (seed) return this.insertUnlessPresent(filter, { ...update.$setOnInsert, ...seed });
    // Ids are strings everywhere in this product; an upsert without one gets a string id too.
    const withId = options.upsert && typeof filter._id !== 'string' ? { ...update, $setOnInsert: { _id: randomUUID(), ...update.$setOnInsert } } : update;
    const result = await mapErrors(this.name, () => this.collection.updateOne(filter, withId as UpdateFilter<Doc>, { upsert: options.upsert ?? false }));
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
    const { _id: _ignored, ...body } = doc;
    const result = await mapErrors(this.name, () => this.collection.replaceOne(filter, body, { upsert: options.upsert ?? false }));
    return {
      matched: result.matchedCount,
      modified: result.modifiedCount,
      upsertedId: result.upsertedId === null ? null : String(result.upsertedId),
    };
  }

  async deleteOne(filter: Filter): Promise<number> {
    return (await mapErrors(this.name, () => this.collection.deleteOne(filter))).deletedCount;
  }

  async deleteMany(filter: Filter = {}): Promise<number> {
    return (await mapErrors(this.name, () => this.collection.deleteMany(filter))).deletedCount;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: Pipeline): Promise<R[]> {
    return (await mapErrors(this.name, () => this.collection.aggregate(pipeline).toArray())) as R[];
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

  async drop(): Promise<void> {
    await this.collection.deleteMany({});
    await this.collection.dropIndexes().catch(() => undefined);
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

  async close(): Promise<void> {
    await this.client.close();
  }
}
