import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Query, aggregate, find } from 'mingo';
import { type BackgroundCheckpointer, checkpointInBackground } from '../eventstore/checkpointer';
import { type AnyObject, anchoredLiteral, applyUpdate, clone, isPlainObject, topLevelInclusion, upsertDocument } from './documents';
import { EPOCH_FIELD } from './fenced';
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

/** Where the store reports a query it had to answer by testing rows in JavaScript (docs/readstore.md). */
export interface ReadStoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

type Primitive = string | number | boolean | null;
type Clause = { sql: string; params: unknown[] };
type Row = { id: string; doc: string };

/**
 * The kinds of value a key entry holds (docs/readstore.md, "On SQLite"). An element of an array is
 * filed under its kind plus ELEMENT, so a range can tell scalars from elements.
 */
const NULL = 1;
const NUMBER = 2;
const STRING = 3;
const OBJECT = 5;
const BOOLEAN = 6;
const NESTED_ARRAY = 7;
/** The path runs through an array on the way: MongoDB matches its elements' fields, which mingo decides. */
const THROUGH_ARRAY = 9;
const ELEMENT = 10;

type Entry = [kind: number, value: string | number];

/** The kinds of key entry whose values a key column holds as JSON text, not as the value: arrays, their elements, objects. */
const NOT_SCALAR = [OBJECT, NESTED_ARRAY, ...[NULL, NUMBER, STRING, OBJECT, BOOLEAN, NESTED_ARRAY].map((kind) => kind + ELEMENT)].join(', ');

/** The strings a condition asks a field to equal (a string, `$eq` of one, `$in` of only strings), or null. */
function stringsOf(condition: unknown): string[] | null {
  if (typeof condition === 'string') return [condition];
  if (!isPlainObject(condition) || Object.keys(condition).length !== 1) return null;
  const { $eq: equal, $in: any } = condition as AnyObject;
  if (typeof equal === 'string') return [equal];
  if (!Array.isArray(any) || any.length === 0 || !any.every((item) => typeof item === 'string')) return null;
  return [...new Set(any as string[])];
}

const NUMBER_TYPES = "('integer','real')";
const SEGMENT = /^[A-Za-z0-9_@-]+$/;

/** A dotted path as an SQLite JSON path literal, or null where one cannot say it (numeric or odd segments). */
function jsonPath(path: string): string | null {
  const parts = path.split('.');
  if (parts.some((part) => !SEGMENT.test(part) || /^\d+$/.test(part))) return null;
  return `'$.${parts.map((part) => `"${part}"`).join('.')}'`;
}

/**
 * What decides a key column's value, as JSON text, for telling whether a write moves it: the value at
 * the path through sub-documents (an array on the way holds no field there, as for `->>`).
 */
function keyValueOf(doc: AnyObject, path: string): string | undefined {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = (value as AnyObject)[part];
  }
  return value === undefined ? undefined : JSON.stringify(value);
}

/** The values a `$push` appends (one, or `$each`'s), or null for one it cannot say in SQL (`$slice`, `$position`, `$sort`, operators). */
function pushed(value: unknown): unknown[] | null {
  if (isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$'))) {
    const { $each: each, ...rest } = value as AnyObject;
    return Array.isArray(each) && Object.keys(rest).length === 0 && each.every((item) => item !== undefined) ? each : null;
  }
  return value === undefined ? null : [value];
}

/** A top-level field's JSON path literal, or null for a dotted path or one SQLite cannot say. */
const topLevelPath = (field: string) => (field.includes('.') ? null : jsonPath(field));

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function entryOf(value: unknown, kindOffset: number): Entry {
  if (value === undefined || value === null || (typeof value === 'number' && !Number.isFinite(value))) return [NULL + kindOffset, ''];
  if (typeof value === 'number') return [NUMBER + kindOffset, value];
  if (typeof value === 'string') return [STRING + kindOffset, value];
  if (typeof value === 'boolean') return [BOOLEAN + kindOffset, value ? 1 : 0];
  if (Array.isArray(value)) return [NESTED_ARRAY + kindOffset, ''];
  return [OBJECT + kindOffset, ''];
}

/**
 * The key entries of a document for one field, as MongoDB's multikey index files them: the value,
 * or each element of an array (an empty array files nothing), a missing field as null. A path
 * through an array files one THROUGH_ARRAY entry: queries test those documents with mingo.
 */
function entriesOf(doc: AnyObject, path: string[]): Entry[] {
  let value: unknown = doc;
  for (const part of path) {
    if (Array.isArray(value)) return [[THROUGH_ARRAY, '']];
    if (!isPlainObject(value)) return [[NULL, '']];
    value = value[part];
  }
  if (!Array.isArray(value)) return [entryOf(value, 0)];
  const seen = new Map<string, Entry>();
  for (const element of value) {
    const entry = entryOf(element, ELEMENT);
    seen.set(`${entry[0]}:${typeof entry[1]}:${entry[1]}`, entry);
  }
  return [...seen.values()];
}

const splitPaths = new Map<string, string[]>();
/** An indexed path's segments (split once). */
function pathParts(path: string): string[] {
  let parts = splitPaths.get(path);
  if (!parts) {
    parts = path.split('.');
    splitPaths.set(path, parts);
  }
  return parts;
}

function keyOfEntry([kind, value]: Entry): string {
  return `${kind}:${typeof value}:${value}`;
}

/** `{ $regex: '^literal' }` (no options): the range of strings it matches, in SQLite's (code point) order; null otherwise. */
function prefixRange(condition: AnyObject): { lower: string; upper: string } | null {
  const points = [...(anchoredLiteral(condition) ?? '')];
  const last = points.at(-1)?.codePointAt(0);
  // The next code point must be a character SQLite stores as such (not a surrogate, not past the last).
  if (last === undefined || last === 0x10ffff || last === 0xd7ff) return null;
  return { lower: points.join(''), upper: points.slice(0, -1).join('') + String.fromCodePoint(last + 1) };
}

const isPrimitive = (value: unknown): value is Primitive =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

const COMPARISONS: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };

/** A test of one JSON value, given as SQL expressions for its type (json_type's names) and its SQL value. */
type ValueTest = (type: string, value: string) => Clause;

function equals(operand: Primitive): ValueTest {
  if (operand === null) return (type) => ({ sql: `(${type} IS NULL OR ${type} = 'null')`, params: [] });
  if (typeof operand === 'boolean') return (type) => ({ sql: `${type} IS '${operand}'`, params: [] });
  if (typeof operand === 'number') return (type, value) => ({ sql: `(${type} IN ${NUMBER_TYPES} AND ${value} = ?)`, params: [operand] });
  return (type, value) => ({ sql: `(${type} IS 'text' AND ${value} = ?)`, params: [operand] });
}

/** Any of the values: strings and numbers each looked up in one JSON list (one statement for any length). */
function inList(list: Primitive[]): ValueTest {
  const strings = [...new Set(list.filter((item): item is string => typeof item === 'string'))];
  const numbers = [...new Set(list.filter((item): item is number => typeof item === 'number'))];
  const others = [...new Set(list.filter((item) => typeof item !== 'string' && typeof item !== 'number'))].map(equals);
  return (type, value) => {
    const parts: Clause[] = others.map((test) => test(type, value));
    if (strings.length > 0) parts.push({ sql: `(${type} IS 'text' AND ${value} IN (SELECT value FROM json_each(?)))`, params: [JSON.stringify(strings)] });
    if (numbers.length > 0)
      parts.push({ sql: `(${type} IN ${NUMBER_TYPES} AND ${value} IN (SELECT value FROM json_each(?)))`, params: [JSON.stringify(numbers)] });
    return parts.length === 0 ? { sql: '0', params: [] } : joinClauses(parts, ' OR ');
  };
}

