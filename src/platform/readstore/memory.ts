import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Query, aggregate, find } from 'mingo';
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
  type Update,
  type UpdateResult,
  writeOne,
} from './port';
import { type AnyObject, anchoredLiteral, applyUpdate, clone, isPlainObject, topLevelInclusion, upsertDocument } from './documents';
import { EPOCH_FIELD } from './fenced';
import { OrderedIndex, compareValues } from './ordered';
import { Postings, Slots } from './postings';
import { SortedStrings } from './sortedStrings';

/** A copy for a reader: without the fencing epoch a fenced writer stamps (src/platform/readstore/fenced.ts), as MongoDB's reads. */
function cloneOut<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneOut) as T;
  const copy = clone(value);
  if (copy !== null && typeof copy === 'object' && EPOCH_FIELD in copy) delete (copy as AnyObject)[EPOCH_FIELD];
  return copy;
}

/** `{ $in: [...] }` and nothing else, on string ids. */
const isIdIn = (value: unknown): value is { $in: unknown[] } =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && Array.isArray((value as { $in?: unknown }).$in);

/**
 * Embedded collections held in memory and queried with mingo, which implements MongoDB's query,
 * update and aggregation language. Nothing is kept across restarts (`READSTORE=memory`, the tests'
 * store): each start replays the log into it.
 */
class MemoryCollection<T extends Doc> implements Collection<T> {
  private readonly docs = new Map<string, T>();
  /** Each unique index maps its key (JSON of the indexed values) to the owning document's id. */
  private readonly uniqueIndexes: Array<{ keys: string[]; owners: Map<string, string> }> = [];
  /**
   * Other indexes map their first key's primitive values (at a path through plain objects) to the
   * ids holding them, so `{ ticket: id }` reads one ticket's messages instead of every message; built
   * when a filter first asks for that field. Documents whose value is not primitive (an array
   * matches by element) are always candidates.
   */
  private readonly fieldIndexes = new Map<string, FieldIndex>();
  /** The numbers of the documents' ids that the equality indexes' sets hold. */
  private slots = new Slots();
  /**
   * Ordered indexes answer a sorted, limited find by walking the first matches in order. Each is
   * built the first time a query sorts by its keys (a replay that nobody reads pays nothing for
   * it) and kept up to date from then on.
   */
  private readonly orderedIndexes = new Map<string, OrderedIndex>();

  /** The indexes asked for, in order. */
  private readonly specs: IndexSpec[] = [];

  constructor(
    readonly name: string,
    /** Told the id of each document a write made, changed or deleted. */
    private readonly touched?: (id: string) => void,
  ) {}

  private candidates(filter: Filter): T[] {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    // `{ _id: { $in: [...] } }`: how a projection loads the documents a page of events touches.
    if (isIdIn(id)) return [...new Set(id.$in)].flatMap((key) => (typeof key === 'string' ? (this.docs.get(key) ?? []) : []));
    const ids = this.candidateIds(filter) ?? this.prefixIds(filter) ?? this.rangeIds(filter);
    if (!ids) return [...this.docs.values()];
    return ids.map((docId) => this.docs.get(docId)).filter((doc): doc is T => doc !== undefined);
  }

  /**
   * Ids inside a `{ $gte, $lt }` range on the first (ascending) key of a declared index, read from
   * its ordered index; null if no such range and index. How a prefix of words is looked up
   * (`term >= 'refun' && term < 'refuo'`) without a scan of every entry.
   */
  private rangeIds(filter: Filter): string[] | null {
    for (const [field, condition] of Object.entries(filter)) {
      if (!isPlainObject(condition)) continue;
      const { $gte: lower, $lt: upper, ...rest } = condition as { $gte?: unknown; $lt?: unknown };
      if (typeof lower !== 'string' || typeof upper !== 'string' || Object.keys(rest).length > 0) continue;
      const spec = this.specs.find(({ keys, unique }) => !unique && Object.keys(keys)[0] === field && keys[field] === 1);
      const index = spec && this.orderedFor(Object.fromEntries(Object.keys(spec.keys).map((key) => [key, spec.keys[key]!])));
      if (!index || index.irregular.size > 0) continue;
      const ids: string[] = [];
      index.walkFrom(lower, (id, first) => {
        if (typeof first !== 'string' || first >= upper) return false;
        ids.push(id);
        return true;
      });
      return ids;
    }
    return null;
  }

