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

  it('merges the segments many commits leave to a few, and still finds every ticket', async () => {
    for (let number = 1; number <= COMMITS; number++) {
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
    }
    await index.mergeSegments();

    // 4 and 2 here; FTS5 alone (it merges a level's segments four at a time) left 16 and 17.
    expect(segments('search_fts')).toBeLessThanOrEqual(6);
    expect(segments('search_fts_words')).toBeLessThanOrEqual(6);
    const staff = { customer: null, notes: true };
    expect(index.matching(staff, ftsQuery(parseQuery('refund parcel')))).toHaveLength(COMMITS);
    expect(index.matching(staff, ftsQuery(parseQuery('word170')))).toEqual(['t170']);
  });

  it("files a post's new words apart from the ticket's word row, matches across both, and folds them in later", async () => {
    const open = (number: number) => {
      const ticket = { _id: `t${number}`, number, customer: 'c1', title: `Refund for order ${number}`, description: 'parcel', fields: [] };
      index.transaction(() => {
        index.fileTicket(ticket);
        index.putTicket(ticket);
      });
    };
    const post = (number: number, seq: number, text: string, internal = false) =>
      index.transaction(() => index.putMessage(number, { messageId: `m${number}-${seq}`, seq, text, files: [], internal }));
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

    await index.mergeSegments();
    expect(wordRow(1)).toContain('zebra');
    expect(store.database.prepare('SELECT count(*) FROM search_fts_words_extra').pluck().get()).toBe(0);
    expect(store.database.prepare('SELECT count(*) FROM search_fts_words_more').pluck().get()).toBe(0);
    expect(all()).toEqual(expected);
  });
});