function compares(operator: string, operand: unknown): ValueTest | null {
  const sign = COMPARISONS[operator];
  if (!sign) return null;
  if (typeof operand === 'string') return (type, value) => ({ sql: `(${type} IS 'text' AND ${value} ${sign} ?)`, params: [operand] });
  if (typeof operand === 'number' && Number.isFinite(operand))
    return (type, value) => ({ sql: `(${type} IN ${NUMBER_TYPES} AND ${value} ${sign} ?)`, params: [operand] });
  return null;
}

/** Clauses joined by AND or OR. Over JOINED_FLAT of them, nested in halves: SQLite parses a chain as a tree as deep as the chain is long and refuses one deeper than 1,000 (a page of 1,000 tickets read up to as many marks). */
function joinClauses(parts: Clause[], glue: string): Clause {
  if (parts.length === 1) return parts[0]!;
  if (parts.length > JOINED_FLAT) {
    const half = Math.ceil(parts.length / 2);
    return joinClauses([joinClauses(parts.slice(0, half), glue), joinClauses(parts.slice(half), glue)], glue);
  }
  return { sql: `(${parts.map((part) => part.sql).join(glue)})`, params: parts.flatMap((part) => part.params) };
}

const JOINED_FLAT = 16;

const not = (clause: Clause): Clause => ({ sql: `NOT coalesce(${clause.sql}, 0)`, params: clause.params });

/** The regular expressions of `$regex` filters, compiled once. */
const patterns = new Map<string, RegExp>();
function regexTest(pattern: string, flags: string, value: unknown): number {
  if (typeof value !== 'string') return 0;
  const key = `${flags}/${pattern}`;
  let compiled = patterns.get(key);
  if (!compiled) {
    if (patterns.size > 1000) patterns.clear();
    compiled = new RegExp(pattern, flags);
    patterns.set(key, compiled);
  }
  return compiled.test(value) ? 1 : 0;
}

interface Declared {
  keys: Record<string, 1 | -1>;
  unique: boolean;
}

/** The part of the store every collection shares: the connection, its prepared statements, and the mingo tests a query hands to SQL. */
class Engine {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly matchers = new Map<number, Query>();
  private nextMatcher = 0;
  unindexedScans = 0;
  fullScans = 0;
  private readonly reported = new Set<string>();
  private readonly explained = new Set<string>();
  /** In a read's transaction (`SqliteCollection.run`): schema changes wait for `later`. */
  reading = false;
  /** Schema changes a read asked for, by name, made at the next turn in transactions of their own. */
  private readonly deferred = new Map<string, () => void>();

  constructor(
    filename: string,
    private readonly logger: ReadStoreLogger | undefined,
  ) {
    this.db = new Database(filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // The page cache is what the read models cost in memory: 64 MB keeps a word index's hot pages (docs/readstore.md).
    this.db.pragma('cache_size = -65536');
    this.db.function('mongo_match', (doc, handle) => (this.matchers.get(handle as number)!.test(JSON.parse(doc as string) as AnyObject) ? 1 : 0));
    this.db.function('mongo_regex', { deterministic: true }, (pattern, flags, value) => regexTest(pattern as string, flags as string, value));
    this.db
      .exec(`CREATE TABLE IF NOT EXISTS readstore_indexes (collection TEXT NOT NULL, keys TEXT NOT NULL, is_unique INTEGER NOT NULL, PRIMARY KEY (collection, keys));
      CREATE TABLE IF NOT EXISTS readstore_fields (f INTEGER PRIMARY KEY, collection TEXT NOT NULL, path TEXT NOT NULL, UNIQUE (collection, path));`);
  }

  /** Makes `change` (an index a read found missing) at the next turn, once however many reads ask; a failure is logged and asked again by the next read. */
  later(name: string, change: () => void): void {
    if (this.deferred.has(name)) return;
    this.deferred.set(name, change);
    setImmediate(() => {
      this.deferred.delete(name);
      try {
        if (this.db.open) change();
      } catch (error) {
        this.logger?.warn({ err: error, index: name }, 'read store: an index a query needs could not be made; the next query asks again');
      }
    });
  }

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Filters of new shapes make new statements; a long-running process keeps the recent ones.
      if (this.statements.size > 2000) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs a statement (prepared once per SQL text). Its `{ matcher }` parameters are filters SQL could
   * not say: each is compiled with mingo and bound as a handle `mongo_match(json(doc), handle)` finds.
   */
  execute<R>(sql: string, params: unknown[], work: (statement: Database.Statement, bound: unknown[]) => R): R {
    const handles: number[] = [];
    try {
      const bound = params.map((param) => {
        if (param === null || typeof param !== 'object' || !('matcher' in param)) return param;
        const handle = this.nextMatcher++;
        this.matchers.set(handle, new Query((param as { matcher: Filter }).matcher));
        handles.push(handle);
        return handle;
      });
      if (!this.explained.has(sql)) this.explain(sql, bound);
      return work(this.statement(sql), bound);
    } finally {
      for (const handle of handles) this.matchers.delete(handle);
    }
  }

  /**
   * Asks SQLite once per statement how it will run it: a full scan of a collection's table for a
   * filter (not a listing of the whole collection) is counted in `fullScans` and logged, so a query
   * no index serves shows up in development and tests, not first at scale.
   */
  private explain(sql: string, bound: unknown[]): void {
    if (this.explained.size > 2000) this.explained.clear();
    this.explained.add(sql);
    if (!sql.startsWith('SELECT') || / WHERE 1(?: ORDER| LIMIT|$)/.test(sql)) return;
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...bound) as Array<{ detail: string }>;
    const scans = plan.filter(({ detail }) => /^SCAN "?[ck]:/.test(detail) && !detail.includes(' USING '));
    if (scans.length === 0) return;
    this.fullScans++;
    this.logger?.warn({ sql, plan: scans.map(({ detail }) => detail) }, 'read store: query reads the whole collection (no index serves its filter)');
  }

  /** A query whose filter SQL could not say: counted, and logged once per collection and filter shape. */
  reportScan(collection: string, filter: Filter): void {
    this.unindexedScans++;
    const shape = `${collection} ${JSON.stringify(shapeOf(filter))}`;
    if (this.reported.has(shape) || this.reported.size > 1000) return;
    this.reported.add(shape);
    this.logger?.warn({ collection, filter: shapeOf(filter) }, 'read store: filter tested row by row with mingo (no SQL for it)');
  }
}

/** A filter with its values left out: what a log line may say of it. */
function shapeOf(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(shapeOf);
  if (!isPlainObject(filter)) return '?';
  return Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, key.startsWith('$') || isPlainObject(value) ? shapeOf(value) : '?']));
}

function mapError(name: string, error: unknown): unknown {
  // By its code, not its class: under Jest each test file loads the module again, the native addon keeps its first class.
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (!code.startsWith('SQLITE_')) return error;
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new DuplicateKeyError(name, ['_id']);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
    // A unique index on key columns names them: "UNIQUE constraint failed: c:<name>.x:<path>, ...".
    const table = `c:${name}.`;
    const columns = /UNIQUE constraint failed: (.*)$/.exec((error as Error).message)?.[1]?.split(', ') ?? [];
    const keys = columns
      .map((column) => (column.startsWith(table) ? column.slice(table.length) : column))
      .map((column) => (column.startsWith('x:') ? column.slice(2) : '_id'));
    return new DuplicateKeyError(name, keys.length > 0 ? keys : ['_id']);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new TransientStoreError(name, error);
  return error;
}

