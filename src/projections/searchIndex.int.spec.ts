import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import { ftsQuery, SearchIndex } from './searchIndex';
import { parseQuery } from './searchText';

/**
 * The FTS5 index's segments (docs/search.md, "Cost"): each commit of a post adds one, and a query
 * seeks each word in each of them, so the index merges them in slices until no level holds three.
 */

/** Commits of one ticket each, as posts arrive one page at a time. */
const COMMITS = 300;
/** Live posts after a rebuild, a commit each. */
const LIVE_POSTS = 60;

describe('the FTS5 index of the SQLite store', () => {
  let directory: string;
  let store: SqliteReadStore;
  let index: SearchIndex;

  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'fts-merge-'));
    store = new SqliteReadStore({ filename: path.join(directory, 'readstore.db') });
    index = SearchIndex.of(store)!;
    index.setup(true);
  });

  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const segments = (table: string) => store.database.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number;
  /** A table's segments as `id:pages`, from the rowids of its `_data` pages (a segment's id is in their high bits). */
  const segmentPages = (table: string) =>
    store.database.prepare(`SELECT (rowid >> 37) || ':' || count(*) FROM ${table}_data WHERE rowid >= 1 << 37 GROUP BY rowid >> 37`).pluck().all() as string[];
  const open = (number: number) => {
    const ticket = {
      _id: `t${number}`,
      number,
      customer: `c${number % 7}`,
      title: `Refund for order ${number}`,
      description: `parcel word${number}`,
      fields: [],
    };
    index.transaction(() => {
      index.fileTicket(ticket);
      index.putTicket(ticket);
    });
  };
  /** Runs `work` with the clock `ms` ahead (only Date: the merging's turns and timers run as they do). */
  const quietFor = async (ms: number, work: () => Promise<void>) => {
    jest.useFakeTimers({
      now: Date.now() + ms,
      doNotFake: [
        'nextTick',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      await work();
    } finally {
      jest.useRealTimers();
    }
  };
  const post = (number: number, seq: number, text: string, internal = false) =>
    index.transaction(() => index.putMessage(number, { messageId: `m${number}-${seq}`, seq, text, files: [], internal }));

  it('merges the segments many commits leave to a few, and still finds every ticket', async () => {
    for (let number = 1; number <= COMMITS; number++) open(number);
    await index.mergeSegments();

    // 4 and 2 here; FTS5 alone (it merges a level's segments four at a time) left 16 and 17.
    expect(segments('search_fts')).toBeLessThanOrEqual(6);
    expect(segments('search_fts_words')).toBeLessThanOrEqual(6);
    const staff = { customer: null, notes: true };
    expect(index.matching(staff, ftsQuery(parseQuery('refund parcel')))).toHaveLength(COMMITS);
    expect(index.matching(staff, ftsQuery(parseQuery('word170')))).toEqual(['t170']);
  });

  it('after a rebuild, merges the rebuilt index whole before live posts, whose merges then leave its segments alone', async () => {
    // A rebuild's catch-up: many commits, each leaving segments, which FTS5 merges by level as it goes.
    for (let number = 1; number <= COMMITS; number++) {
      open(number);
      post(number, 1, `The courier left the parcel with a neighbour, order ${number}`);
    }
    await index.settle();
    const rebuilt = Object.fromEntries(['search_fts', 'search_fts_words'].map((table) => [table, segmentPages(table)]));
    expect(rebuilt.search_fts).toHaveLength(1);
    expect(rebuilt.search_fts_words).toHaveLength(1);

    // Live: a commit per post, and the timer's merging after each. Without the merge before them,
    // these merged the rebuilt segments by level with their own (the 75-730 ms commits of docs/search.md).
    for (let seq = 2; seq < 2 + LIVE_POSTS; seq++) {
      post(1 + (seq % 20), seq, `live message ${seq} about invoice${seq}`);
      await index.mergeSegments();
    }
    for (const table of ['search_fts', 'search_fts_words'] as const) expect(segmentPages(table)).toEqual(expect.arrayContaining(rebuilt[table]!));
    const staff = { customer: null, notes: true };
    expect(index.matching(staff, ftsQuery(parseQuery('courier parcel')))).toHaveLength(COMMITS);
    expect(index.matching(staff, ftsQuery(parseQuery('invoice7')))).toHaveLength(1);
  });

  it('settles only a rebuilt index, and one whose start was cut short before it settled at the next start', async () => {
    for (let number = 1; number <= 50; number++) open(number);
    const table = (name: string) => store.database.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number;
    expect(table('search_fts_rebuilt')).toBe(1);
    // The process ends before the catch-up's end: the mark is in the file.
    await store.close();
    store = new SqliteReadStore({ filename: path.join(directory, 'readstore.db') });
    index = SearchIndex.of(store)!;
    index.setup(false);
    expect(table('search_fts_rebuilt')).toBe(1);
    await index.settle();
    expect(table('search_fts_rebuilt')).toBe(0);
    expect(segmentPages('search_fts')).toHaveLength(1);
    open(51);
    const settled = segmentPages('search_fts');
    await index.settle();
    expect(segmentPages('search_fts')).toEqual(settled);
  });

  it('empties the index of an old version by dropping its tables, not row by row', async () => {
    for (let number = 1; number <= 200; number++) {
      open(number);
      for (let seq = 1; seq <= 5; seq++) post(number, seq, `message ${seq} of ticket ${number}: refund the parcel`);
    }
    const staff = { customer: null, notes: true };
    expect(index.matching(staff, ftsQuery(parseQuery('refund parcel')))).toHaveLength(200);
    const changes = store.database.prepare('SELECT total_changes()').pluck();
    const before = changes.get() as number;

    index.setup(true);

    // The new tables' own set-up writes a few dozen rows; a DELETE of every row counted a change for each
    // of the 1,200 rows and their word rows (FTS5 read and tokenised each again to delete it).
    expect((changes.get() as number) - before).toBeLessThan(100);
    for (const table of ['search_fts', 'search_fts_words', 'search_fts_tickets', 'search_fts_words_more', 'search_fts_words_extra'])
      expect(store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get()).toBe(0);
    expect(store.database.prepare('SELECT rows FROM search_fts_stats').pluck().get()).toBe(0);
    expect(index.matching(staff, ftsQuery(parseQuery('refund parcel')))).toEqual([]);
    open(7);
    expect(index.matching(staff, ftsQuery(parseQuery('refund parcel')))).toEqual(['t7']);
  });

  it('merges again after a turn that found nothing to merge', async () => {
    await index.mergeSegments();
    for (let number = 1; number <= COMMITS; number++) open(number);
    await index.mergeSegments();
    expect(segments('search_fts')).toBeLessThanOrEqual(6);
  });

  it("files a post's new words apart from the ticket's word row, matches across both, and folds them in later", async () => {
    [1, 2, 3].forEach(open);
    post(1, 1, 'A zebra and a quartz');
    post(2, 1, 'Only a zebra');
    post(3, 1, 'quartz', true);
    const wordRow = (number: number) => store.database.prepare('SELECT public FROM search_fts_words WHERE rowid = ?').pluck().get(number) as string;
    const staff = { customer: null, notes: true };
    const found = (text: string) => {
      const query = ftsQuery(parseQuery(text));
      const words = index.wordMatches(staff, query)!;
      return { ids: index.matching(staff, query).sort(), count: words.count(), among: [...words.among([1, 2, 3])].sort() };
    };
    const expected = {
      'refund zebra': { ids: ['t1', 't2'], count: 2, among: [1, 2] },
      'zebra quartz': { ids: ['t1'], count: 1, among: [1] },
      'zebra -quartz': { ids: ['t2'], count: 1, among: [2] },
      'refund -zebra': { ids: ['t3'], count: 1, among: [3] },
    };
    const all = () => Object.fromEntries(Object.keys(expected).map((text) => [text, found(text)]));

    // The posts rewrote no word row: their words wait in rows of their own.
    expect(wordRow(1)).not.toContain('zebra');
    expect(all()).toEqual(expected);

    // The conversations are going on: their rows wait (a fold rewrites the whole word row).
    await index.mergeSegments();
    expect(wordRow(1)).not.toContain('zebra');
    expect(all()).toEqual(expected);

    // Quiet for ten seconds: folded.
    await quietFor(10_000, () => index.mergeSegments());
    expect(wordRow(1)).toContain('zebra');
    expect(store.database.prepare('SELECT count(*) FROM search_fts_words_extra').pluck().get()).toBe(0);
    expect(store.database.prepare('SELECT count(*) FROM search_fts_words_more').pluck().get()).toBe(0);
    expect(all()).toEqual(expected);
  });

  it('folds a conversation going on once its posts have filed 32 rows apart', async () => {
    open(4);
    const wordRow = () => store.database.prepare('SELECT public FROM search_fts_words WHERE rowid = ?').pluck().get(4) as string;
    for (let seq = 1; seq <= 31; seq++) post(4, seq, `parcel${seq}x`);
    await index.mergeSegments();
    expect(wordRow()).not.toContain('parcel31x');
    post(4, 32, 'parcel32x');
    await index.mergeSegments();
    expect(wordRow()).toContain('parcel1x');
    expect(wordRow()).toContain('parcel32x');
    expect(index.matching({ customer: null, notes: true }, ftsQuery(parseQuery('parcel17x')))).toEqual(['t4']);
  });

  it("reads a ticket's rows by rowid range without reading the other tickets': a post costs the same beside 40,000 rows", () => {
    const postsOn = (number: number) => {
      open(number);
      const started = performance.now();
      // Each post brings a word new to the ticket, so each files a row apart after finding the ticket's last one.
      for (let seq = 1; seq <= 100; seq++) post(number, seq, `parcel${seq}x`);
      return performance.now() - started;
    };
    postsOn(1); // warm-up: statements prepared, code compiled
    const alone = postsOn(2);
    // Other tickets' rows filed apart (settled conversations keep theirs for good), 40,000 of them.
    const insert = store.database.prepare('INSERT INTO search_fts_words_more (rowid, public, notes) VALUES (?, ?, ?)');
    store.database.transaction(() => {
      for (let number = 1000; number < 1400; number++) for (let row = 1; row <= 100; row++) insert.run(number * 2 ** 24 + row, `w${row}`, '');
    })();
    const beside = postsOn(3);
    // Asked of the FTS5 table, each post's range read every row: some 25 times as long here.
    expect(beside).toBeLessThan(alone * 3 + 20);
    expect(index.matching({ customer: null, notes: true }, ftsQuery(parseQuery('parcel100x'))).sort()).toEqual(['t1', 't2', 't3']);
  });

  it("files a post's words again after a page that filed them was undone, though it keeps a ticket's words between posts", () => {
    open(1);
    post(1, 1, 'A quartz');
    // A page whose writes are taken back after the index filed its words (a projection failing after the search's).
    const undone = store.database.transaction(() => {
      post(1, 2, 'A zebra');
      throw new Error('page undone');
    });
    expect(() => undone()).toThrow('page undone');
    post(1, 3, 'The zebra again');
    const staff = { customer: null, notes: true };
    const count = (text: string) => index.wordMatches(staff, ftsQuery(parseQuery(text)))!.count();
    expect(count('zebra')).toBe(1);
    expect(count('quartz')).toBe(1);
  });
});
