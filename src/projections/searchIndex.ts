import type Database from 'better-sqlite3';
import type { SearchSnippet } from '#contract/search';
import type { ReadStore } from '../platform/readstore/port';
import type { SqliteReadStore } from '../platform/readstore/sqlite';
import { type ParsedQuery, prefixEnd } from './searchText';

/**
 * The search engine of the embedded store (docs/search.md, "On SQLite: FTS5"): one FTS5 row per
 * message and per ticket field, in the read store's own file, written by the search projection in
 * the transaction of its page. A row's rowid is its ticket's number times 2^24 plus its slot
 * (fields below MESSAGE_SLOT, a message at MESSAGE_SLOT + its position; numbers below 2^29 keep it
 * exact in a JavaScript number), so a ticket's rows are one rowid range: FTS5 answers "this word in
 * these tickets" by seeking their ranges, which keeps a customer's query inside their own tickets
 * and a query's ranking to the tickets it ranks.
 * Notes (and another customer's messages merged in by an admin) are rows of a table of their own,
 * which a customer's query and a token without `notes:read` never name.
 */

const TICKET_SPAN = 2 ** 24;
const MESSAGE_SLOT = 1024;
const TITLE_SLOT = 1;
const FIRST_FIELD_SLOT = 3;
/** BM25's term-frequency saturation. */
const K1 = 1.2;
const ROW_TABLES = ['search_fts', 'search_fts_notes'] as const;
/** Tickets of a query this close in number are ranked from one range of rows (`runsOf`). */
const RUN_GAP = 8;
/** A row's weight by where it is in its ticket, as MiniSearch's field boosts on the Mongo path. */
const weight = (rowid: string) =>
  `CASE WHEN (${rowid} % ${TICKET_SPAN}) >= ${MESSAGE_SLOT} THEN 1 WHEN (${rowid} % ${TICKET_SPAN}) = 0 THEN 6 WHEN (${rowid} % ${TICKET_SPAN}) = ${TITLE_SLOT} THEN 3 ELSE 1.5 END`;
const PERSON_WEIGHT = 2;

const TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'";
const SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_notes USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_people USING fts5(text, ${TOKENIZE});
  CREATE TABLE IF NOT EXISTS search_fts_tickets (number INTEGER PRIMARY KEY, ticket TEXT NOT NULL UNIQUE, customer TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS search_fts_tickets_customer ON search_fts_tickets (customer);
  CREATE TABLE IF NOT EXISTS search_fts_person_ids (id INTEGER PRIMARY KEY, person TEXT NOT NULL UNIQUE);
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_vocab USING fts5vocab(search_fts, 'row');
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_notes_vocab USING fts5vocab(search_fts_notes, 'row');
  CREATE TABLE IF NOT EXISTS search_fts_stats (rows INTEGER NOT NULL);
  INSERT INTO search_fts_stats (rows) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM search_fts_stats);`;
const TABLES = ['search_fts', 'search_fts_notes', 'search_fts_people', 'search_fts_tickets', 'search_fts_person_ids'];

interface TicketFields {
  _id: string;
  number: number;
  customer: string;
  title: string;
  description: string;
  fields: string[];
}

/** A ticket's field rows by slot: its number, title, description and custom field answers. */
const fieldTexts = (ticket: TicketFields) => [
  String(ticket.number),
  ticket.title,
  ticket.description,
  ...ticket.fields.slice(0, MESSAGE_SLOT - FIRST_FIELD_SLOT),
];

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
  wanted: FtsTerm[] | null;
  excluded: string[];
}

interface FtsTerm {
  match: string;
  /** A prefix of one word: ranked by the words of the index it begins (`rank`). */
  prefix: string | null;
  /** Its words, whose counts of rows bound a phrase's. */
  words: string[];
}

/** The characters FTS5's unicode61 files as parts of words: letters, digits, private use. Anything else separates words. */
const NOT_INDEXED = /[^\p{L}\p{N}\p{Co}]+/gu;

function term(words: string[], prefix: boolean): FtsTerm | null {
  const parts = words.join(' ').replace(NOT_INDEXED, ' ').trim().split(' ').filter(Boolean);
  if (parts.length === 0) return null;
  return { match: `"${parts.join(' ')}"${prefix ? '*' : ''}`, prefix: prefix && parts.length === 1 ? parts[0]! : null, words: parts };
}

export function ftsQuery(parsed: ParsedQuery): FtsQuery {
  const wanted = [...parsed.words.map((word) => term([word], !parsed.exact.has(word))), ...parsed.phrases.map((phrase) => term(phrase, false))];
  const excluded = parsed.excluded.flatMap((word) => term([word], false)?.match ?? []);
  return { wanted: wanted.length > 0 && wanted.every((found) => found !== null) ? (wanted as FtsTerm[]) : null, excluded };
}

const OWN = `own AS (SELECT number, number * ${TICKET_SPAN} AS lo, number * ${TICKET_SPAN} + ${TICKET_SPAN - 1} AS hi FROM search_fts_tickets WHERE customer = @customer)`;

/**
 * Ticket numbers as runs `[first, last]` of numbers at most RUN_GAP apart: the tickets a query ranks
 * are mostly the newest, so a few rowid ranges (one FTS5 cursor each) cover them, not one per ticket.
 */
function runsOf(numbers: number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const number of [...numbers].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && number - last[1] <= RUN_GAP) last[1] = number;
    else runs.push([number, number]);
  }
  return runs;
}

/** A row of a ticket, in the public or the notes' table. */
interface Source {
  table: (typeof ROW_TABLES)[number];
  rowid: number;
}

/** A ticket's score for a query and its newest row holding a word of it. */
interface Ranked {
  score: number;
  row: Source | null;
}

/** The text a hit's snippet is cut from and where it is. */
export interface SnippetSource extends Omit<SearchSnippet, 'highlights'> {
  text: string;
}

export class SearchIndex {
  private static readonly indexes = new WeakMap<Database.Database, SearchIndex>();
  private readonly statements = new Map<string, Database.Statement>();
  /** Rows added (less those removed) by the writes of the transaction running now: `transaction` files them in `search_fts_stats` once. */
  private rowsAdded = 0;

  private constructor(private readonly db: Database.Database) {}

  /**
   * The engine over the store's file, or null for a store that is not SQLite (the Mongo path's engine
   * serves those). A store standing in front of a SQLite one (a test's) passes its `database` on.
   */
  static of(store: ReadStore): SearchIndex | null {
    const db = store.kind === 'sqlite' ? (store as Partial<Pick<SqliteReadStore, 'database'>>).database : undefined;
    if (!db) return null;
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
    if (empty) this.transaction(() => this.db.exec(`${TABLES.map((table) => `DELETE FROM ${table};`).join('\n')} UPDATE search_fts_stats SET rows = 0;`));
  }

  /**
   * Runs the writes in the store's open transaction (a projection page's, as a savepoint) or in one of
   * their own; the rows they add or remove are counted in `search_fts_stats` once, at the end (a
   * write of that row per message cost as much as the message's own row).
   */
  transaction(work: () => void): void {
    const counted = () => {
      this.rowsAdded = 0;
      try {
        work();
        if (this.rowsAdded !== 0) this.statement('UPDATE search_fts_stats SET rows = rows + ?').run(this.rowsAdded);
      } finally {
        this.rowsAdded = 0;
      }
    };
    if (this.db.inTransaction) this.db.transaction(counted)();
    else this.db.transaction(counted).immediate();
  }

  // ---- Writes (the search projection, src/projections/search.ts)

  /**
   * Row by row: FTS5 deletes a rowid range by scanning its table (a millisecond a call at 15,000 rows),
   * a rowid by one seek.
   */
  private removeRows(rowids: Iterable<number>): void {
    const deletes = ROW_TABLES.map((table) => this.statement(`DELETE FROM ${table} WHERE rowid = ?`));
    let removed = 0;
    for (const rowid of rowids) for (const statement of deletes) removed += statement.run(rowid).changes;
    this.rowsAdded -= removed;
  }

  private insertRow(table: Source['table'], rowid: number, text: string, message: string | null): void {
    this.statement(`INSERT INTO ${table} (rowid, text, message) VALUES (?, ?, ?)`).run(rowid, text, message);
    this.rowsAdded += 1;
  }

  /**
   * A ticket's number and customer, as it opens. Written before any FTS5 row of the page (`putTicket`):
   * a statement that needs a statement journal (this INSERT OR REPLACE) makes FTS5 flush the rows it
   * holds in memory into a segment of their own, and between tickets that was one segment per ticket
   * (a fifth of a replay, merged again and again).
   */
  fileTicket(ticket: TicketFields): void {
    this.statement('INSERT OR REPLACE INTO search_fts_tickets (number, ticket, customer) VALUES (?, ?, ?)').run(ticket.number, ticket._id, ticket.customer);
  }

  /** A ticket's field rows as it opens: number, title, description, custom field answers (after `fileTicket`). */
  putTicket(ticket: TicketFields): void {
    const base = ticket.number * TICKET_SPAN;
    const texts = fieldTexts(ticket);
    this.removeRows(texts.map((_, slot) => base + slot));
    texts.forEach((text, slot) => {
      if (text) this.insertRow('search_fts', base + slot, text, null);
    });
  }

  /** Every row of a ticket: its fields' and those of each position its messages were given. */
  removeTicket(ticket: TicketFields & { lastSeq: number }): void {
    const base = ticket.number * TICKET_SPAN;
    this.removeRows(fieldTexts(ticket).map((_, slot) => base + slot));
    this.removeRows(Array.from({ length: ticket.lastSeq }, (_, at) => base + MESSAGE_SLOT + at + 1));
    this.statement('DELETE FROM search_fts_tickets WHERE number = ?').run(ticket.number);
  }

  /** A message's row (written again as it is now: a replayed page writes the same row). */
  putMessage(number: number, message: { messageId: string; seq: number; text: string; files: string[]; internal: boolean }): void {
    const rowid = number * TICKET_SPAN + MESSAGE_SLOT + message.seq;
    this.removeRows([rowid]);
    this.insertRow(message.internal ? 'search_fts_notes' : 'search_fts', rowid, [message.text, ...message.files].join('\n'), message.messageId);
  }

  removeMessage(number: number, seq: number): void {
    this.removeRows([number * TICKET_SPAN + MESSAGE_SLOT + seq]);
  }

  /** A person's name, username, e-mail and Telegram username, which find their tickets. */
  putPerson(person: string, text: string): void {
    this.statement('INSERT OR IGNORE INTO search_fts_person_ids (person) VALUES (?)').run(person);
    const { id } = this.statement('SELECT id FROM search_fts_person_ids WHERE person = ?').get(person) as { id: number };
    this.statement('DELETE FROM search_fts_people WHERE rowid = ?').run(id);
    this.statement('INSERT INTO search_fts_people (rowid, text) VALUES (?, ?)').run(id, text);
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
    const parts = query.wanted.map(({ match }, at) => {
      params[`w${at}`] = match;
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
   * BM25 per ticket of `numbers`, the ticket as the document (BM25F: a row holding the word counts by
   * where it is, a field's boost as its weight, no length normalisation), and the newest row holding a
   * word, for the snippet. FTS5's own `bm25()` and `snippet()` are not used: both count a word's rows
   * over the whole table at each call (18-42 ms a call for a word in 15,000 rows here). One pass over
   * each word's rows instead, in C, filtered to these tickets: a ticket of 5,000 messages costs what
   * 5,000 messages of other tickets do, and no row is read or scored in JavaScript.
   */
  rank(audience: Audience, numbers: number[], query: FtsQuery): Map<number, Ranked> {
    const ranked = new Map<number, Ranked>(numbers.map((number) => [number, { score: 0, row: null }]));
    if (!query.wanted || numbers.length === 0) return ranked;
    const total = (this.statement('SELECT rows FROM search_fts_stats').pluck().get() as number | undefined) ?? 0;
    const tables = audience.customer === null && audience.notes ? ROW_TABLES : ROW_TABLES.slice(0, 1);
    const people = `SELECT t.number AS number FROM search_fts_people p CROSS JOIN search_fts_person_ids i ON i.id = p.rowid
      CROSS JOIN search_fts_tickets t ON t.customer = i.person WHERE search_fts_people MATCH @term AND t.number IN (SELECT value FROM json_each(@numbers))`;
    const runs = JSON.stringify(runsOf(numbers));
    for (const wanted of query.wanted) {
      const found = this.rowsHolding(wanted, tables);
      const idf = Math.log(1 + (total - found + 0.5) / (found + 0.5));
      const tf = new Map<number, { tf: number; newest: Source | null }>();
      for (const table of tables) {
        const sql = `SELECT ${table}.rowid / ${TICKET_SPAN} AS number, sum(${weight(`${table}.rowid`)}) AS tf, max(${table}.rowid) AS newest
          FROM json_each(@runs) r CROSS JOIN ${table}
          WHERE ${table}.rowid BETWEEN (r.value ->> 0) * ${TICKET_SPAN} AND (r.value ->> 1) * ${TICKET_SPAN} + ${TICKET_SPAN - 1} AND ${table} MATCH @term
            AND ${table}.rowid / ${TICKET_SPAN} IN (SELECT value FROM json_each(@numbers))
          GROUP BY number`;
        for (const group of this.statement(sql).all({ term: wanted.match, runs, numbers: JSON.stringify(numbers) }) as Array<{
          number: number;
          tf: number;
          newest: number;
        }>) {
          const before = tf.get(group.number);
          const newer = !before?.newest || group.newest > before.newest.rowid;
          tf.set(group.number, { tf: (before?.tf ?? 0) + group.tf, newest: newer ? { table, rowid: group.newest } : before.newest });
        }
      }
      for (const number of this.statement(people)
        .pluck()
        .all({ term: wanted.match, numbers: JSON.stringify(numbers) }) as number[])
        tf.set(number, { tf: (tf.get(number)?.tf ?? 0) + PERSON_WEIGHT, newest: tf.get(number)?.newest ?? null });
      for (const [number, group] of tf) {
        const entry = ranked.get(number)!;
        entry.score += (idf * group.tf * (K1 + 1)) / (group.tf + K1);
        if (group.newest && (!entry.row || group.newest.rowid > entry.row.rowid)) entry.row = group.newest;
      }
    }
    return ranked;
  }

  /**
   * In how many rows a wanted term is, from FTS5's vocabulary tables (`fts5vocab`), never by reading
   * its rows: a prefix as often as the words it begins together, a phrase as its rarest word.
   */
  private rowsHolding(wanted: FtsTerm, tables: readonly string[]): number {
    const vocabularies = tables.map((table) => `${table}_vocab`);
    const count = (sql: string, ...params: string[]) =>
      vocabularies.reduce(
        (sum, vocabulary) =>
          sum +
          ((this.statement(sql.replace('$vocabulary', vocabulary))
            .pluck()
            .get(...params) as number | null) ?? 0),
        0,
      );
    if (wanted.prefix !== null) return count('SELECT sum(doc) FROM $vocabulary WHERE term >= ? AND term < ?', wanted.prefix, prefixEnd(wanted.prefix));
    return Math.min(...wanted.words.map((word) => count('SELECT doc FROM $vocabulary WHERE term = ?', word)));
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

  /** What a snippet is cut from: the row `rank` found newest (one seek), else the ticket's customer's person. */
  snippetSource(number: number, row: Source | null): SnippetSource | null {
    if (row) {
      const found = this.statement(`SELECT text, message FROM ${row.table} WHERE rowid = ?`).get(row.rowid) as
        { text: string; message: string | null } | undefined;
      if (found) {
        const slot = row.rowid - number * TICKET_SPAN;
        const source =
          slot >= MESSAGE_SLOT ? 'message' : slot === 0 ? 'number' : slot === TITLE_SLOT ? 'title' : slot === TITLE_SLOT + 1 ? 'description' : 'field';
        return { source, messageId: found.message, seq: slot >= MESSAGE_SLOT ? slot - MESSAGE_SLOT : null, text: found.text };
      }
    }
    const person = this.statement(
      `SELECT p.text FROM search_fts_tickets t JOIN search_fts_person_ids i ON i.person = t.customer JOIN search_fts_people p ON p.rowid = i.id WHERE t.number = ?`,
    )
      .pluck()
      .get(number) as string | undefined;
    return person === undefined ? null : { source: 'customer', messageId: null, seq: null, text: person };
  }
}