  /**
   * Ids of the documents whose indexed field (or an element of it) is a string starting with the
   * literal of `{ $regex: '^literal' }`, from the field's equality index and its sorted values (built
   * on the first such query): how a word prefix is looked up in a document's list of words. Null if
   * no such condition and index.
   */
  private prefixIds(filter: Filter): string[] | null {
    for (const [field, condition] of Object.entries(filter)) {
      const range = literalPrefix(condition);
      const index = range && this.fieldIndexFor(field);
      if (!index) continue;
      const holding = postingsWithPrefix(index, range);
      // One word of that prefix (or none): its ids as they are, no union to build.
      if (holding.length <= 1 && index.unindexed.size === 0) return [...(holding[0] ?? [])];
      const ids = new Set<string>(index.unindexed);
      for (const set of holding) for (const id of set) ids.add(id);
      return [...ids];
    }
    return null;
  }

  /**
   * A filter of word conditions as sets of ids, when every condition is one an equality index
   * answers in full: an equality on a string or a literal prefix (`{ $regex: '^p' }`) on an indexed
   * field, `$in` of strings, and `$and`, `$or` and `$nor` of such. The matches are then the ids in
   * some set of every `all` entry and in no set of `none`: a search's count, and its test of a
   * handful of tickets, read the sets without building the list of matches. Null for anything else.
   */
  private indexSets(filter: Filter): IndexSets | null {
    const all: Postings[][] = [];
    const none: Postings[] = [];
    const nothing = new Postings(this.slots);
    const anyOf = (condition: Filter): Postings[] | null => {
      const entries = Object.entries(condition);
      if (entries.length !== 1) return null;
      const [field, value] = entries[0]!;
      if (field === '$or' && Array.isArray(value)) {
        const parts = value.map((part) => (isPlainObject(part) ? anyOf(part) : null));
        return parts.every((part) => part !== null) ? parts.flat() : null;
      }
      if (field.startsWith('$')) return null;
      const index = this.fieldIndexFor(field);
      if (!index || index.unindexed.size > 0) return null;
      if (typeof value === 'string') return [index.byValue.get(value) ?? nothing];
      const list = inList(value);
      if (list) return list.every((item) => typeof item === 'string') ? list.map((item) => index.byValue.get(item) ?? nothing) : null;
      const range = literalPrefix(value);
      return range && postingsWithPrefix(index, range);
    };
    for (const [field, value] of Object.entries(filter)) {
      if (field === '$and' || field === '$nor') {
        if (!Array.isArray(value)) return null;
        for (const part of value) {
          const sets = isPlainObject(part) ? anyOf(part) : null;
          if (!sets) return null;
          if (field === '$and') all.push(sets);
          else none.push(...sets);
        }
        continue;
      }
      const sets = anyOf({ [field]: value });
      if (!sets) return null;
      all.push(sets);
    }
    return all.length > 0 ? { all, none, slots: this.slots } : null;
  }

  /** Ids an equality (or `$in` of primitives) on an indexed field narrows the filter to; null if none does. */
  private candidateIds(filter: Filter): string[] | null {
    for (const [field, condition] of Object.entries(filter)) {
      const wanted = isPrimitive(condition) ? [condition] : inList(condition);
      const index = wanted && this.fieldIndexFor(field);
      if (!index) continue;
      const { byValue, unindexed } = index;
      const ids = new Set<string>(unindexed);
      for (const value of wanted!) for (const id of byValue.get(value) ?? []) ids.add(id);
      // `null` also matches documents without the field, which the index files under null.
      return [...ids];
    }
    return null;
  }

  /**
   * The equality index of a field that a declared index starts with, built the first time a filter
   * asks for the field (a field only ever sorted on, like a timestamp, never costs one).
   */
  private fieldIndexFor(field: string) {
    const known = this.fieldIndexes.get(field);
    if (known) return known;
    if (field === '_id' || field.startsWith('$') || !this.specs.some(({ keys, unique }) => !unique && Object.keys(keys)[0] === field)) return null;
    const index: FieldIndex = { path: field.split('.'), byValue: new Map(), unindexed: new Set<string>(), sorted: null, slots: this.slots };
    this.fieldIndexes.set(field, index);
    for (const doc of this.docs.values()) fileField(index, doc, true);
    return index;
  }

  private indexFields(doc: T, add: boolean): void {
    if (add) for (const ordered of this.orderedIndexes.values()) refile(ordered, doc as AnyObject);
    for (const index of this.fieldIndexes.values()) fileField(index, doc, add);
  }

