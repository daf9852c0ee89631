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
/**
 * A query's tickets are read as a few ranges of rows (`runsOf`): each range is one FTS5 cursor,
 * which seeks the word in every segment of the index (about 0.13 ms with the dozen segments of
 * 100,000 tickets before `mergeSegments` kept them few), while a row read inside a range costs some 30 ns: a gap between two tickets is
 * worth a cursor of its own when it holds more than SEEK_ROWS rows of the word.
 */
const MAX_RUNS = 6;
const SEEK_ROWS = 4000;
/** Ranking splits the window's numbers at gaps worth a cursor (SEEK_ROWS), up to this many ranges. */
const RANK_RUNS = 32;
/** Words whose counts of rows `rowsHolding` keeps. */
const VOCABULARY_KEPT = 2000;
/** A row's weight by where it is in its ticket, as MiniSearch's field boosts on the Mongo path. */
const weight = (rowid: string) =>
  `CASE WHEN (${rowid} % ${TICKET_SPAN}) >= ${MESSAGE_SLOT} THEN 1 WHEN (${rowid} % ${TICKET_SPAN}) = 0 THEN 6 WHEN (${rowid} % ${TICKET_SPAN}) = ${TITLE_SLOT} THEN 3 ELSE 1.5 END`;
const PERSON_WEIGHT = 2;

const TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'";
/**
 * A prefix longer than the longest prefix index (`headphon…`) is answered by merging the rows of
 * every word it begins over the whole index, at each cursor: its query reads one range of rows
 * (`runsOf`), so the merge is done once.
 */