/** Readers never see the fencing epoch a fenced writer stamps (src/platform/readstore/fenced.ts). */
function parseOut<T>(text: string): T {
  const doc = JSON.parse(text) as AnyObject;
  if (EPOCH_FIELD in doc) delete doc[EPOCH_FIELD];
  return doc as T;
}

/**
 * A collection in two tables: `c:<name>` holds the documents as JSONB by id, `k:<name>` the key
 * entries of its indexed fields (field number, kind, value, id), which answer equalities, `$in`,
 * ranges and word prefixes, on scalars and on arrays' elements alike. Each method is one
 * transaction: a write reads the document, applies the update in JavaScript and writes it back
 * with its key entries.
 */
class SqliteCollection<T extends Doc> implements Collection<T> {
  private readonly docs: string;
  private readonly keys: string;
  private ready = false;
  /** Declared indexes, by their keys' JSON. */
  private declared = new Map<string, Declared>();
  /** Indexed fields (the first key of each declared index) and their numbers in the key table. */
  private fields = new Map<string, number>();
  /** The top-level fields the indexed paths run through, and their columns (null where SQL cannot name one), kept until `fields` changes. */
  private tops: { size: number; fields: string[]; columns: string | null } | null = null;
  /**
   * The key columns: one per path a declared index sorts or is unique on (`x:<path>`, the value `doc ->>`
   * reads there), which the sort and unique indexes are made on. An index on an expression of `doc`
   * was maintained at every write of the document (SQLite cannot tell that the expression kept its
   * value): 12 such indexes on 100,000 tickets made an update of an unindexed field 213 µs against 18.
   * A write sets only the columns whose value moved, so only their indexes are maintained.
   */
  private columns = new Map<string, string>();
  private sortIndexes = new Set<string>();
  /** The statements of a write, made once: the SQL text of each call was built and hashed again. */
  private readonly sql: Record<'insert' | 'update' | 'remove' | 'byId' | 'addKey' | 'removeKey', string>;

  constructor(
    readonly name: string,
    private readonly engine: Engine,
  ) {
    this.docs = quote(`c:${name}`);
    this.keys = quote(`k:${name}`);
    this.sql = {
      insert: `INSERT INTO ${this.docs} (id, doc) VALUES (?, jsonb(?))`,
      update: `UPDATE ${this.docs} SET doc = jsonb(?) WHERE id = ?`,
      remove: `DELETE FROM ${this.docs} WHERE id = ?`,
      byId: `SELECT json(doc) FROM ${this.docs} WHERE id = ?`,
      addKey: `INSERT OR IGNORE INTO ${this.keys} (f, t, v, id) VALUES (?, ?, ?, ?)`,
      removeKey: `DELETE FROM ${this.keys} WHERE f = ? AND t = ? AND v = ? AND id = ?`,
    };
  }

  private get db() {
    return this.engine.db;
  }