  private matching(filter: Filter): T[] {
    // Conditions every one of which an index answers in full (a search's words): read from the id sets.
    const sets = '_id' in filter ? null : this.indexSets(filter);
    if (sets) return idsIn(sets).map((id) => this.docs.get(id)!);
    const candidates = this.candidates(filter);
    const keys = Object.keys(filter);
    if (keys.length === 0) return candidates;
    // Only `{ _id }` (every request's user and session check) or `{ _id: { $in } }`: the candidates
    // are exactly the matches, with no matcher to build.
    if (keys.length === 1 && (typeof filter._id === 'string' || isIdIn(filter._id))) return candidates;
    // `{ _id: { $in }, ...words }`: which of a few documents hold the words, by the words' id sets.
    if (isIdIn(filter._id)) {
      const { _id: _ids, ...rest } = filter;
      const sets = this.indexSets(rest);
      if (sets) return candidates.filter((doc) => holds(sets, doc._id));
    }
    const simple = simpleMatcher(filter);
    let query: Query | null = null;
    return candidates.filter((doc) => {
      const verdict = simple?.(doc as AnyObject);
      if (verdict !== undefined) return verdict;
      query ??= new Query(filter);
      return query.test(doc as AnyObject);
    });
  }

  async findOne(filter: Filter): Promise<T | null> {
    const doc = this.matching(filter)[0];
    return doc ? cloneOut(doc) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const picked = topLevelInclusion(options.projection);
    const walked =
      options.sort && (!options.projection || picked)
        ? this.walkOrdered(filter, options.sort, options.limit ? (options.skip ?? 0) + options.limit : Number.POSITIVE_INFINITY)
        : null;
    // Some top-level fields of each (the ids of the newest tickets): copied field by field.
    if (walked) return picked ? walked.slice(options.skip ?? 0).map((doc) => pick(doc as AnyObject, picked) as T) : cloneOut(walked.slice(options.skip ?? 0));
    const top = options.sort && options.limit && !options.projection ? this.topOf(filter, options.sort, (options.skip ?? 0) + options.limit) : null;
    if (top) return cloneOut(top.slice(options.skip ?? 0));
    // A plain filter needs no cursor: the same matching as findOne, without mingo for simple filters.
    if (!options.sort && !options.skip && !options.limit && !options.projection) return cloneOut(this.matching(filter));
    // Some top-level fields of every match (a search's ids): copied field by field, not through a cursor.
    const fields = !options.sort && !options.skip && !options.limit ? picked : null;
    if (fields) return this.matching(filter).map((doc) => pick(doc as AnyObject, fields) as T);
    let cursor = find(this.candidates(filter) as AnyObject[], filter, options.projection);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cloneOut(cursor.all() as T[]);
  }

  /**
   * The first `k` matches in `sort` order from an ordered index with those keys, stopping at the
   * `k`th: "the 50 newest open tickets" reads a few hundred entries of 100,000. Null when no index
   * serves the sort, or when an equality on an indexed field leaves few enough candidates that
   * sorting them is cheaper.
   */
  private walkOrdered(filter: Filter, sort: Record<string, 1 | -1>, k: number): T[] | null {
    if (isIdIn(filter._id) && filter._id.$in.length <= FEW_CANDIDATES) return null;
    const narrowed = this.candidateIds(filter);
    if (narrowed && narrowed.length <= FEW_CANDIDATES) return null;
    const index = this.orderedFor(sort);
    if (!index) return null;
    const direction = index.serves(sort);
    if (direction === 0) return null;
    const simple = Object.keys(filter).length === 0 ? () => true : simpleMatcher(filter);
    let query: Query | null = null;
    const found: T[] = [];
    index.walk(direction, (id) => {
      const doc = this.docs.get(id);
      if (!doc) return true;
      let verdict = simple?.(doc as AnyObject);
      if (verdict === undefined) {
        query ??= new Query(filter);
        verdict = query.test(doc as AnyObject);
      }
      if (verdict) found.push(doc);
      return found.length < k;
    });
    return found;
  }