const LONGEST_PREFIX = 8;
const longPrefix = (terms: FtsTerm[]) => terms.some(({ prefix }) => prefix !== null && [...prefix].length > LONGEST_PREFIX);
const SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_notes USING fts5(text, message UNINDEXED, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_people USING fts5(text, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_words USING fts5(public, notes, big, detail = column, ${TOKENIZE});
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_words_more USING fts5(public, notes, detail = column, ${TOKENIZE});
  CREATE TABLE IF NOT EXISTS search_fts_tickets (number INTEGER PRIMARY KEY, ticket TEXT NOT NULL UNIQUE, customer TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS search_fts_tickets_customer ON search_fts_tickets (customer);
  CREATE TABLE IF NOT EXISTS search_fts_words_extra (number INTEGER PRIMARY KEY, settled INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS search_fts_person_ids (id INTEGER PRIMARY KEY, person TEXT NOT NULL UNIQUE);
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_vocab USING fts5vocab(search_fts, 'row');
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_notes_vocab USING fts5vocab(search_fts_notes, 'row');
  CREATE TABLE IF NOT EXISTS search_fts_stats (rows INTEGER NOT NULL);
  INSERT INTO search_fts_stats (rows) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM search_fts_stats);
  CREATE TABLE IF NOT EXISTS search_fts_rebuilt (since INTEGER PRIMARY KEY);`;
const TABLES = [
  'search_fts',
  'search_fts_notes',
  'search_fts_people',
  'search_fts_tickets',
  'search_fts_person_ids',
  'search_fts_words',
  'search_fts_words_more',
  'search_fts_words_extra',
];
/** The FTS5 tables, whose segments `mergeSegments` merges. */
const FTS_TABLES = TABLES.filter((table) => !['search_fts_tickets', 'search_fts_person_ids', 'search_fts_words_extra'].includes(table));
/** Every table of the index, vocabularies first (they read the FTS5 tables): an emptied index is these dropped and created again. */
const ALL_TABLES = ['search_fts_vocab', 'search_fts_notes_vocab', ...TABLES, 'search_fts_stats', 'search_fts_rebuilt'];
/**
 * Pages of merged index a merge slice writes (FTS5's `merge` command), finishing the word it is at:
 * at 100,000 tickets a slice took 0.7 ms of CPU at the median and 4-9 at the 99th percentile.
 */
const MERGE_PAGES = 16;
/**
 * A level's segments are merged once it holds this many (FTS5's `usermerge`; its own `automerge`
 * waits for four). At two, the largest segment is rewritten now and then: 2.8 ms of CPU a commit of
 * one post at 100,000 tickets, against 0.08 ms at three, for at most 6 segments a table against 9.
 */
const MERGE_AT = 3;
/**
 * Pages a slice of `settle` writes: nothing live waits on it (the desk is still starting), so slices
 * are longer than the timer's, which costs less in all (each slice seeks its place in every segment again).
 */
const SETTLE_PAGES = 256;
/** How often the index looks for segments to merge, as the store's WAL checkpoints do. */
const MERGE_EVERY_MS = 500;
/** How long the timer's merging may take of each MERGE_EVERY_MS (at most 4% of a core): a busy desk merges less, an idle one catches up. */
const MERGE_BUDGET_MS = 20;
/**
 * A ticket's word row holds at most this many distinct words; past this (a long conversation) its
 * words stay in rows of their own in `search_fts_words_more` for good (its `settled` mark).
 */
const WORDS_PER_ROW = 500;
/**
 * Tickets whose known words `writeWords` keeps between posts (`knownWords`), the most recently written: some 5 KB
 * each with the full-size desk's 65 words a ticket, up to some 30 KB at a word row's 500, for more conversations
 * than run at once.
 */
const KNOWN_TICKETS = 1000;
/** Tickets whose word rows one slice of `mergeSegments` rewrites with the words their posts filed apart (`foldSlice`). */
const FOLD_TICKETS = 16;
/**
 * A conversation going on is folded once its posts have filed this many rows apart, or once it has
 * been quiet for FOLD_QUIET_MS: a fold rewrites the whole word row (every word and its prefixes), so
 * folding after each post, as the timer did while 200 conversations posted every second, cost
 * 0.14 ms of a post's 2.8 ms of main thread plus merging what it wrote (docs/benchmark.md).
 */
const FOLD_ROWS = 32;
const FOLD_QUIET_MS = 10_000;
/** Listed tickets a slice looks through for those due (the conversations going on are skipped). */
const FOLD_CANDIDATES = 5000;
/** Yields the event loop between two slices of merging. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** A word's key for telling a ticket's words apart: ASCII folds as FTS5 folds it; other words stay as written (FTS5 folds them). */
const wordKey = (word: string) => (/^[\x21-\x7e]*$/.test(word) ? word.toLowerCase() : word);
const wordsOf = (texts: Iterable<string>, into = new Map<string, string>()) => {
  for (const text of texts) for (const word of text.split(NOT_INDEXED)) if (word && !into.has(wordKey(word))) into.set(wordKey(word), word);
  return into;
};

/** The texts a page added to a ticket, or `recompute` when it changed or removed one (its words are read again from its rows). */
interface Touched {
  recompute: boolean;
  public: string[];
  notes: string[];
}

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
 * Ticket numbers as at most `most` ranges `[first, last]`, split at the widest gaps between them
 * (those wider than `widerThan`):
 * the tickets a query ranks are mostly the newest, so one or two ranges hold most of them, and a
 * scattered few cost a longer range of rows read, never one cursor per ticket. Callers keep only
 * the rows of their tickets.
 */
function runsOf(numbers: number[], most: number, widerThan = 0): Array<[number, number]> {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const splits = new Set(
    sorted
      .slice(1)
      .map((number, at) => ({ at: at + 1, gap: number - sorted[at]! }))
      .filter(({ gap }) => gap > widerThan)
      .sort((a, b) => b.gap - a.gap)
      .slice(0, most - 1)
      .map(({ at }) => at),
  );
  const runs: Array<[number, number]> = [[sorted[0]!, sorted[0]!]];
  sorted.slice(1).forEach((number, at) => {
    if (splits.has(at + 1)) runs.push([number, number]);
    else runs.at(-1)![1] = number;
  });
  return runs;
}

/** Staff's matches of a query by ticket number: how many, which, and which of some tickets. */
export interface WordMatches {
  count(): number;
  numbers(): number[];
  among(numbers: number[]): Set<number>;
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
  /** The tickets whose texts the transaction running now changed: `transaction` writes their word rows once, at its end. */
  private readonly touched = new Map<number, Touched | 'removed'>();
  /**
   * The words a ticket's word row and its rows filed apart hold, as `writeWords` last read or wrote them, with the
   * last rowid of those apart (null: none), for tickets whose words are not settled (`knownWords`).
   */
  private readonly known = new Map<number, { words: Set<string>; last: number | null }>();
  /**
   * Tickets whose posts filed rows apart since this process last folded them: how many rows and when the
   * last (`foldSlice` leaves a conversation going on alone). A ticket not here (rows filed before a
   * restart, or counted in a page rolled back) is folded when the timer comes to it.
   */
  private readonly apart = new Map<number, { rows: number; at: number }>();
  /** Rows holding a word, by vocabulary and word, with the index's row count when they were counted (`rowsHolding`). */
  private readonly vocabulary = new Map<string, { rows: number; total: number }>();
  /** The merging running now (`mergeSegments`), and the timer that starts it. */
  private merging: Promise<void> | null = null;
  private mergeTimer: NodeJS.Timeout | null = null;

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

  /**
   * Creates the tables; `empty` (the search read model holds nothing: a first start or a reset) drops
   * them and creates them again, in one transaction, and marks the index rebuilt (`search_fts_rebuilt`)
   * until `settle` has merged what the catch-up writes. Emptied by `DELETE`, FTS5 deleted each row
   * of an old version's index by reading and tokenising it again (as slow as writing it). A crash
   * before the projection's checkpoint names the new version leaves a reset that the next start
   * does again. Then merges the segments in the background (`mergeSegments`).
   */
  setup(empty: boolean): void {
    if (empty) {
      const rebuild = () => {
        for (const table of ALL_TABLES) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
        this.db.exec(SCHEMA);
        this.db.prepare('INSERT INTO search_fts_rebuilt (since) VALUES (unixepoch())').run();
      };
      // Cached statements name the tables dropped here.
      this.statements.clear();
      this.vocabulary.clear();
      this.known.clear();
      if (this.db.inTransaction) this.db.transaction(rebuild)();
      else this.db.transaction(rebuild).immediate();
    } else this.db.exec(SCHEMA);
    for (const table of FTS_TABLES) this.statement(`INSERT INTO ${table} (${table}, rank) VALUES ('usermerge', ${MERGE_AT})`).run();
    this.mergeInBackground();
  }

  // ---- Segments

  /**
   * Every commit that writes FTS5 rows adds a segment (a b-tree) to each table it writes, which FTS5
   * merges four at a time as writes go on (`automerge`): 8-19 segments after a rebuild of 100,000
   * tickets, up to 21 under a stream of posts, and a query seeks each word in each of them
   * (docs/search.md, "Cost"). This merges them a slice at a time (FTS5's `merge`, MERGE_PAGES pages,
   * a few milliseconds), yielding the event loop between slices, until no level of any table holds
   * MERGE_AT or `budgetMs` is spent. It never runs inside the store's open transaction (a projection
   * page's): a slice finding one open stops, and the next turn goes on. For a caller that has just
   * written many rows (a catch-up's batch), with no budget; a timer runs it every MERGE_EVERY_MS
   * within MERGE_BUDGET_MS.
   */
  async mergeSegments(budgetMs = Infinity): Promise<void> {
    if (this.merging) return this.merging;
    const started = performance.now();
    return this.alone(async () => {
      while (this.db.open && performance.now() - started < budgetMs && (this.foldSlice() || this.mergeSlice())) await nextTurn();
    });
  }

  /**
   * Runs `work` as the one merging of the index (`mergeSegments`, `settle`). The mark is cleared once the
   * work has ended, never before it is set: cleared in the work itself, a merging that found nothing to
   * do (and so never yielded) ended before it was set, and every later call took it for one running.
   */
  private alone(work: () => Promise<void>): Promise<void> {
    const merging: Promise<void> = work().finally(() => {
      if (this.merging === merging) this.merging = null;
    });
    this.merging = merging;
    return merging;
  }

  /** One `merge` of MERGE_PAGES pages on the first table with work; false when none has any, or a transaction is open. */
  private mergeSlice(): boolean {
    if (this.db.inTransaction) return false;
    return FTS_TABLES.some((table) => this.merge(table, MERGE_PAGES));
  }

  /** FTS5's `merge` of `pages` pages on one table; true when it did some work. */
  private merge(table: string, pages: number): boolean {
    const changes = this.statement('SELECT total_changes()').pluck();
    const before = changes.get() as number;
    this.statement(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`).run(pages);
    // FTS5's documented signal: a merge that did work changed two rows or more.
    return (changes.get() as number) - before >= 2;
  }

  /**
   * After the catch-up that built a rebuilt index (`search_fts_rebuilt`), before the first live page:
   * folds every ticket's words filed apart into its word row, then merges each table into one segment
   * (FTS5's `merge` with a negative count, which is `optimize` in slices), yielding the event loop
   * between slices. A rebuild leaves a few large segments on several levels, and FTS5 merges a
   * level whatever its segments' sizes: the first live commits merged them (commits and statements of
   * 75-260 ms at 10,000 tickets under load, 400-730 ms at 100,000; docs/search.md, "Segments"). Merged whole, the
   * rebuilt index is one segment a level above all the posts' segments, which merge among themselves.
   * The mark goes once merged: a start cut short here merges again at its next catch-up.
   */
  async settle(): Promise<void> {
    while (this.merging) await this.merging;
    if (!this.db.open || this.db.inTransaction || !this.statement('SELECT 1 FROM search_fts_rebuilt').get()) return;
    return this.alone(async () => {
      while (this.db.open && this.foldSlice(true)) await nextTurn();
      for (const table of FTS_TABLES) while (this.db.open && this.merge(table, -SETTLE_PAGES)) await nextTurn();
      if (this.db.open) this.statement('DELETE FROM search_fts_rebuilt').run();
    });
  }

  private mergeInBackground(): void {
    if (this.mergeTimer) return;
    this.mergeTimer = setInterval(() => {
      if (!this.db.open) {
        clearInterval(this.mergeTimer!);
        this.mergeTimer = null;
      } else
        // A slice that failed (the file busy with another process's write) leaves the index as it was, only less merged: the next turn tries again.
        this.mergeSegments(MERGE_BUDGET_MS).catch(() => undefined);
    }, MERGE_EVERY_MS);
    // A process may end without closing its store: the timer does not keep it alive.
    this.mergeTimer.unref();
  }

  /**
   * Runs the writes in the store's open transaction (a projection page's, as a savepoint) or in one of
   * their own; the rows they add or remove are counted in `search_fts_stats` once, at the end (a
   * write of that row per message cost as much as the message's own row).
   */
  transaction(work: () => void): void {
    const counted = () => {
      this.rowsAdded = 0;
      this.touched.clear();
      try {
        work();
        for (const [number, touched] of this.touched) if (touched !== 'removed') this.writeWords(number, touched);
        if (this.rowsAdded !== 0) this.statement('UPDATE search_fts_stats SET rows = rows + ?').run(this.rowsAdded);
      } finally {
        this.rowsAdded = 0;
        this.touched.clear();
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
  private removeRows(rowids: Iterable<number>): number {
    const deletes = ROW_TABLES.map((table) => this.statement(`DELETE FROM ${table} WHERE rowid = ?`));
    let removed = 0;
    for (const rowid of rowids) for (const statement of deletes) removed += statement.run(rowid).changes;
    this.rowsAdded -= removed;
    return removed;
  }

  private touch(number: number): Touched {
    let touched = this.touched.get(number);
    if (touched === undefined || touched === 'removed') {
      touched = { recompute: false, public: [], notes: [] };
      this.touched.set(number, touched);
    }
    return touched;
  }

  /**
   * A ticket's words as one row of `search_fts_words` (its public rows' words, its notes' words): what
   * staff match against, so a word's postings are per ticket and FTS5 intersects two words' tickets
   * itself (docs/search.md). A post's new words are filed as a row of their own in
   * `search_fts_words_more` and the ticket listed in `search_fts_words_extra`; `foldSlice` rewrites
   * the word row with them later, off the post's commit. Rewriting the row at every post cost what
   * all of the ticket's words cost (FTS5 deletes and inserts every word and its prefixes), the half
   * of a post's search work, and its writes were most of what FTS5 merges. A changed or removed text
   * reads the ticket's words again from its rows.
   */
  private writeWords(number: number, touched: Touched): void {
    const lo = number * TICKET_SPAN;
    if (touched.recompute) {
      const texts = (table: string) =>
        this.statement(`SELECT c0 FROM ${table}_content WHERE id BETWEEN ? AND ?`)
          .pluck()
          .all(lo, lo + TICKET_SPAN - 1) as string[];
      this.removeWords(number);
      this.fileWords(number, [...wordsOf(texts('search_fts')).values()], [...wordsOf(texts('search_fts_notes')).values()], false);
      return;
    }
    const last = this.lastApart(number);
    const known = this.knownWords(number, last);
    const fresh = (texts: string[]) => [...wordsOf(texts).entries()].filter(([key]) => !known.words.has(key)).map(([, word]) => word);
    const [publicWords, noteWords] = [fresh(touched.public), fresh(touched.notes)];
    if (publicWords.length + noteWords.length === 0) return;
    const written = this.fileWords(number, publicWords, noteWords, known.row, last);
    if (known.row) this.apart.set(number, { rows: (this.apart.get(number)?.rows ?? 0) + 1, at: Date.now() });
    if (!known.kept) return;
    for (const word of [...publicWords, ...noteWords]) known.words.add(wordKey(word));
    this.keep(number, { words: known.words, last: written });
  }

  /**
   * The last rowid of a ticket's rows in `search_fts_words_more`, or null. A ticket's rows, here and below, are read
   * by rowid range from the FTS5 table's content table (`<table>_content`: `id`, then `c0`, `c1`... in the order of
   * its columns), a B-tree seek: the same range asked of the FTS5 table reads every row of it (SQLite 3.53; 150 µs at
   * 4,000 rows, 490 at 8,000, against under 1 µs), and this runs at every post that files words (docs/search.md).
   */
  private lastApart(number: number): number | null {
    const lo = number * TICKET_SPAN;
    return (
      (this.statement('SELECT max(id) FROM search_fts_words_more_content WHERE id BETWEEN ? AND ?')
        .pluck()
        .get(lo, lo + TICKET_SPAN - 1) as number | null | undefined) ?? null
    );
  }

  /**
   * The words a ticket holds: in its word row (`row`: it has one) and in its rows filed apart not yet
   * folded in (a settled ticket's are many and not read: a repeat costs a few postings). `kept`: they
   * may be kept between posts (a ticket with a word row, not settled). Reading the rows apart at every
   * post cost what they hold, and they pile up between two folds (at the full-size desk 0.24 ms of a
   * post's 1.3 ms of CPU, docs/benchmark.md). What is kept is trusted while the ticket's last row apart
   * is the one it names: a fold, a recompute or a removal drops it (`removeWords`), and a page undone
   * takes back the rows it filed, so its last rowid is no longer the one kept.
   */
  private knownWords(number: number, last: number | null): { words: Set<string>; row: boolean; kept: boolean } {
    const kept = this.known.get(number);
    if (kept && kept.last === last) return { words: kept.words, row: true, kept: true };
    this.known.delete(number);
    const row = this.statement('SELECT public, notes FROM search_fts_words WHERE rowid = ?').get(number) as { public: string; notes: string } | undefined;
    const settled = this.statement('SELECT settled FROM search_fts_words_extra WHERE number = ?').pluck().get(number) as number | undefined;
    const apart = settled === 0 ? this.moreRows(number) : [];
    const words = new Set(wordsOf([row?.public ?? '', row?.notes ?? '', ...apart.flatMap((more) => [more.public, more.notes])]).keys());
    return { words, row: row !== undefined, kept: row !== undefined && settled !== 1 };
  }

  /** Keeps a ticket's known words, the most recently used KNOWN_TICKETS tickets' at most. */
  private keep(number: number, known: { words: Set<string>; last: number | null }): void {
    this.known.delete(number);
    this.known.set(number, known);
    if (this.known.size > KNOWN_TICKETS) this.known.delete(this.known.keys().next().value!);
  }

  private moreRows(number: number): Array<{ rowid: number; public: string; notes: string }> {
    return this.statement('SELECT id AS rowid, c0 AS public, c1 AS notes FROM search_fts_words_more_content WHERE id BETWEEN ? AND ?').all(
      number * TICKET_SPAN,
      number * TICKET_SPAN + TICKET_SPAN - 1,
    ) as Array<{ rowid: number; public: string; notes: string }>;
  }

  /**
   * Rewrites the word rows of up to FOLD_TICKETS tickets with the words their posts filed apart, in a
   * transaction of its own; a ticket past WORDS_PER_ROW words keeps them apart for good (`settled`).
   * False when no ticket is left to fold, or a transaction is open.
   */
  private foldSlice(all = false): boolean {
    if (this.db.inTransaction) return false;
    const now = Date.now();
    const due = (number: number) => {
      const seen = this.apart.get(number);
      return all || !seen || seen.rows >= FOLD_ROWS || now - seen.at >= FOLD_QUIET_MS;
    };
    const candidates = this.statement('SELECT number FROM search_fts_words_extra WHERE settled = 0 LIMIT ?')
      .pluck()
      .all(all ? FOLD_TICKETS : FOLD_CANDIDATES) as number[];
    const numbers = candidates.filter(due).slice(0, FOLD_TICKETS);
    if (numbers.length === 0) return false;
    this.transaction(() => {
      for (const number of numbers) {
        const row = this.statement('SELECT public, notes FROM search_fts_words WHERE rowid = ?').get(number) as { public: string; notes: string } | undefined;
        const apart = this.moreRows(number);
        const publicWords = [...wordsOf([row?.public ?? '', ...apart.map((more) => more.public)]).values()];
        const noteWords = [...wordsOf([row?.notes ?? '', ...apart.map((more) => more.notes)]).values()];
        if (publicWords.length + noteWords.length > WORDS_PER_ROW) {
          this.statement('UPDATE search_fts_words_extra SET settled = 1 WHERE number = ?').run(number);
          this.known.delete(number);
          this.apart.delete(number);
          continue;
        }
        this.removeWords(number);
        this.fileWords(number, publicWords, noteWords, false);
      }
    });
    return true;
  }

  /** A ticket's words as its word row (`more` false) or as rows of `search_fts_words_more`, WORDS_PER_ROW words a row. */
  private fileWords(number: number, publicWords: string[], noteWords: string[], more: boolean, last: number | null = null): number | null {
    const lo = number * TICKET_SPAN;
    const words = [...publicWords.map((word) => [word, false] as const), ...noteWords.map((word) => [word, true] as const)];
    const rows: Array<[string, string]> = [];
    for (let at = 0; at < words.length; at += WORDS_PER_ROW) {
      const part = words.slice(at, at + WORDS_PER_ROW);
      const column = (notes: boolean) => part.flatMap(([word, note]) => (note === notes ? [word] : [])).join(' ');
      rows.push([column(false), column(true)]);
    }
    let next = (more ? (last ?? lo) : lo) + 1;
    rows.forEach(([publicText, notesText], at) => {
      if (!more && at === 0)
        this.statement('INSERT INTO search_fts_words (rowid, public, notes, big) VALUES (?, ?, ?, ?)').run(
          number,
          publicText,
          notesText,
          rows.length > 1 ? '1' : '',
        );
      else this.statement('INSERT INTO search_fts_words_more (rowid, public, notes) VALUES (?, ?, ?)').run(next++, publicText, notesText);
    });
    if (more || rows.length > 1) this.statement('INSERT OR IGNORE INTO search_fts_words_extra (number, settled) VALUES (?, ?)').run(number, more ? 0 : 1);
    return next - 1 > lo ? next - 1 : null;
  }

  /** A ticket's word rows, each by its rowid (see `removeRows`). */
  private removeWords(number: number): void {
    this.known.delete(number);
    this.apart.delete(number);
    this.statement('DELETE FROM search_fts_words WHERE rowid = ?').run(number);
    this.statement('DELETE FROM search_fts_words_extra WHERE number = ?').run(number);
    const more = this.statement('SELECT id FROM search_fts_words_more_content WHERE id BETWEEN ? AND ?')
      .pluck()
      .all(number * TICKET_SPAN, number * TICKET_SPAN + TICKET_SPAN - 1) as number[];
    for (const rowid of more) this.statement('DELETE FROM search_fts_words_more WHERE rowid = ?').run(rowid);
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
    const touched = this.touch(ticket.number);
    if (this.removeRows(texts.map((_, slot) => base + slot)) > 0) touched.recompute = true;
    texts.forEach((text, slot) => {
      if (text) this.insertRow('search_fts', base + slot, text, null);
    });
    touched.public.push(...texts);
  }

  /** Every row of a ticket: its fields' and those of each position its messages were given. */
  removeTicket(ticket: TicketFields & { lastSeq: number }): void {
    const base = ticket.number * TICKET_SPAN;
    this.removeRows(fieldTexts(ticket).map((_, slot) => base + slot));
    this.removeRows(Array.from({ length: ticket.lastSeq }, (_, at) => base + MESSAGE_SLOT + at + 1));
    this.statement('DELETE FROM search_fts_tickets WHERE number = ?').run(ticket.number);
    this.removeWords(ticket.number);
    this.touched.set(ticket.number, 'removed');
  }

  /** A message's row (written again as it is now: a replayed page writes the same row). */
  putMessage(number: number, message: { messageId: string; seq: number; text: string; files: string[]; internal: boolean }): void {
    const rowid = number * TICKET_SPAN + MESSAGE_SLOT + message.seq;
    const text = [message.text, ...message.files].join('\n');
    const touched = this.touch(number);
    // A text written again (an edit, a replayed page) may have dropped words: the ticket's are read again.
    if (this.removeRows([rowid]) > 0) touched.recompute = true;
    this.insertRow(message.internal ? 'search_fts_notes' : 'search_fts', rowid, text, message.messageId);
    (message.internal ? touched.notes : touched.public).push(text);
  }

  removeMessage(number: number, seq: number): void {
    this.removeRows([number * TICKET_SPAN + MESSAGE_SLOT + seq]);
    this.touch(number).recompute = true;
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

  /**
   * Staff's matches from the word rows (`search_fts_words`, one per ticket): one FTS5 query that
   * intersects the words' tickets and counts them in C, never a set of every match built in SQL or
   * JavaScript. Null where the word rows cannot say: a customer (their own tickets' ranges answer,
   * `matching`), a phrase (word rows keep no positions), or a word that names a person (found by
   * their tickets, not by words).
   */
  wordMatches(audience: Audience, query: FtsQuery): WordMatches | null {
    if (audience.customer !== null || !query.wanted) return null;
    if (query.wanted.some(({ words }) => words.length > 1) || query.excluded.some((term) => term.includes(' '))) return null;
    const terms = [...query.wanted.map(({ match }) => match), ...query.excluded];
    const person = this.statement('SELECT 1 FROM search_fts_people WHERE search_fts_people MATCH ? LIMIT 1').pluck();
    if (terms.some((term) => person.get(term) !== undefined)) return null;
    const columns = audience.notes ? '{public notes}' : 'public';
    const wanted = query.wanted.map(({ match }) => `${columns} : ${match}`).join(' AND ');
    const excluded = query.excluded.length > 0 ? ` NOT ${columns} : (${query.excluded.join(' OR ')})` : '';
    const match = `(${wanted})${excluded}`;
    // Tickets with words in more rows (`search_fts_words_extra`: a post's words not yet folded into the
    // word row, or a long conversation's) are matched apart, as sets of their rows; each one's word row
    // is read by its rowid, and the word rows' own matches leave them out.
    const params: Record<string, string> = {};
    const apart = (term: string, at: number) => {
      params[`m${at}`] = `${columns} : ${term}`;
      return `SELECT n FROM (SELECT w.rowid AS n FROM search_fts_words_extra e CROSS JOIN search_fts_words w ON w.rowid = e.number WHERE search_fts_words MATCH @m${at}
        UNION SELECT rowid / ${TICKET_SPAN} FROM search_fts_words_more WHERE search_fts_words_more MATCH @m${at})`;
    };
    const wantedApart = query.wanted.map(({ match }, at) => apart(match, at)).join(' INTERSECT ');
    const excludedApart = query.excluded.map((term, at) => ` EXCEPT ${apart(term, query.wanted!.length + at)}`).join('');
    const bigMatches = new Set(this.statement(`${wantedApart}${excludedApart}`).pluck().all(params) as number[]);
    const extended = new Set(this.statement('SELECT number FROM search_fts_words_extra').pluck().all() as number[]);
    let counted: number | null = null;
    return {
      count: () =>
        (counted ??=
          (this.statement('SELECT count(*) FROM search_fts_words WHERE search_fts_words MATCH ?').pluck().get(match) as number) -
          (this.statement('SELECT count(*) FROM search_fts_words_extra e CROSS JOIN search_fts_words w ON w.rowid = e.number WHERE search_fts_words MATCH ?')
            .pluck()
            .get(match) as number) +
          bigMatches.size),
      numbers: () => [
        ...(this.statement('SELECT rowid FROM search_fts_words WHERE search_fts_words MATCH ?').pluck().all(match) as number[]).filter(
          (number) => !extended.has(number),
        ),
        ...bigMatches,
      ],
      among: (numbers) => {
        const found = new Set(
          this.statement(
            `SELECT w.rowid FROM json_each(?) r CROSS JOIN search_fts_words w WHERE w.rowid BETWEEN r.value ->> 0 AND r.value ->> 1 AND search_fts_words MATCH ?`,
          )
            .pluck()
            .all(JSON.stringify(runsOf(numbers, longPrefix(query.wanted!) ? 1 : MAX_RUNS)), match) as number[],
        );
        return new Set(numbers.filter((number) => (found.has(number) && !extended.has(number)) || bigMatches.has(number)));
      },
    };
  }

  /** The ids of the tickets matching every wanted condition and no excluded word, as the audience may read them. */
  matching(audience: Audience, query: FtsQuery): string[] {
    if (!query.wanted) return [];
    const words = this.wordMatches(audience, query);
    if (words) return this.ids(words.numbers());
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
    const tickets = this.tickets();
    for (const wanted of query.wanted) {
      const found = this.rowsHolding(wanted, tables, total);
      // Staff: a window spread over the desk is split where a gap holds more of the word's rows than a
      // cursor costs. A customer's ranges hold their own tickets only, so no other ticket's rows are
      // read and the time a query takes never depends on them.
      const runs = JSON.stringify(
        audience.customer !== null
          ? runsOf(numbers, numbers.length, 1)
          : runsOf(numbers, longPrefix([wanted]) ? 1 : RANK_RUNS, SEEK_ROWS / Math.max(found / tickets, 1 / tickets)),
      );
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
  private rowsHolding(wanted: FtsTerm, tables: readonly string[], total: number): number {
    const vocabularies = tables.map((table) => `${table}_vocab`);
    const count = (sql: string, ...params: string[]) =>
      vocabularies.reduce((sum, vocabulary) => {
        // fts5vocab counts a word's rows by reading them all (2-4 ms for a word in 100,000-175,000
        // rows): a count is kept while the index has grown or shrunk by under 1%, which moves an idf by less.
        const key = `${vocabulary} ${sql} ${params.join(' ')}`;
        const known = this.vocabulary.get(key);
        if (known && Math.abs(known.total - total) <= total / 100) return sum + known.rows;
        const rows =
          (this.statement(sql.replace('$vocabulary', vocabulary))
            .pluck()
            .get(...params) as number | null) ?? 0;
        if (this.vocabulary.size >= VOCABULARY_KEPT) this.vocabulary.clear();
        this.vocabulary.set(key, { rows, total });
        return sum + rows;
      }, 0);
    if (wanted.prefix !== null) return count('SELECT sum(doc) FROM $vocabulary WHERE term >= ? AND term < ?', wanted.prefix, prefixEnd(wanted.prefix));
    return Math.min(...wanted.words.map((word) => count('SELECT doc FROM $vocabulary WHERE term = ?', word)));
  }

  /** How many ticket numbers the index spans (numbers are given in order, so about as many tickets). */
  tickets(): number {
    // Two subqueries: SQLite reads one end of the key for a lone min() or max(), every row for both in one SELECT.
    const { lo, hi } = this.statement(
      'SELECT (SELECT min(number) FROM search_fts_tickets) AS lo, (SELECT max(number) FROM search_fts_tickets) AS hi',
    ).get() as {
      lo: number | null;
      hi: number | null;
    };
    return lo === null || hi === null ? 1 : hi - lo + 1;
  }

  /** The ids of ticket numbers (those the index holds). */
  ids(numbers: number[]): string[] {
    return this.statement('SELECT ticket FROM search_fts_tickets WHERE number IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(numbers)) as string[];
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