  private ensure(): void {
    if (this.ready) return;
    // Looked up first: a connection whose schema predates tables another one made would take the write lock for a CREATE ... IF NOT EXISTS.
    const tables = this.db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)")
      .get(`c:${this.name}`, `k:${this.name}`) as {
      n: number;
    };
    if (tables.n < 2)
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.docs} (id TEXT PRIMARY KEY, doc BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS ${this.keys} (f INTEGER NOT NULL, t INTEGER NOT NULL, v NOT NULL, id TEXT NOT NULL, PRIMARY KEY (f, t, v, id)) WITHOUT ROWID;`);
    this.declared = new Map(
      (this.db.prepare('SELECT keys, is_unique FROM readstore_indexes WHERE collection = ?').all(this.name) as Array<{ keys: string; is_unique: number }>).map(
        (row) => [row.keys, { keys: JSON.parse(row.keys) as Record<string, 1 | -1>, unique: row.is_unique === 1 }],
      ),
    );
    this.fields = new Map(
      (this.db.prepare('SELECT f, path FROM readstore_fields WHERE collection = ?').all(this.name) as Array<{ f: number; path: string }>).map((row) => [
        row.path,
        row.f,
      ]),
    );
    this.columns = new Map(
      (this.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(`c:${this.name}`) as string[])
        .filter((column) => column.startsWith('x:'))
        .map((column) => [column.slice(2), quote(column)]),
    );
    this.tops = null;
    const sorted = [...this.declared.values()].flatMap(({ keys }) => Object.keys(keys));
    if (sorted.some((path) => path !== '_id' && jsonPath(path) && !this.columns.has(path))) {
      for (const path of sorted) this.addColumn(path);
      // A file of before the key columns: its indexes on expressions of `doc` are made again on them (sort indexes on their first use).
      const stale = this.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE '%doc ->>%'")
        .pluck()
        .all(`c:${this.name}`) as string[];
      for (const index of stale) this.db.exec(`DROP INDEX ${quote(index)}`);
      for (const { keys, unique } of this.declared.values()) if (unique) this.uniqueIndex(keys);
    }
    this.ready = true;
  }

  /** Adds the key column of a path (filled from the stored documents), once. */
  private addColumn(path: string): void {
    if (path === '_id' || !jsonPath(path) || this.columns.has(path)) return;
    const column = quote(`x:${path}`);
    this.db.exec(`ALTER TABLE ${this.docs} ADD COLUMN ${column}; UPDATE ${this.docs} SET ${column} = doc ->> ${jsonPath(path)!};`);
    this.columns.set(path, column);
    this.tops = null;
  }

  private uniqueIndex(keys: Record<string, 1 | -1>): void {
    const paths = Object.keys(keys).map((key) => (key === '_id' ? 'id' : (this.columns.get(key) ?? null)));
    if (paths.some((path) => path === null)) throw new Error(`Cannot index ${this.name} on ${Object.keys(keys).join(', ')}`);
    this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${quote(this.uniqueIndexName(keys))} ON ${this.docs} (${paths.join(', ')})`);
  }

  /**
   * Runs `work` in a transaction of its own, or inside the one open (a page's, `transaction`) without a
   * savepoint: a write can only fail at its first statement (the document's row), which SQLite undoes
   * alone, so a failed write leaves nothing behind either way. SQLite's errors are made the port's.
   */
  private run<R>(work: () => R, reads = false): R {
    try {
      this.ensure();
      if (this.db.inTransaction) return work();
      // A read takes no write lock: another process on the file (`npm run workers`) may be committing a page meanwhile.
      if (!reads) return this.db.transaction(work).immediate();
      this.engine.reading = true;
      try {
        return this.db.transaction(work).deferred();
      } finally {
        this.engine.reading = false;
      }
    } catch (error) {
      throw mapError(this.name, error);
    }
  }

  private uniqueIndexName(keys: Record<string, 1 | -1>): string {
    return `u:${this.name}:${JSON.stringify(keys)}`;
  }

  // ---- Filters as SQL

  /** The filter as an SQL condition on the documents' table; the parts SQL cannot say are tested by mingo (`mongo_match`). */
  private where(filter: Filter): Clause {
    const { clause, rest } = this.translate(filter);
    if (rest.length === 0) return clause;
    const residual = rest.length === 1 ? rest[0]! : { $and: rest };
    this.engine.reportScan(this.name, residual);
    return joinClauses([clause, { sql: 'mongo_match(json(doc), ?)', params: [{ matcher: residual }] }], ' AND ');
  }

  /** The filter as SQL: what it can say, and the top-level conditions left to mingo. */
  private translate(filter: Filter): { clause: Clause; rest: Filter[] } {
    const parts: Clause[] = [];
    const rest: Filter[] = [];
    for (const [key, condition] of Object.entries(filter)) {
      if (key === '$and' && Array.isArray(condition)) {
        for (const part of condition) {
          if (!isPlainObject(part)) return { clause: { sql: '1', params: [] }, rest: [filter] };
          const translated = this.translate(part);
          parts.push(translated.clause);
          rest.push(...translated.rest);
        }
        continue;
      }
      if ((key === '$or' || key === '$nor') && Array.isArray(condition) && condition.length > 0) {
        const branches = condition.map((part) => (isPlainObject(part) ? this.translate(part) : null));
        if (branches.every((branch) => branch !== null && branch.rest.length === 0)) {
          const either = joinClauses(
            branches.map((branch) => branch!.clause),
            ' OR ',
          );
          parts.push(key === '$or' ? either : not(either));
          continue;
        }
      }
      const clause = key.startsWith('$') ? null : this.condition(key, condition);
      if (clause) parts.push(clause);
      else rest.push({ [key]: condition });
    }
    return { clause: parts.length === 0 ? { sql: '1', params: [] } : joinClauses(parts, ' AND '), rest };
  }

  /** One field's condition as SQL, or null when SQL cannot say it exactly. */
  private condition(field: string, condition: unknown): Clause | null {
    if (field === '_id') return idCondition(condition);
    const number = this.fields.get(field);
    if (number !== undefined && !this.holds(number, `t = ${THROUGH_ARRAY}`)) {
      const column = this.columnCondition(field, number, condition);
      if (column) return column;
      const keyed = this.keyedCondition(number, condition);
      if (keyed) return keyed;
    }
    const path = jsonPath(field);
    if (!path) return null;
    const direct = jsonCondition(path, condition);
    if (!direct) return null;
    const prefixes = field
      .split('.')
      .slice(0, -1)
      .map((_, at, parts) => jsonPath(parts.slice(0, at + 1).join('.'))!);
    if (prefixes.length === 0) return direct;
    // An array on the way: MongoDB matches its elements' fields, which mingo decides for those few documents.
    return {
      sql: `CASE WHEN ${prefixes.map((prefix) => `json_type(doc, ${prefix}) IS 'array'`).join(' OR ')} THEN mongo_match(json(doc), ?) ELSE coalesce(${direct.sql}, 0) END`,
      params: [{ matcher: { [field]: condition } }, ...direct.params],
    };
  }

  /**
   * A condition on a field a declared index starts with, said on the field's key column: a string equality
   * (or `$eq`, or `$in` of strings) and `$ne: null`, served by the SQL indexes of those declared indexes (made
   * on first use), which give the matching rows in the index's order where the key entries list every match
   * for each to be looked up by id and sorted (a page of 50 of the 1,678 open tickets, by priority: 2.1 ms
   * against 0.12; their count 0.50 against 0.04); a `$ne` of a string as the column's `IS NOT` (no document
   * read, no list of the entries to leave out). Exact only while the field holds scalars, since the column
   * holds the JSON text of an array or object: null (the key entries answer) once any document holds one there.
   */
  private columnCondition(field: string, number: number, condition: unknown): Clause | null {
    const column = this.columns.get(field);
    const other = isPlainObject(condition) && Object.keys(condition).length === 1 ? (condition as AnyObject).$ne : undefined;
    const strings = typeof other === 'string' ? [other] : other === null ? [] : stringsOf(condition);
    if (!column || !strings || this.holds(number, `t IN (${NOT_SCALAR})`)) return null;
    // Any other value, or none: `IS NOT` holds for NULL (a missing field) too, as `$ne` does.
    if (typeof other === 'string') return { sql: `${column} IS NOT ?`, params: strings };
    let served = false;
    for (const { keys, unique } of this.declared.values()) if (Object.keys(keys)[0] === field && (unique || this.sqlIndex(keys))) served = true;
    if (!served) return null;
    // A value there: the index's non-null part (the key table listed every null entry to leave out). Said as a
    // range, since SQLite's planner scans the table for an `IS NOT NULL` (37 ms at 100,000 rows, its pages
    // left in the cache): every number, and every string after them, is at least -Infinity; NULL is not.
    if (other === null) return { sql: `${column} >= -9e999`, params: [] };
    return strings.length === 1
      ? { sql: `${column} = ?`, params: strings }
      : { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(strings)] };
  }

  /** Whether the field's key entries hold any of the given kind (an index seek). */
  private holds(field: number, kinds: string): boolean {
    return this.engine.statement(`SELECT 1 FROM ${this.keys} WHERE f = ? AND ${kinds} LIMIT 1`).get(field) !== undefined;
  }

  /** A condition on an indexed field, answered from its key entries; null for what they cannot answer. */
  private keyedCondition(field: number, condition: unknown): Clause | null {
    const ids = (test: string, params: unknown[]): Clause => ({ sql: `id IN (SELECT id FROM ${this.keys} WHERE f = ${field} AND ${test})`, params });
    const equalsEntry = (value: Primitive): { sql: string; params: unknown[] } => {
      const [kind, stored] = entryOf(value, 0);
      return kind === NULL
        ? { sql: `t IN (${NULL}, ${NULL + ELEMENT})`, params: [] }
        : { sql: `(t IN (${kind}, ${kind + ELEMENT}) AND v = ?)`, params: [stored] };
    };
    if (isPrimitive(condition)) {
      const { sql, params } = equalsEntry(condition);
      return ids(sql, params);
    }
    if (!isPlainObject(condition)) return null;
    const range = prefixRange(condition);
    if (range) return ids(`t IN (${STRING}, ${STRING + ELEMENT}) AND v >= ? AND v < ?`, [range.lower, range.upper]);
    const operators = Object.entries(condition);
    if (operators.length === 0) return null;
    const parts: Clause[] = [];
    const bounds: Array<[string, string | number]> = [];
    for (const [operator, operand] of operators) {
      if (operator === '$eq' && isPrimitive(operand)) parts.push(ids(equalsEntry(operand).sql, equalsEntry(operand).params));
      else if (operator === '$ne' && isPrimitive(operand)) parts.push(not(ids(equalsEntry(operand).sql, equalsEntry(operand).params)));
      else if ((operator === '$in' || operator === '$nin') && Array.isArray(operand) && operand.every(isPrimitive)) {
        if (operand.length === 0) {
          parts.push({ sql: operator === '$in' ? '0' : '1', params: [] });
          continue;
        }
        // One test per kind of value, its values as one JSON array: a test per value made an OR as long as the list.
        const byKind = new Map<number, Primitive[]>();
        for (const value of operand) {
          const [kind, stored] = entryOf(value, 0);
          byKind.set(kind, [...(byKind.get(kind) ?? []), kind === NULL ? null : (stored as Primitive)]);
        }
        const tests = [...byKind].map(([kind, values]) =>
          kind === NULL
            ? equalsEntry(null)
            : values.length === 1
              ? { sql: `(t IN (${kind}, ${kind + ELEMENT}) AND v = ?)`, params: values }
              : { sql: `(t IN (${kind}, ${kind + ELEMENT}) AND v IN (SELECT value FROM json_each(?)))`, params: [JSON.stringify(values)] },
        );
        const any = ids(
          `(${tests.map((test) => test.sql).join(' OR ')})`,
          tests.flatMap((test) => test.params),
        );
        parts.push(operator === '$in' ? any : not(any));
      } else if (COMPARISONS[operator] && (typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand))))
        bounds.push([operator, operand]);
      else return null;
    }
    if (bounds.length > 0) {
      const kind = typeof bounds[0]![1] === 'string' ? STRING : NUMBER;
      if (bounds.some(([, operand]) => (typeof operand === 'string' ? STRING : NUMBER) !== kind)) return null;
      const test = (some: Array<[string, string | number]>) =>
        ids(
          `t IN (${kind}, ${kind + ELEMENT}) AND ${some.map(([operator]) => `v ${COMPARISONS[operator]} ?`).join(' AND ')}`,
          some.map(([, operand]) => operand),
        );
      // On an array MongoDB lets each bound be met by another element: one range only when no document holds an array there.
      if (bounds.length === 1 || !this.holds(field, `t >= ${ELEMENT}`)) parts.push(test(bounds));
      else for (const bound of bounds) parts.push(test([bound]));
    }
    return joinClauses(parts, ' AND ');
  }

  // ---- Reads

  private rows(filter: Filter, options: FindOptions = {}, columns = 'id, json(doc) AS doc'): Array<Record<string, unknown>> {
    const order = options.sort ? this.orderBy(options.sort) : '';
    const limit = options.limit ? ` LIMIT ${Math.floor(options.limit)}` : options.skip ? ' LIMIT -1' : '';
    const offset = options.skip ? ` OFFSET ${Math.floor(options.skip)}` : '';
    const where = this.where(filter);
    return this.engine.execute(
      `SELECT ${columns} FROM ${this.docs} WHERE ${where.sql}${order}${limit}${offset}`,
      where.params,
      (statement, params) => statement.all(...params) as Array<Record<string, unknown>>,
    );
  }

  /** A sort as SQL, served by an expression index when a declared index has those keys (or all reversed): made on first use. */
  private orderBy(sort: Record<string, 1 | -1>): string {
    const fields = Object.keys(sort);
    const spec = [...this.declared.values()].find(
      ({ keys, unique }) =>
        !unique && Object.keys(keys).join() === fields.join() && (fields.every((f) => keys[f] === sort[f]) || fields.every((f) => keys[f] === -sort[f]!)),
    );
    const expressions = fields.map((field) =>
      field === '_id' ? 'id' : (this.columns.get(field) ?? (jsonPath(field) ? `(doc ->> ${jsonPath(field)})` : null)),
    );
    if (expressions.some((expression) => expression === null)) throw new Error(`Cannot sort ${this.name} by ${fields.join(', ')}`);
    if (spec) this.sqlIndex(spec.keys);
    return ` ORDER BY ${fields.map((field, at) => `${expressions[at]} ${sort[field] === 1 ? 'ASC' : 'DESC'}`).join(', ')}`;
  }

  /**
   * The SQL index of a declared index on its key columns, made on its first use (a sort in its order, or an
   * equality on its first key; docs/readstore.md): false where a key has no column (`_id`, or a path SQL cannot say).
   */
  private sqlIndex(keys: Record<string, 1 | -1>): boolean {
    const fields = Object.keys(keys);
    if (fields.includes('_id') || !fields.every((field) => this.columns.has(field))) return false;
    const name = `s:${this.name}:${JSON.stringify(keys)}`;
    if (this.sortIndexes.has(name)) return true;
    const columns = fields.map((field) => `${this.columns.get(field)!} ${keys[field] === 1 ? 'ASC' : 'DESC'}`);
    const create = () => {
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${quote(name)} ON ${this.docs} (${columns.join(', ')})`);
      this.sortIndexes.add(name);
    };
    if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name)) this.sortIndexes.add(name);
    // In a read's transaction the index waits for the next turn: a read cannot take the write lock once
    // another connection (the projection thread, another process) committed after its snapshot began.
    else if (this.engine.reading) {
      this.engine.later(name, create);
      return false;
    } else create();
    return true;
  }

  private findSync(filter: Filter, options: FindOptions = {}): T[] {
    const picked = topLevelInclusion(options.projection);
    if (picked?.every((field) => SEGMENT.test(field))) {
      const columns = picked.map((field, at) => (field === '_id' ? 'id AS _id' : `doc -> ${jsonPath(field)} AS f${at}`));
      return this.rows(filter, options, columns.join(', ')).map((row) => {
        const doc: AnyObject = {};
        picked.forEach((field, at) => {
          if (field === '_id') doc._id = row._id;
          else if (row[`f${at}`] !== null && field !== EPOCH_FIELD) doc[field] = JSON.parse(row[`f${at}`] as string);
        });
        return doc as T;
      });
    }
    const docs = this.rows(filter, options).map((row) => parseOut<T>(row.doc as string));
    return options.projection ? (find(docs as AnyObject[], {}, options.projection).all() as T[]) : docs;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return this.run(() => this.findSync(filter, { limit: 1 })[0] ?? null, true);
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return this.run(() => this.findSync(filter, options), true);
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.run(() => this.rows(filter, {}, 'count(*) AS n')[0]!.n as number, true);
  }

  async aggregate<R = AnyObject>(pipeline: Pipeline): Promise<R[]> {
    const [first, ...rest] = pipeline;
    const matched = first && isPlainObject(first.$match) && Object.keys(first).length === 1;
    return this.run(() => {
      const counted = matched ? this.countedBy(first.$match as Filter, rest) : null;
      if (counted) return counted as R[];
      const docs = this.findSync(matched ? (first.$match as Filter) : {});
      return aggregate(docs as AnyObject[], matched ? rest : pipeline) as R[];
    }, true);
  }

  /**
   * `$match` then a `$group` by a top-level field or into one group (`_id: null`) with one `$sum`, of 1 (a
   * count) or of a top-level field (its numbers; others count nothing, as in MongoDB), in one SQL statement,
   * no document read into JavaScript: a page's unread counts (50 counts were 2.8 ms, this is 0.4), the
   * dashboard's tickets created this week (848 buckets read and parsed: 0.8 ms). Null for any other pipeline.
   */
  private countedBy(filter: Filter, rest: Pipeline): AnyObject[] | null {
    const group = rest.length === 1 && Object.keys(rest[0]!).length === 1 ? rest[0]!.$group : undefined;
    if (!isPlainObject(group) || Object.keys(group).length !== 2) return null;
    const { _id: by, ...accumulators } = group as AnyObject;
    const [name, accumulator] = Object.entries(accumulators)[0] ?? [];
    const summed = isPlainObject(accumulator) && Object.keys(accumulator).length === 1 ? (accumulator as AnyObject).$sum : undefined;
    const field = typeof by === 'string' && by.startsWith('$') ? by.slice(1) : null;
    const path = field && field !== '_id' ? topLevelPath(field) : null;
    const addend = typeof summed === 'string' && summed.startsWith('$') && summed.slice(1) !== '_id' ? topLevelPath(summed.slice(1)) : null;
    if (!name || (by !== null && !path) || (summed !== 1 && !addend)) return null;
    const where = this.where(filter);
    // The key column where it holds the values themselves (strings, numbers, or NULL for null and missing):
    // counted from the index, no document read. Otherwise the JSON of the value, a missing field with null as in MongoDB.
    const number = field === null ? undefined : this.fields.get(field);
    const column = number !== undefined && !this.holds(number, `t IN (${THROUGH_ARRAY}, ${BOOLEAN}, ${NOT_SCALAR})`) ? this.columns.get(field!) : undefined;
    const key = path === null ? 'NULL' : (column ?? `coalesce(doc -> ${path}, 'null')`);
    const total = addend ? `coalesce(sum(CASE WHEN json_type(doc, ${addend}) IN ${NUMBER_TYPES} THEN doc ->> ${addend} END), 0)` : 'count(*)';
    const rows = this.engine.execute(
      `SELECT ${key} AS k, ${total} AS n FROM ${this.docs} WHERE ${where.sql} GROUP BY k`,
      where.params,
      (statement, params) => statement.all(...params) as Array<{ k: string | number | null; n: number }>,
    );
    return rows.map(({ k, n }) => ({ _id: column || path === null ? k : (JSON.parse(k as string) as unknown), [name]: n }));
  }

  // ---- Writes

  private stored(filter: Filter, limit?: number): AnyObject[] {
    if (typeof filter._id === 'string' && Object.keys(filter).length === 1) {
      // By id alone (most writes): one prepared lookup, no filter to translate.
      const doc = this.engine.statement(this.sql.byId).pluck().get(filter._id) as string | undefined;
      return doc === undefined ? [] : [JSON.parse(doc) as AnyObject];
    }
    return this.rows(filter, limit ? { limit } : {}).map((row) => JSON.parse(row.doc as string) as AnyObject);
  }

  /** Writes a document's new state (null: deleted) and moves its key entries from what it held. */
  private write(before: AnyObject | null, after: AnyObject | null): void {
    const id = (after?._id ?? before?._id) as string;
    const sql = this.sql;
    if (!after) this.engine.statement(sql.remove).run(id);
    else if (this.columns.size === 0)
      this.engine.statement(before ? sql.update : sql.insert).run(...(before ? [JSON.stringify(after), id] : [id, JSON.stringify(after)]));
    else if (!before) {
      const columns = [...this.columns];
      this.engine
        .statement(
          `INSERT INTO ${this.docs} (id, doc, ${columns.map(([, column]) => column).join(', ')})
            SELECT ?, d, ${columns.map(([path]) => `d ->> ${jsonPath(path)!}`).join(', ')} FROM (SELECT jsonb(?) AS d)`,
        )
        .run(id, JSON.stringify(after));
    } else {
      // Only the key columns whose value moved: the indexes of the others are left alone.
      const moved = [...this.columns].filter(([path]) => keyValueOf(before, path) !== keyValueOf(after, path));
      this.engine
        .statement(
          moved.length === 0
            ? sql.update
            : `UPDATE ${this.docs} SET doc = new.d, ${moved.map(([path, column]) => `${column} = new.d ->> ${jsonPath(path)!}`).join(', ')}
                FROM (SELECT jsonb(?) AS d) AS new WHERE id = ?`,
        )
        .run(JSON.stringify(after), id);
    }
    for (const [path, field] of this.fields) {
      const parts = pathParts(path);
      const old = before ? entriesOf(before, parts) : [];
      const now = after ? entriesOf(after, parts) : [];
      // Mostly one value that stayed: nothing to move.
      if (old.length === 1 && now.length === 1 && old[0]![0] === now[0]![0] && old[0]![1] === now[0]![1]) continue;
      const oldKeys = new Set(old.map(keyOfEntry));
      const nowKeys = new Set(now.map(keyOfEntry));
      for (const entry of old) if (!nowKeys.has(keyOfEntry(entry))) this.engine.statement(sql.removeKey).run(field, entry[0], entry[1], id);
      for (const entry of now) if (!oldKeys.has(keyOfEntry(entry))) this.engine.statement(sql.addKey).run(field, entry[0], entry[1], id);
    }
  }

  private insertSync(doc: T): void {
    this.write(null, doc as unknown as AnyObject);
  }

  private updateOneSync(filter: Filter, update: Update, upsert = false): UpdateResult {
    const inPlace = upsert ? null : this.setInPlace(filter, update);
    if (inPlace) return inPlace;
    const [doc] = this.stored(filter, 1);
    if (doc) return { matched: 1, modified: this.modify(doc, update) ? 1 : 0, upsertedId: null };
    if (!upsert) return { matched: 0, modified: 0, upsertedId: null };
    const created = upsertDocument(filter, update);
    this.write(null, created);
    return { matched: 0, modified: 0, upsertedId: created._id as string };
  }

  private modify(doc: AnyObject, update: Update): boolean {
    const { $setOnInsert: _ignored, ...modifier } = update;
    if (Object.keys(modifier).length === 0) return false;
    const before = clone(doc);
    if (applyUpdate(doc, modifier).length === 0) return false;
    this.write(before, doc);
    return true;
  }

  private updateManySync(filter: Filter, update: Update): UpdateResult {
    const inPlace = this.setInPlace(filter, update, true);
    if (inPlace) return inPlace;
    const docs = this.stored(filter);
    let modified = 0;
    for (const doc of docs) if (this.modify(doc, update)) modified++;
    return { matched: docs.length, modified, upsertedId: null };
  }

  /**
   * `{ $set }` of top-level fields no index files, on a document named by its id (or, `many`, on every
   * document the filter matches): one UPDATE with `jsonb_set`, the documents never read into
   * JavaScript (a conditional write of a projection, like satisfaction's revision guard, costs a
   * statement; the runner's checkpoints after a page, one `updateMany` of 16 documents, two instead of
   * 16 reads and writes). A field already holding the value (the same JSON) leaves the document
   * unmodified, as MongoDB counts it. With it, a `$push` (a value or `$each`) onto such a field that
   * holds an array appends with `jsonb_insert` (the feed's positions of a customer, a growing list, at
   * every message): where the field is missing or no array, the document is written the usual way.
   * Null where the update is not of that kind (nothing done).
   */
  private setInPlace(filter: Filter, update: Update, many = false): UpdateResult | null {
    const { $set: set = {}, $push: push = {}, ...others } = update;
    if ((!many && typeof filter._id !== 'string') || !isPlainObject(set) || !isPlainObject(push) || Object.keys(others).length > 0) return null;
    const fields = Object.entries(set);
    const appended = Object.entries(push).map(([field, value]) => [field, pushed(value)] as const);
    const indexed = this.indexedTops().fields;
    const plain = (field: string) => field !== '_id' && !indexed.includes(field) && topLevelPath(field) !== null;
    if (
      fields.length + appended.length === 0 ||
      fields.some(([field, value]) => value === undefined || !plain(field)) ||
      // Appends by id only: a document of many that holds no array there would leave the others appended to before the usual way.
      (appended.length > 0 && many) ||
      appended.some(([field, values]) => !values?.length || !plain(field) || field in set)
    )
      return null;
    const paths = fields.map(([field]) => topLevelPath(field)!);
    const values = fields.map(([, value]) => JSON.stringify(value));
    const appends = appended.flatMap(([field, each]) => each!.map((value) => [`'$.${'"'}${field}"[#]'`, JSON.stringify(value)] as const));
    let doc = 'doc';
    for (const [path] of appends) doc = `jsonb_insert(${doc}, ${path}, json(?))`;
    if (paths.length > 0) doc = `jsonb_set(${doc}, ${paths.map((path) => `${path}, json(?)`).join(', ')})`;
    const where = this.where(filter);
    // Counted first: the update may move the documents out of the filter (a guard on the field it sets).
    const matched = many
      ? this.engine.execute(
          `SELECT count(*) FROM ${this.docs} WHERE ${where.sql}`,
          where.params,
          (statement, params) => statement.pluck().get(...params) as number,
        )
      : null;
    if (matched === 0) return { matched: 0, modified: 0, upsertedId: null };
    // An append always modifies, onto arrays only; a $set alone leaves alone the documents that hold its values.
    const condition =
      appended.length > 0
        ? appended.map(([field]) => `json_type(doc, ${topLevelPath(field)!}) IS 'array'`).join(' AND ')
        : `NOT (${paths.map((path) => `doc -> ${path} IS json(?)`).join(' AND ')})`;
    const changed = this.engine.execute(
      `UPDATE ${this.docs} SET doc = ${doc} WHERE ${where.sql} AND ${condition}`,
      [...appends.map(([, value]) => value), ...values, ...where.params, ...(appended.length > 0 ? [] : values)],
      (statement, params) => statement.run(...params).changes,
    );
    if (appended.length > 0) return changed > 0 ? { matched: 1, modified: 1, upsertedId: null } : null;
    if (matched !== null) return { matched, modified: changed, upsertedId: null };
    if (changed > 0) return { matched: 1, modified: 1, upsertedId: null };
    return { matched: this.rows(filter, { limit: 1 }, '1').length, modified: 0, upsertedId: null };
  }

  /**
   * A stored document's indexed fields (and id), or null when there is none (or `filter`, its guard,
   * does not match it): all that writing it again needs of it (its key entries). A dotted path reads
   * its top-level field whole (an array on the way files differently), never the rest of the document.
   */
  private indexedTops(): { fields: string[]; columns: string | null } {
    if (this.tops?.size !== this.fields.size + this.columns.size) {
      const fields = [...new Set([...this.fields.keys(), ...this.columns.keys()].map((path) => path.split('.')[0]!))];
      const columns = fields.some((field) => !topLevelPath(field)) ? null : ['id', ...fields.map((field) => `doc -> ${topLevelPath(field)!}`)].join(', ');
      this.tops = { size: this.fields.size + this.columns.size, fields, columns };
    }
    return this.tops;
  }

  private storedKeys(id: string, filter?: Filter): AnyObject | null {
    const { fields: tops, columns } = this.indexedTops();
    if (columns === null) return this.stored(filter ?? { _id: id }, 1)[0] ?? null;
    const where = filter ? this.where(filter) : { sql: 'id = ?', params: [id] };
    const row = this.engine.execute(
      `SELECT ${columns} FROM ${this.docs} WHERE ${where.sql} LIMIT 1`,
      where.params,
      (statement, params) => statement.raw().get(...params) as Array<string | null> | undefined,
    );
    if (!row) return null;
    const doc: AnyObject = { _id: id };
    tops.forEach((field, at) => {
      const value = row[at + 1];
      if (value !== null && value !== undefined) doc[field] = JSON.parse(value);
    });
    return doc;
  }

  private replaceOneSync(filter: Filter, replacement: T, upsert = false): UpdateResult {
    if (typeof filter._id === 'string') {
      // By id (and a guard, like a projection's revision): the document's key entries are all it needs of what is stored.
      const guarded = Object.keys(filter).length > 1;
      const before = this.storedKeys(filter._id, guarded ? filter : undefined);
      if (!before && !upsert) return { matched: 0, modified: 0, upsertedId: null };
      // A guarded upsert that missed goes the general way (it may meet the id and fail on its key, as on MongoDB).
      if (before || !guarded) {
        this.write(before, { ...(replacement as unknown as AnyObject), _id: filter._id });
        return before ? { matched: 1, modified: 1, upsertedId: null } : { matched: 0, modified: 0, upsertedId: filter._id };
      }
    }
    const [doc] = this.stored(filter, 1);
    if (!doc && !upsert) return { matched: 0, modified: 0, upsertedId: null };
    const id = (doc?._id as string | undefined) ?? replacement._id ?? (typeof filter._id === 'string' ? filter._id : randomUUID());
    const next = { ...(replacement as unknown as AnyObject), _id: id };
    // An upsert whose filter missed a document of the same id fails on its primary key, as on MongoDB.
    this.write(doc ?? null, next);
    return doc ? { matched: 1, modified: 1, upsertedId: null } : { matched: 0, modified: 0, upsertedId: id };
  }

  private deleteSync(filter: Filter, limit?: number): number {
    const docs = this.stored(filter, limit);
    for (const doc of docs) this.write(doc, null);
    return docs.length;
  }

  async insertOne(doc: T): Promise<void> {
    this.run(() => this.insertSync(doc));
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    return this.run(() => this.updateOneSync(filter, update, options.upsert));
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.run(() => this.updateManySync(filter, update));
  }

  async replaceOne(filter: Filter, doc: T, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    return this.run(() => this.replaceOneSync(filter, doc, options.upsert));
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.run(() => this.deleteSync(filter, 1));
  }

  async deleteMany(filter: Filter = {}): Promise<number> {
    return this.run(() => this.deleteSync(filter));
  }

  /** One transaction: the writes before a failing one are committed, it and the ones after are not done. */
  async bulkWrite(ops: BulkOp<T>[]): Promise<BulkResult> {
    let failure: unknown = null;
    const total = noWrites();
    this.run(() => {
      for (const op of ops) {
        try {
          tally(
            total,
            this.run(() => this.writeOne(op)),
          );
        } catch (error) {
          failure = error;
          return;
        }
      }
    });
    if (failure) throw failure;
    return total;
  }

  private writeOne(op: BulkOp<T>): UpdateResult | number | 'inserted' {
    if ('insertOne' in op) {
      this.insertSync(op.insertOne.document);
      return 'inserted';
    }
    if ('updateOne' in op) return this.updateOneSync(op.updateOne.filter, op.updateOne.update, op.updateOne.upsert);
    if ('updateMany' in op) return this.updateManySync(op.updateMany.filter, op.updateMany.update);
    if ('replaceOne' in op) return this.replaceOneSync(op.replaceOne.filter, op.replaceOne.replacement, op.replaceOne.upsert);
    if ('deleteOne' in op) return this.deleteSync(op.deleteOne.filter, 1);
    return this.deleteSync(op.deleteMany.filter);
  }

  // ---- Indexes

  async createIndex(spec: IndexSpec): Promise<void> {
    const keysJson = JSON.stringify(spec.keys);
    const unique = spec.unique ?? false;
    this.run(() => {
      const known = this.declared.get(keysJson);
      if (known && known.unique === unique) return;
      // Declared again with other options, the new declaration wins (a read model that dropped a unique constraint).
      if (known?.unique) this.db.exec(`DROP INDEX IF EXISTS ${quote(this.uniqueIndexName(known.keys))}`);
      this.db.prepare('INSERT OR REPLACE INTO readstore_indexes (collection, keys, is_unique) VALUES (?, ?, ?)').run(this.name, keysJson, unique ? 1 : 0);
      this.declared.set(keysJson, { keys: { ...spec.keys }, unique });
      for (const key of Object.keys(spec.keys)) this.addColumn(key);
      if (unique) this.uniqueIndex(spec.keys);
      this.indexField(Object.keys(spec.keys)[0]!);
    });
  }

  /** Files every document's entries for a field newly indexed (one pass over the collection). */
  private indexField(path: string): void {
    if (path === '_id' || this.fields.has(path) || !jsonPath(path)) return;
    const field = Number(this.db.prepare('INSERT INTO readstore_fields (collection, path) VALUES (?, ?)').run(this.name, path).lastInsertRowid);
    this.fields.set(path, field);
    const parts = path.split('.');
    const insert = this.engine.statement(this.sql.addKey);
    for (const row of this.engine.statement(`SELECT id, json(doc) AS doc FROM ${this.docs}`).all() as Row[]) {
      for (const [kind, value] of entriesOf(JSON.parse(row.doc) as AnyObject, parts)) insert.run(field, kind, value, row.id);
    }
  }

  /** The tables and index definitions go; a collection that is not there is dropped already. */
  async drop(): Promise<void> {
    // A collection never made is gone already: no tables made only to be dropped (a retired model's, at every start).
    const made = this.ready || this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)").get(`c:${this.name}`, `k:${this.name}`);
    if (!made) return;
    this.run(() => {
      this.db.exec(`DROP TABLE IF EXISTS ${this.docs}; DROP TABLE IF EXISTS ${this.keys};`);
      this.db.prepare('DELETE FROM readstore_indexes WHERE collection = ?').run(this.name);
      this.db.prepare('DELETE FROM readstore_fields WHERE collection = ?').run(this.name);
    });
    this.ready = false;
    this.sortIndexes.clear();
    this.columns.clear();
    this.tops = null;
  }
}