  /** The ordered index declared with exactly these keys (or all of them reversed), built on first use. */
  private orderedFor(sort: Record<string, 1 | -1>): OrderedIndex | null {
    const fields = Object.keys(sort);
    const spec = this.specs.find(
      ({ keys, unique }) =>
        !unique && Object.keys(keys).join() === fields.join() && (fields.every((f) => keys[f] === sort[f]) || fields.every((f) => keys[f] === -sort[f]!)),
    );
    if (!spec) return null;
    const name = JSON.stringify(spec.keys);
    let index = this.orderedIndexes.get(name);
    if (!index) {
      index = new OrderedIndex(Object.keys(spec.keys), Object.values(spec.keys));
      const ordered = index;
      ordered.build([...this.docs.values()].map((doc) => ({ id: doc._id, key: keyOf(ordered, doc as AnyObject) })));
      this.orderedIndexes.set(name, index);
    }
    return index;
  }

  /**
   * The first `k` documents in `sort` order, in one pass that keeps only the best `k`: a dashboard's
   * "10 newest of 100,000 tickets" must not sort them all. Only for sorts on top-level primitive
   * fields and filters decided without mingo; answers null otherwise, and the caller sorts in full.
   */
  private topOf(filter: Filter, sort: Record<string, 1 | -1>, k: number): T[] | null {
    const keys = Object.entries(sort);
    if (k > 5000 || keys.some(([field]) => field.includes('.') || field.startsWith('$'))) return null;
    const simple = Object.keys(filter).length === 0 ? () => true : simpleMatcher(filter);
    if (!simple) return null;
    const compare = (a: AnyObject, b: AnyObject) => {
      for (const [field, direction] of keys) {
        const order = compareValues(a[field], b[field]);
        if (order !== 0) return order * direction;
      }
      return 0;
    };
    const best: AnyObject[] = [];
    for (const doc of this.candidates(filter) as AnyObject[]) {
      const verdict = simple(doc);
      if (verdict === undefined) return null;
      if (!verdict) continue;
      for (const [field] of keys) if (doc[field] !== undefined && doc[field] !== null && !['string', 'number'].includes(typeof doc[field])) return null;
      if (best.length === k && compare(doc, best[k - 1]!) >= 0) continue;
      let low = 0;
      let high = best.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (compare(best[middle]!, doc) <= 0) low = middle + 1;
        else high = middle;
      }
      best.splice(low, 0, doc);
      if (best.length > k) best.pop();
    }
    return best as T[];
  }

  async count(filter: Filter = {}): Promise<number> {
    const fields = Object.keys(filter);
    if (fields.length === 0) return this.docs.size;
    const sets = this.indexSets(filter);
    if (sets) return countIn(sets);
    // One equality or `$in` on an indexed field: its value sets are the answer, only unindexed documents need a test.
    const [only] = fields;
    const condition = filter[only!];
    const wanted = fields.length === 1 ? (isPrimitive(condition) ? [condition] : inList(condition)) : null;
    const index = wanted && this.fieldIndexFor(only!);
    if (index) {
      const values = [...new Set(wanted)];
      // A document holding several of the values (an array's elements) counts once.
      const total =
        values.length === 1 ? (index.byValue.get(values[0]!)?.size ?? 0) : new Set(values.flatMap((value) => [...(index.byValue.get(value) ?? [])])).size;
      if (index.unindexed.size === 0) return total;
      const unindexed = [...index.unindexed].map((id) => this.docs.get(id)!);
      return total + find(unindexed as AnyObject[], filter).all().length;
    }
    return this.matching(filter).length;
  }

  async insertOne(doc: T): Promise<void> {
    if (this.docs.has(doc._id)) throw new DuplicateKeyError(this.name, ['_id']);
    const stored = clone(doc);
    this.checkUnique(stored);
    this.docs.set(stored._id, stored);
    this.index(null, stored);
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const doc = this.matching(filter)[0];
    if (doc) return { matched: 1, modified: this.modify(doc, update) ? 1 : 0, upsertedId: null };
    if (!options.upsert) return { matched: 0, modified: 0, upsertedId: null };
    return this.upsert(filter, update);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const docs = this.matching(filter);
    let modified = 0;
    for (const doc of docs) if (this.modify(doc, update)) modified++;
    return { matched: docs.length, modified, upsertedId: null };
  }

  async replaceOne(filter: Filter, replacement: T, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const doc = this.matching(filter)[0];
    if (!doc && !options.upsert) return { matched: 0, modified: 0, upsertedId: null };
    const id = doc?._id ?? replacement._id ?? (typeof filter._id === 'string' ? filter._id : randomUUID());
    // An upsert whose filter missed a document of the same id fails as on MongoDB (a fenced write meeting a newer one).
    if (!doc && this.docs.has(id)) throw new DuplicateKeyError(this.name, ['_id']);
    const next = clone(replacement);
    next._id = id;
    this.checkUnique(next);
    this.docs.set(id, next);
    this.index(doc ?? null, next);
    return doc ? { matched: 1, modified: 1, upsertedId: null } : { matched: 0, modified: 0, upsertedId: id };
  }

  async deleteOne(filter: Filter): Promise<number> {
    const doc = this.matching(filter)[0];
    if (!doc) return 0;
    this.docs.delete(doc._id);
    this.index(doc, null);
    return 1;
  }

  async deleteMany(filter: Filter = {}): Promise<number> {
    const docs = this.matching(filter);
    for (const doc of docs) {
      this.docs.delete(doc._id);
      this.index(doc, null);
    }
    return docs.length;
  }

  async bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult> {
    const total = noWrites();
    for (const op of ops) tally(total, await writeOne(this, op));
    return total;
  }

  async aggregate<R = AnyObject>(pipeline: Pipeline): Promise<R[]> {
    return cloneOut(aggregate([...this.docs.values()], pipeline) as R[]);
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    const keys = Object.keys(spec.keys);
    // An index declared again with other options replaces the old one (a read model that dropped a unique constraint).
    const replaced = this.specs.findIndex((known) => isDeepStrictEqual(known.keys, spec.keys) && !!known.unique !== !!spec.unique);
    if (replaced >= 0) {
      this.specs.splice(replaced, 1);
      const unique = this.uniqueIndexes.findIndex((existing) => existing.keys.join() === keys.join());
      if (unique >= 0) this.uniqueIndexes.splice(unique, 1);
    }
    if (!this.specs.some((known) => isDeepStrictEqual(known, spec))) this.specs.push({ ...spec, keys: { ...spec.keys } });
    // Equality and ordered indexes are built when a query first needs them.
    if (!spec.unique) return;
    if (this.uniqueIndexes.some((existing) => existing.keys.join() === keys.join())) return;
    const owners = new Map<string, string>();
    for (const doc of this.docs.values()) {
      const key = uniqueKey(doc as AnyObject, keys);
      if (key !== null && owners.has(key)) throw new DuplicateKeyError(this.name, keys);
      if (key !== null) owners.set(key, doc._id);
    }
    this.uniqueIndexes.push({ keys, owners });
  }

  async drop(): Promise<void> {
    this.docs.clear();
    this.specs.length = 0;
    this.uniqueIndexes.length = 0;
    this.fieldIndexes.clear();
    this.orderedIndexes.clear();
    this.slots = new Slots();
  }

  /** Applies an update in place; a unique-index violation leaves the document as it was. */
  private modify(doc: T, update: Update): boolean {
    const { $setOnInsert: _ignored, ...modifier } = update;
    if (Object.keys(modifier).length === 0) return false;
    const before = this.uniqueIndexes.length > 0 ? clone(doc) : null;
    this.indexFields(doc, false);
    let changed: string[];
    try {
      changed = applyUpdate(doc as AnyObject, modifier);
    } finally {
      this.indexFields(doc, true);
    }
    if (changed.length > 0) this.touched?.(doc._id);
    if (before) {
      try {
        this.checkUnique(doc);
      } catch (error) {
        this.indexFields(doc, false);
        this.docs.set(doc._id, before);
        this.indexFields(before, true);
        throw error;
      }
      this.indexUnique(before, doc);
    }
    return changed.length > 0;
  }

  private upsert(filter: Filter, update: Update): UpdateResult {
    const doc = upsertDocument(filter, update) as T;
    if (this.docs.has(doc._id)) throw new DuplicateKeyError(this.name, ['_id']);
    this.checkUnique(doc);
    this.docs.set(doc._id, doc);
    this.index(null, doc);
    return { matched: 0, modified: 0, upsertedId: doc._id };
  }

  private checkUnique(doc: T): void {
    for (const { keys, owners } of this.uniqueIndexes) {
      const key = uniqueKey(doc as AnyObject, keys);
      const owner = key === null ? undefined : owners.get(key);
      if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(this.name, keys);
    }
  }

  private index(before: T | null, after: T | null): void {
    this.touched?.((after ?? before)!._id);
    if (before && !after) for (const ordered of this.orderedIndexes.values()) ordered.remove(before._id);
    if (before && after) {
      // A replacement moves only the values that changed (a list of words mostly grows).
      for (const ordered of this.orderedIndexes.values()) refile(ordered, after as AnyObject);
      for (const index of this.fieldIndexes.values()) refileField(index, before, after);
    } else if (before) this.indexFields(before, false);
    else if (after) this.indexFields(after, true);
    this.indexUnique(before, after);
  }

  private indexUnique(before: T | null, after: T | null): void {
    for (const { keys, owners } of this.uniqueIndexes) {
      const oldKey = before ? uniqueKey(before as AnyObject, keys) : null;
      if (oldKey !== null && owners.get(oldKey) === before?._id) owners.delete(oldKey);
      const newKey = after ? uniqueKey(after as AnyObject, keys) : null;
      if (newKey !== null && after) owners.set(newKey, after._id);
    }
  }
}

