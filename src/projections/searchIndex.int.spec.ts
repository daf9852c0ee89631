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
});
