import type Database from 'better-sqlite3';
import type { SearchSnippet } from '#contract/search';
import type { ReadStore } from '../platform/readstore/port';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import type { ParsedQuery } from './searchText';

/**
 * The search engine of the embedded store (docs/search.md, "On SQLite: FTS5"): one FTS5 row per
 * message and per ticket field, in the read store's own file, written by the search projection in
 * the transaction of its page. A row's rowid is its ticket's number times 2^24 plus its slot
 * (fields below MESSAGE_SLOT, a message at MESSAGE_SLOT + its position), so a ticket's rows are one
 * rowid range: FTS5 answers "this word in this ticket" by seeking that range, which is what keeps
 * a customer's query inside their own tickets and a hit's ranking and snippet off its other rows.
 * Notes (and another customer's messages merged in by an admin) are rows of a table of their own,
 * which a customer's query and a token without `notes:read` never name.
 */

const TICKET_SPAN = 2 ** 24;
const MESSAGE_SLOT = 1024;
const TITLE_SLOT = 1;
const FIRST_FIELD_SLOT = 3;
/** A ticket's messages ranked: its newest this many matching rows (and its fields), so a long conversation costs what a short one does. */
const RANKED_MESSAGES = 64;
/** Tokens around the match in a snippet (FTS5's `snippet()`), about 160 characters of text. */
const SNIPPET_TOKENS = 24;
/** Marks around a matched word in `snippet()`'s answer: never in indexed text (replaced by spaces when a row is written). */
const OPEN = '\u0002';
const CLOSE = '\u0003';
const unmarked = (text: string) => text.replaceAll(OPEN, ' ').replaceAll(CLOSE, ' ');
/** FTS5's weights by where a word is, as MiniSearch's boosts on the Mongo path. */
const weight = (table: string) =>
  `CASE WHEN (${table}.rowid % ${TICKET_SPAN}) >= ${MESSAGE_SLOT} THEN 1 WHEN (${table}.rowid % ${TICKET_SPAN}) = 0 THEN 6 WHEN (${table}.rowid % ${TICKET_SPAN}) = ${TITLE_SLOT} THEN 3 ELSE 1.5 END`;
const PERSON_WEIGHT = 2;

const TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'";
const SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_notes USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_people USING fts5(text, ${TOKENIZE});
  CREATE TABLE IF NOT EXISTS search_fts_tickets (number INTEGER PRIMARY KEY, ticket TEXT NOT NULL UNIQUE, customer TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS search_fts_tickets_customer ON search_fts_tickets (customer);
  CREATE TABLE IF NOT EXISTS search_fts_person_ids (id INTEGER PRIMARY KEY, person TEXT NOT NULL UNIQUE);`;
const TABLES = ['search_fts', 'search_fts_notes', 'search_fts_people', 'search_fts_tickets', 'search_fts_person_ids'];

/** Who searches: a customer (their id) sees their tickets' public rows; staff every ticket, notes if `notes`. */
export interface Audience {
  customer: string | null;
  notes: boolean;
}

/**
 * A query as FTS5 reads it, built from our own parse of the user's text (`parseQuery`): each
 * condition is a quoted string of letters, digits and spaces (a phrase), a prefix one followed by
 * `*`. No character of the user's text reaches FTS5 outside quotes, and inside them only word
 * characters do, so no input can make an FTS5 syntax error or use its operators.
 */
export interface FtsQuery {
  /** Every one must match somewhere in the ticket; null when a wanted word has no letter or digit FTS5 indexes (nothing matches). */
  wanted: string[] | null;
  excluded: string[];
}

/** The characters FTS5's unicode61 files as parts of words: letters, digits, private use. Anything else separates words. */
const NOT_INDEXED = /[^\p{L}\p{N}\p{Co}]+/gu;

function quoted(words: string[], prefix: boolean): string | null {
  const text = words.join(' ').replace(NOT_INDEXED, ' ').trim();
  return text ? `"${text}"${prefix ? '*' : ''}` : null;
}

export function ftsQuery(parsed: ParsedQuery): FtsQuery {
  const wanted = [...parsed.words.map((word) => quoted([word], !parsed.exact.has(word))), ...parsed.phrases.map((phrase) => quoted(phrase, false))];
  const excluded = parsed.excluded.map((word) => quoted([word], false)).filter((term): term is string => term !== null);
  return { wanted: wanted.length > 0 && wanted.every((term) => term !== null) ? (wanted as string[]) : null, excluded };
}

const anyOf = (terms: string[]) => terms.join(' OR ');
const allOf = (terms: string[]) => terms.join(' AND ');

const OWN = `own AS (SELECT number, number * ${TICKET_SPAN} AS lo, number * ${TICKET_SPAN} + ${TICKET_SPAN - 1} AS hi FROM search_fts_tickets WHERE customer = @customer)`;

/** What a snippet is cut from, found by the conditions of a row. */
interface Source {
  table: 'search_fts' | 'search_fts_notes';
  rowid: number;
}

export class SearchIndex {
  private static readonly indexes = new WeakMap<Database.Database, SearchIndex>();
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(private readonly db: Database.Database) {}

  /** The engine over the store's file, or null for a store that is not SQLite (the Mongo path's engine serves those). */
  static of(store: ReadStore): SearchIndex | null {
    if (!(store instanceof SqliteReadStore)) return null;
    const db = store.database;
    let index = SearchIndex.indexes.get(db);
    if (!index) {
      index = new SearchIndex(db);
      SearchIndex.indexes.set(db, index);
    }
    return index;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size > 500) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Creates the tables; `empty` (the search read model holds nothing: a first start or a reset) empties them too. */
  setup(empty: boolean): void {
    this.db.exec(SCHEMA);
    if (empty) this.transaction(() => this.db.exec(TABLES.map((table) => `DELETE FROM ${table};`).join('\n')));
  }

  /** Runs the writes in the store's open transaction (a projection page's, as a savepoint) or in one of their own. */
  transaction(work: () => void): void {
    if (this.db.inTransaction) this.db.transaction(work)();
    else this.db.transaction(work).immediate();
  }

  // ---- Writes (the search projection, src/projections/search.ts)

  private removeRows(from: number, to: number): void {
    for (const table of ['search_fts', 'search_fts_notes']) this.statement(`DELETE FROM ${table} WHERE rowid BETWEEN ? AND ?`).run(from, to);
  }

  private insertRow(table: Source['table'], rowid: number, text: string, message: string | null): void {
    this.statement(`INSERT INTO ${table} (rowid, text, message) VALUES (?, ?, ?)`).run(rowid, unmarked(text), message);
  }

  /** A ticket as it opens: its number, customer and fields (number, title, description, custom field answers). */
  putTicket(ticket: { _id: string; number: number; customer: string; title: string; description: string; fields: string[] }): void {
    const base = ticket.number * TICKET_SPAN;
    this.statement('INSERT OR REPLACE INTO search_fts_tickets (number, ticket, customer) VALUES (?, ?, ?)').run(ticket.number, ticket._id, ticket.customer);
    this.removeRows(base, base + MESSAGE_SLOT - 1);
    const texts = [String(ticket.number), ticket.title, ticket.description, ...ticket.fields.slice(0, MESSAGE_SLOT - FIRST_FIELD_SLOT)];
    texts.forEach((text, slot) => {
      if (text) this.insertRow('search_fts', base + slot, text, null);
    });
  }

  removeTicket(number: number): void {
    this.removeRows(number * TICKET_SPAN, (number + 1) * TICKET_SPAN - 1);
    this.statement('DELETE FROM search_fts_tickets WHERE number = ?').run(number);
  }

  /** A message's row (written again as it is now: a replayed page writes the same row). */
  putMessage(number: number, message: { messageId: string; seq: number; text: string; files: string[]; internal: boolean }): void {
    const rowid = number * TICKET_SPAN + MESSAGE_SLOT + message.seq;
    this.removeRows(rowid, rowid);
    this.insertRow(message.internal ? 'search_fts_notes' : 'search_fts', rowid, [message.text, ...message.files].join('\n'), message.messageId);
  }

  removeMessage(number: number, seq: number): void {
    const rowid = number * TICKET_SPAN + MESSAGE_SLOT + seq;
    this.removeRows(rowid, rowid);
  }

  /** A person's name, username, e-mail and Telegram username, which find their tickets. */
  putPerson(person: string, text: string): void {
    this.statement('INSERT OR IGNORE INTO search_fts_person_ids (person) VALUES (?)').run(person);
    const { id } = this.statement('SELECT id FROM search_fts_person_ids WHERE person = ?').get(person) as { id: number };
    this.statement('DELETE FROM search_fts_people WHERE rowid = ?').run(id);
    this.statement('INSERT INTO search_fts_people (rowid, text) VALUES (?, ?)').run(id, unmarked(text));
  }

  // ---- Reads (src/app/search)

  /**
   * The numbers of the tickets where `term` matches a row the audience may read, or their customer's
   * person: for a customer, only their tickets' ranges of the public rows are sought, and only their own person.
   */
  private ticketsMatching(audience: Audience, param: string): string {
    if (audience.customer !== null)
      return `SELECT search_fts.rowid / ${TICKET_SPAN} AS n FROM own CROSS JOIN search_fts
          WHERE search_fts.rowid BETWEEN own.lo AND own.hi AND search_fts MATCH @${param}
        UNION SELECT own.number FROM own WHERE EXISTS (SELECT 1 FROM search_fts_people WHERE search_fts_people MATCH @${param}
          AND search_fts_people.rowid = (SELECT id FROM search_fts_person_ids WHERE person = @customer))`;
    return [
      `SELECT rowid / ${TICKET_SPAN} AS n FROM search_fts WHERE search_fts MATCH @${param}`,
      ...(audience.notes ? [`SELECT rowid / ${TICKET_SPAN} FROM search_fts_notes WHERE search_fts_notes MATCH @${param}`] : []),
      `SELECT t.number FROM search_fts_tickets t WHERE t.customer IN (SELECT i.person FROM search_fts_person_ids i
        WHERE i.id IN (SELECT rowid FROM search_fts_people WHERE search_fts_people MATCH @${param}))`,
    ].join(' UNION ');
  }

  /** The ids of the tickets matching every wanted condition and no excluded word, as the audience may read them. */
  matching(audience: Audience, query: FtsQuery): string[] {
    if (!query.wanted) return [];
    const params: Record<string, string> = audience.customer !== null ? { customer: audience.customer } : {};
    const parts = query.wanted.map((term, at) => {
      params[`w${at}`] = term;
      return `SELECT n FROM (${this.ticketsMatching(audience, `w${at}`)})`;
    });
    const excluded = query.excluded.map((term, at) => {
      params[`x${at}`] = term;
      return ` EXCEPT SELECT n FROM (${this.ticketsMatching(audience, `x${at}`)})`;
    });
    const sql = `${audience.customer !== null ? `WITH ${OWN} ` : ''}SELECT t.ticket FROM search_fts_tickets t WHERE t.number IN (${parts.join(' INTERSECT ')}${excluded.join('')})`;
    return this.statement(sql).pluck().all(params) as string[];
  }

  /**
   * BM25 (FTS5's `bm25()`, weighted by where the word is) per ticket of `numbers`: the sum over its
   * fields' rows, its newest RANKED_MESSAGES matching messages and its customer's person, each ticket's
   * rows sought by its range. Statistics are the index's own, of words only (never of who may read).
   */
  scores(audience: Audience, numbers: number[], query: FtsQuery): Map<number, number> {
    if (!query.wanted || numbers.length === 0) return new Map();
    const tables = audience.customer === null && audience.notes ? ['search_fts', 'search_fts_notes'] : ['search_fts'];
    // The LIMIT also keeps SQLite from flattening the subquery, which would take bm25() out of its FTS5 context.
    const rowsOf = (table: string, from: string, to: string, limit: string) =>
      `(SELECT coalesce(sum(s), 0) FROM (SELECT bm25(${table}) * ${weight(table)} AS s FROM ${table}
        WHERE ${table} MATCH @q AND ${table}.rowid BETWEEN ${from} AND ${to} ORDER BY ${table}.rowid DESC${limit}))`;
    const ranges = tables.flatMap((table) => [
      rowsOf(table, `w.lo`, `w.lo + ${MESSAGE_SLOT - 1}`, ` LIMIT ${MESSAGE_SLOT}`),
      rowsOf(table, `w.lo + ${MESSAGE_SLOT}`, `w.lo + ${TICKET_SPAN - 1}`, ` LIMIT ${RANKED_MESSAGES}`),
    ]);
    const person = `(SELECT coalesce(sum(s), 0) * ${PERSON_WEIGHT} FROM (SELECT bm25(search_fts_people) AS s FROM search_fts_people WHERE search_fts_people MATCH @q
      AND search_fts_people.rowid = (SELECT i.id FROM search_fts_person_ids i JOIN search_fts_tickets t ON t.customer = i.person WHERE t.number = w.number) LIMIT 1))`;
    const sql = `SELECT w.number AS number, ${[...ranges, person].join(' + ')} AS score
      FROM (SELECT value AS number, value * ${TICKET_SPAN} AS lo FROM json_each(@numbers)) w`;
    const rows = this.statement(sql).all({ q: anyOf(query.wanted), numbers: JSON.stringify(numbers) }) as Array<{ number: number; score: number }>;
    // bm25() is negative, the better the lower.
    return new Map(rows.map(({ number, score }) => [number, -score || 0]));
  }

  /** The ticket numbers of ticket ids (those the index holds). */
  numbers(ids: string[]): Map<string, number> {
    const rows = this.statement('SELECT ticket, number FROM search_fts_tickets WHERE ticket IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(ids),
    ) as Array<{
      ticket: string;
      number: number;
    }>;
    return new Map(rows.map(({ ticket, number }) => [ticket, number]));
  }

  /**
   * The newest message row of the ticket holding every wanted condition, else any of them; else the
   * ticket's field that holds one (title, description, custom fields, then the number); else its
   * customer's person. Each is one seek into the ticket's range from its top, whatever its length.
   */
  snippet(audience: Audience, number: number, query: FtsQuery): SearchSnippet | null {
    if (!query.wanted) return null;
    const base = number * TICKET_SPAN;
    const tables: Array<Source['table']> = audience.customer === null && audience.notes ? ['search_fts', 'search_fts_notes'] : ['search_fts'];
    const newest = (match: string, from: number, to: number, descending: boolean): Source | null => {
      let best: Source | null = null;
      for (const table of tables) {
        const rowid = this.statement(
          `SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid ${descending ? 'DESC' : 'ASC'} LIMIT 1`,
        )
          .pluck()
          .get(match, from, to) as number | undefined;
        if (rowid !== undefined && (!best || (descending ? rowid > best.rowid : rowid < best.rowid))) best = { table, rowid };
      }
      return best;
    };
    const any = anyOf(query.wanted);
    const message =
      (query.wanted.length > 1 ? newest(allOf(query.wanted), base + MESSAGE_SLOT, base + TICKET_SPAN - 1, true) : null) ??
      newest(any, base + MESSAGE_SLOT, base + TICKET_SPAN - 1, true);
    const field = message ? null : (newest(any, base + TITLE_SLOT, base + MESSAGE_SLOT - 1, false) ?? newest(any, base, base, false));
    const found = message ?? field;
    if (found) {
      const row = this.statement(
        `SELECT snippet(${found.table}, 0, '${OPEN}', '${CLOSE}', '', ${SNIPPET_TOKENS}) AS text, message FROM ${found.table} WHERE ${found.table} MATCH ? AND rowid = ?`,
      ).get(any, found.rowid) as { text: string; message: string | null };
      const slot = found.rowid - base;
      const source =
        slot >= MESSAGE_SLOT ? 'message' : slot === 0 ? 'number' : slot === TITLE_SLOT ? 'title' : slot === TITLE_SLOT + 1 ? 'description' : 'field';
      return { source, messageId: row.message, seq: slot >= MESSAGE_SLOT ? slot - MESSAGE_SLOT : null, ...marked(row.text) };
    }
    const person = this.statement(
      `SELECT snippet(search_fts_people, 0, '${OPEN}', '${CLOSE}', '', ${SNIPPET_TOKENS}) FROM search_fts_people WHERE search_fts_people MATCH ?
        AND search_fts_people.rowid = (SELECT i.id FROM search_fts_person_ids i JOIN search_fts_tickets t ON t.customer = i.person WHERE t.number = ?)`,
    )
      .pluck()
      .get(any, number) as string | undefined;
    return person === undefined ? null : { source: 'customer', messageId: null, seq: null, ...marked(person) };
  }
}

/** `snippet()`'s text without its marks, and where they were as `[start, end)` offsets. */
function marked(text: string): { text: string; highlights: Array<[number, number]> } {
  let plain = '';
  let start = -1;
  const highlights: Array<[number, number]> = [];
  for (const char of text) {
    if (char === OPEN) start = plain.length;
    else if (char === CLOSE) {
      if (start >= 0) highlights.push([start, plain.length]);
      start = -1;
    } else plain += char;
  }
  return { text: plain, highlights };
}