type Primitive = string | number | boolean | null;
/** Below this many candidates from an equality index, sorting them beats walking an ordered index. */
const FEW_CANDIDATES = 2000;
/** Marks a dotted path that runs through an array: MongoDB matches its elements, mingo decides those. */
const THROUGH_ARRAY = Symbol('through an array');

/** The value at a path through plain objects (undefined where it ends early, as MongoDB reads it). */
function valueAt(doc: AnyObject, path: string[]): unknown {
  let value: unknown = doc;
  for (const part of path) {
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) return THROUGH_ARRAY;
    if (typeof value !== 'object') return undefined;
    value = (value as AnyObject)[part];
  }
  return value;
}

/** The values of `{ $in: [...] }` when they are all primitives, else null. */
function inList(condition: unknown): Primitive[] | null {
  if (!isPlainObject(condition) || Object.keys(condition).length !== 1 || !Array.isArray(condition.$in)) return null;
  return condition.$in.every(isPrimitive) ? (condition.$in as Primitive[]) : null;
}

/**
 * An equality index: each primitive value of a field (each element, where the field holds an array
 * of primitives, as MongoDB's multikey indexes file them) maps to the ids holding it. `sorted` keeps
 * its string values in order once a range over the elements first needs them.
 */
type FieldIndex = { path: string[]; byValue: Map<Primitive, Postings>; unindexed: Set<string>; sorted: SortedStrings | null; slots: Slots };