/** A condition on `_id` (the primary key column), or null for one SQL does not say. */
function idCondition(condition: unknown): Clause | null {
  if (typeof condition === 'string') return { sql: 'id = ?', params: [condition] };
  if (!isPlainObject(condition)) return null;
  const parts: Clause[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if ((operator === '$in' || operator === '$nin') && Array.isArray(operand) && operand.every(isPrimitive)) {
      const strings = operand.filter((item) => typeof item === 'string');
      // None (words, ratings or service levels that matched no ticket): a constant, so SQLite reads nothing rather
      // than walking what the other conditions select (the open tickets: 7.6 ms at 100,000 tickets) to test each id.
      if (strings.length === 0) parts.push({ sql: operator === '$in' ? '0' : '1', params: [] });
      else parts.push({ sql: `id ${operator === '$in' ? '' : 'NOT '}IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(strings)] });
    } else if ((operator === '$eq' || operator === '$ne') && typeof operand === 'string')
      parts.push({ sql: `id ${operator === '$eq' ? '=' : '<>'} ?`, params: [operand] });
    else if (COMPARISONS[operator] && typeof operand === 'string') parts.push({ sql: `id ${COMPARISONS[operator]} ?`, params: [operand] });
    else return null;
  }
  return parts.length === 0 ? null : joinClauses(parts, ' AND ');
}

/**
 * A condition on a field at a JSON path, with MongoDB's semantics: a value test holds for the value
 * or any element of an array there. Null for what SQL does not say (sub-document or array operands,
 * `$elemMatch`, `$size`, `$type` and the like).
 */
function jsonCondition(path: string, condition: unknown): Clause | null {
  const type = `json_type(doc, ${path})`;
  const anyValue = (test: ValueTest): Clause => {
    const element = test('e.type', 'e.value');
    const scalar = test(type, `(doc ->> ${path})`);
    return {
      sql: `(CASE ${type} WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(doc, ${path}) e WHERE ${element.sql}) ELSE coalesce(${scalar.sql}, 0) END)`,
      params: [...element.params, ...scalar.params],
    };
  };
  if (isPrimitive(condition)) return anyValue(equals(condition));
  if (!isPlainObject(condition)) return null;
  const parts: Clause[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operator === '$options') continue;
    if ((operator === '$eq' || operator === '$ne') && isPrimitive(operand)) {
      const test = anyValue(equals(operand));
      parts.push(operator === '$eq' ? test : not(test));
    } else if ((operator === '$in' || operator === '$nin') && Array.isArray(operand) && operand.every(isPrimitive)) {
      const test = anyValue(inList(operand));
      parts.push(operator === '$in' ? test : not(test));
    } else if (operator === '$all' && Array.isArray(operand) && operand.every(isPrimitive)) {
      parts.push(
        operand.length === 0
          ? { sql: '0', params: [] }
          : joinClauses(
              operand.map((item) => anyValue(equals(item))),
              ' AND ',
            ),
      );
    } else if (operator === '$exists') {
      parts.push({ sql: `${type} IS ${operand ? 'NOT ' : ''}NULL`, params: [] });
    } else if (operator === '$regex' && typeof operand === 'string') {
      const options = condition.$options ?? '';
      if (typeof options !== 'string' || !/^[ims]*$/.test(options)) return null;
      parts.push(anyValue((elementType, value) => ({ sql: `(${elementType} IS 'text' AND mongo_regex(?, ?, ${value}))`, params: [operand, options] })));
    } else if (operator === '$not' && isPlainObject(operand) && !('$regex' in operand)) {
      const inner = jsonCondition(path, operand);
      if (!inner) return null;
      parts.push(not(inner));
    } else {
      const test = compares(operator, operand);
      if (!test) return null;
      parts.push(anyValue(test));
    }
  }
  return parts.length === 0 ? null : joinClauses(parts, ' AND ');
}

/**
 * The embedded read store on disk: every collection in one SQLite file (WAL, synchronous=NORMAL),
 * so memory is bounded by SQLite's page cache and a start applies only the log after its checkpoints. Filters become SQL
 * over the JSONB documents and the key tables of their indexes; what SQL cannot say is tested with
 * mingo row by row, counted in `unindexedScans` and logged (docs/readstore.md, "On SQLite").
 */
export class SqliteReadStore implements ReadStore {
  readonly kind = 'sqlite' as const;
  private readonly engine: Engine;
  private readonly collections = new Map<string, SqliteCollection<Doc>>();
  private transactions: Promise<unknown> = Promise.resolve();
  private readonly checkpointer: BackgroundCheckpointer | null = null;

  /** `backgroundCheckpoints` false: another connection to the file in this process has the checkpointer (the projection thread's, thread.ts). */
  constructor({ filename, logger, backgroundCheckpoints = true }: { filename: string; logger?: ReadStoreLogger; backgroundCheckpoints?: boolean }) {
    this.engine = new Engine(filename, logger);
    // As the event log's: a commit that crosses 1,000 pages of WAL no longer copies them back on the event loop (checkpointer.ts).
    if (filename !== ':memory:' && filename !== '' && backgroundCheckpoints)
      this.checkpointer = checkpointInBackground(this.engine.db, filename, (error) =>
        logger?.warn({ error }, 'read store: background WAL checkpoint failed; commits past the mark checkpoint themselves'),
      );
  }

  /** Queries answered by testing rows with mingo, since the store opened. */
  get unindexedScans(): number {
    return this.engine.unindexedScans;
  }

  /** Query shapes whose plan reads a whole collection for a filter, since the store opened (each counted once). */
  get fullScans(): number {
    return this.engine.fullScans;
  }

  /**
   * The connection, for an index of SQLite's own that a read model keeps beside its collections (the
   * search projection's FTS5 tables, docs/search.md): a statement run on it joins the transaction the
   * store has open (a projection page's), and `database.transaction` nests in it as a savepoint.
   */
  get database(): Database.Database {
    return this.engine.db;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new SqliteCollection<Doc>(name, this.engine);
      this.collections.set(name, collection);
    }
    return collection as unknown as Collection<T>;
  }

  /**
   * One SQLite transaction around `work` (BEGIN IMMEDIATE ... COMMIT; ROLLBACK when it throws): each
   * write inside is a savepoint of it, and the pages its writes dirty reach the WAL once, at commit.
   * Transactions queue behind each other, since the connection holds one at a time.
   */
  transaction<R>(work: () => Promise<R>): Promise<R> {
    const result = this.transactions.then(async () => {
      const { engine } = this;
      // Prepared once (a live page of one post prepared both again: 0.015 ms of its 2.8 ms of main thread).
      engine.statement('BEGIN IMMEDIATE').run();
      try {
        const answer = await work();
        engine.statement('COMMIT').run();
        return answer;
      } catch (error) {
        if (engine.db.inTransaction) engine.statement('ROLLBACK').run();
        throw error;
      }
    });
    this.transactions = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.transactions;
    await this.checkpointer?.stop();
    this.collections.clear();
    if (this.engine.db.open) this.engine.db.close();
  }
}