/** The string values of an equality index in order, built on first use and kept up to date from then on. */
function sortedValuesOf(index: FieldIndex): SortedStrings {
  if (!index.sorted) index.sorted = new SortedStrings([...index.byValue.keys()].filter((value): value is string => typeof value === 'string'));
  return index.sorted;
}

/** The sets of the index's values that start with the range's literal, read from its sorted values. */
function postingsWithPrefix(index: FieldIndex, range: { lower: string; upper: string }): Postings[] {
  const holding: Postings[] = [];
  sortedValuesOf(index).walkFrom(range.lower, (value) => {
    if (value >= range.upper) return false;
    holding.push(index.byValue.get(value)!);
    return true;
  });
  return holding;
}

/**
 * `{ $regex: '^literal' }` (no options): the strings it matches are exactly those from `literal` up
 * to the next string of its length, a range of the sorted values; null for any other condition.
 */
function literalPrefix(condition: unknown): { lower: string; upper: string } | null {
  const literal = anchoredLiteral(condition);
  const last = literal?.charCodeAt(literal.length - 1);
  if (!literal || last === 0xffff) return null;
  return { lower: literal, upper: literal.slice(0, -1) + String.fromCharCode(last! + 1) };
}

const isPrimitiveArray = (value: unknown): value is Primitive[] => Array.isArray(value) && value.every(isPrimitive);

/**
 * Files a document under its value (missing counts as null), under each element of an array of
 * primitives, or as unindexed when the value is anything else.
 */
function fileField<T extends Doc>(index: FieldIndex, doc: T, add: boolean): void {
  const value = valueAt(doc as AnyObject, index.path);
  if (isPrimitiveArray(value)) {
    // Filing twice is filing once, and a second removal finds nothing: no set of the elements to build.
    for (const element of value) fileValue(index, element, doc._id, add);
    return;
  }
  if (value !== undefined && !isPrimitive(value)) {
    if (add) index.unindexed.add(doc._id);
    else index.unindexed.delete(doc._id);
    return;
  }
  fileValue(index, value === undefined ? null : value, doc._id, add);
}

/** Moves a document from the values of `before` to those of `after`, leaving alone the values both hold. */
function refileField<T extends Doc>(index: FieldIndex, before: T, after: T): void {
  const old = valueAt(before as AnyObject, index.path);
  const now = valueAt(after as AnyObject, index.path);
  if (!isPrimitiveArray(old) || !isPrimitiveArray(now)) {
    fileField(index, before, false);
    fileField(index, after, true);
    return;
  }
  const kept = new Set(now);
  for (const value of new Set(old)) if (!kept.has(value)) fileValue(index, value, before._id, false);
  const had = new Set(old);
  for (const value of kept) if (!had.has(value)) fileValue(index, value, after._id, true);
}

function fileValue({ byValue, sorted, slots }: FieldIndex, key: Primitive, id: string, add: boolean): void {
  const ids = byValue.get(key);
  if (add) {
    if (ids) ids.add(id);
    else {
      const created = new Postings(slots);
      created.add(id);
      byValue.set(key, created);
      if (sorted && typeof key === 'string') sorted.add(key);
    }
  } else if (ids?.delete(id) && ids.size === 0) {
    byValue.delete(key);
    if (sorted && typeof key === 'string') sorted.remove(key);
  }
}

const keyOf = (index: OrderedIndex, doc: AnyObject) =>
  index.fields.map((field) => {
    const value = field.includes('.') ? valueAt(doc, field.split('.')) : doc[field];
    return value === THROUGH_ARRAY ? [] : value;
  });

function refile(index: OrderedIndex, doc: AnyObject): void {
  const key = keyOf(index, doc);
  if (index.holds(doc._id as string, key)) return;
  index.remove(doc._id as string);
  index.add(doc._id as string, key);
}
const isPrimitive = (value: unknown): value is Primitive => {
  if (value === null) return true;
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean';
};
const COMPARISONS: Record<string, (a: number | string, b: number | string) => boolean> = {
  $lt: (a, b) => a < b,
  $lte: (a, b) => a <= b,
  $gt: (a, b) => a > b,
  $gte: (a, b) => a >= b,
};

/**
 * Projections guard every write with filters like `{ _id, _revision: { $lt: n } }`, and lists filter
 * with `$in`, `$ne: null` and `$regex`; compiling a mingo Query for each made replay and lists slow.
 * Equality, comparisons, `$in`, `$ne` and `$regex` (without options) on primitive values, at paths
 * through plain objects, are decided here with MongoDB's semantics; anything else (arrays on the
 * way, other operators) answers undefined and goes to mingo.
 */
function simpleMatcher(filter: Filter): ((doc: AnyObject) => boolean | undefined) | null {
  const tests: Array<(doc: AnyObject) => boolean | undefined> = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key.startsWith('$')) return null;
    const path = key.split('.');
    const field = path.length === 1 ? (doc: AnyObject) => doc[key] : (doc: AnyObject) => valueAt(doc, path);
    if (isPrimitive(condition)) {
      tests.push((doc) => {
        const value = field(doc);
        if (value === undefined) return condition === null;
        // A document never equals a primitive; an array of primitives matches by its elements.
        if (isPrimitive(value)) return value === condition;
        if (isPrimitiveArray(value)) return value.includes(condition);
        return isSubDocument(value) ? false : undefined;
      });
      continue;
    }
    if (!isPlainObject(condition) || Object.keys(condition).length === 0) return null;
    for (const [operator, operand] of Object.entries(condition)) {
      const test = operatorTest(operator, operand, condition);
      if (!test) return null;
      tests.push((doc) => {
        const value = field(doc);
        if (value === undefined || isPrimitive(value)) return test(value);
        // A pattern matches an array of primitives by any element (a word prefix in a list of words).
        if (operator === '$regex' && isPrimitiveArray(value)) return value.some((element) => test(element));
        return isSubDocument(value) ? test(SUB_DOCUMENT) : undefined;
      });
    }
  }
  return (doc) => {
    for (const test of tests) {
      const verdict = test(doc);
      if (verdict !== true) return verdict;
    }
    return true;
  };
}

/** Matches as id sets (see `indexSets`): in some set of each `all` entry, in no set of `none`. */
interface IndexSets {
  all: Postings[][];
  none: Postings[];
  slots: Slots;
}

/** Plain loops on the documents' numbers: this runs once per member of a common word's set, where a closure per call shows. */
function inSome(sets: Postings[], slot: number, upTo = sets.length): boolean {
  for (let i = 0; i < upTo; i++) if (sets[i]!.hasSlot(slot)) return true;
  return false;
}

function holdsSlot({ all, none }: Pick<IndexSets, 'all' | 'none'>, slot: number): boolean {
  for (const sets of all) if (!inSome(sets, slot)) return false;
  return !inSome(none, slot);
}

function holds(sets: IndexSets, id: string): boolean {
  const slot = sets.slots.find(id);
  return slot !== undefined && holdsSlot(sets, slot);
}

/** The matching ids: the smallest entry's members, each once, tested against the rest. */
function idsIn(sets: IndexSets): string[] {
  const found: string[] = [];
  eachMatch(sets, (slot) => found.push(sets.slots.ids[slot]!));
  return found;
}

function eachMatch({ all, none }: IndexSets, visit: (slot: number) => void): void {
  const size = (sets: Postings[]) => sets.reduce((total, set) => total + set.size, 0);
  const smallest = all.reduce((best, sets) => (size(sets) < size(best) ? sets : best));
  const others = { all: all.filter((sets) => sets !== smallest), none };
  for (let at = 0; at < smallest.length; at++)
    smallest[at]!.forEachSlot((slot) => {
      if (!inSome(smallest, slot, at) && holdsSlot(others, slot)) visit(slot);
    });
}

function countIn(sets: IndexSets): number {
  let total = 0;
  eachMatch(sets, () => total++);
  return total;
}

function pick(doc: AnyObject, fields: string[]): AnyObject {
  const copy: AnyObject = {};
  for (const field of fields) if (field in doc && field !== EPOCH_FIELD) copy[field] = clone(doc[field]);
  return copy;
}

/** Stands for a sub-document in operator tests: it equals no primitive, is in no list of them, matches no pattern. */
const SUB_DOCUMENT = Symbol('sub-document');
const isSubDocument = (value: unknown) => isPlainObject(value);

/** One operator's test of a primitive, missing (undefined) or sub-document value, or null if it is not one decided here. */
function operatorTest(operator: string, operand: unknown, condition: AnyObject): ((value: Primitive | undefined | typeof SUB_DOCUMENT) => boolean) | null {
  const compare = COMPARISONS[operator];
  if (compare) {
    if (typeof operand !== 'number' && typeof operand !== 'string') return null;
    return (value) => value !== undefined && value !== null && typeof value === typeof operand && compare(value as number | string, operand);
  }
  if (operator === '$in') {
    const list = inList({ $in: operand });
    if (!list) return null;
    // A long list (a search's matching ids) is looked up, not scanned, for every document tested.
    const members = new Set(list);
    return (value) => value !== SUB_DOCUMENT && members.has(value === undefined ? null : value);
  }
  if (operator === '$ne') {
    if (!isPrimitive(operand)) return null;
    return (value) => (value === undefined ? operand !== null : value !== operand);
  }
  if (operator === '$regex') {
    if (typeof operand !== 'string' || '$options' in condition) return null;
    const pattern = new RegExp(operand);
    return (value) => typeof value === 'string' && pattern.test(value);
  }
  return null;
}

function uniqueKey(doc: AnyObject, keys: string[]): string | null {
  const values = keys.map((key) => key.split('.').reduce<unknown>((value, part) => (value as AnyObject | undefined)?.[part], doc));
  return values.every((value) => value === undefined) ? null : JSON.stringify(values);
}

export class MemoryReadStore implements ReadStore {
  readonly kind = 'memory' as const;
  private readonly collections = new Map<string, MemoryCollection<Doc>>();

  /** `onWrite` is told each document a write made, changed or deleted (the replay's batches, src/projections/batch.ts). */
  constructor(private readonly onWrite?: (collection: string, id: string) => void) {}

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      const onWrite = this.onWrite;
      collection = new MemoryCollection<Doc>(name, onWrite && ((id) => onWrite(name, id)));
      this.collections.set(name, collection);
    }
    // One map holds every collection; the caller names its documents' type, as MongoDB's db.collection<T>() lets it.
    return collection as unknown as Collection<T>;
  }

  /** The heap's writes end with the process anyway: nothing to commit together, the page's checkpoints are stored with it. */
  transaction<R>(work: () => Promise<R>): Promise<R> {
    return work();
  }

  async close(): Promise<void> {
    this.collections.clear();
  }
}
