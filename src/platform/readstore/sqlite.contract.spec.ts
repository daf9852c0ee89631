import path from 'node:path';
import { type Doc, DuplicateKeyError } from './port';
import { SqliteReadStore } from './sqlite';
import { tempDirs } from '../../../test/support/tempDirs';

const files = tempDirs('readstore');
afterAll(() => files.removeAll());

interface Member extends Doc {
  name: string;
  team?: { id: string | null } | Array<{ id: string }>;
  words?: string[];
  handle?: string;
}

const MEMBERS: Member[] = [
  { _id: 'm1', name: 'Ann', team: { id: 'blue' }, words: ['printer', 'fire'], handle: '@ann' },
  { _id: 'm2', name: 'Bob', team: [{ id: 'red' }, { id: 'blue' }], words: ['vpn'] },
  { _id: 'm3', name: 'Cy', team: { id: null }, words: [] },
];

describe('SqliteReadStore', () => {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }) };
  let store: SqliteReadStore;
  beforeEach(() => {
    warnings.length = 0;
    store = new SqliteReadStore({ filename: ':memory:', logger });
  });
  afterEach(() => store.close());

  describe('when a filter has no SQL form', () => {
    it('answers it by testing rows with mingo, counted and logged once per filter shape, and a filter SQL says costs no such scan', async () => {
      const members = store.collection<Member>('members');
      for (const member of MEMBERS) await members.insertOne(member);
      await members.createIndex({ keys: { words: 1 } });
      const ids = async (filter: Record<string, unknown>) => (await members.find(filter)).map((m) => m._id).sort();

      expect(await ids({ words: { $regex: '^pri' }, name: { $in: ['Ann', 'Bob'] }, handle: { $exists: true } })).toEqual(['m1']);
      expect(await ids({ $or: [{ 'team.id': 'blue' }, { words: 'vpn' }], name: { $ne: 'Cy' } })).toEqual(['m1', 'm2']);
      expect(store.unindexedScans).toBe(0);

      expect(await ids({ words: { $size: 1 } })).toEqual(['m2']);
      expect(await ids({ words: { $size: 2 } })).toEqual(['m1']);
      expect(await members.count({ name: { $ne: 'Ann' }, words: { $elemMatch: { $eq: 'vpn' } } })).toBe(1);
      expect(store.unindexedScans).toBe(3);
      expect(warnings.filter((warning) => warning.message.includes('mingo')).map((warning) => warning.fields)).toEqual([
        { collection: 'members', filter: { words: { $size: '?' } } },
        { collection: 'members', filter: { words: { $elemMatch: { $eq: '?' } } } },
      ]);
    });
  });

  describe('when no index serves a filter', () => {
    it('logs the query shape once, with the plan that reads the whole collection, and not a lookup by key or a listing', async () => {
      const members = store.collection<Member>('members');
      await members.createIndex({ keys: { words: 1 } });
      for (const member of MEMBERS) await members.insertOne(member);
      const scans = () => warnings.filter((warning) => warning.message.includes('whole collection'));

      await members.findOne({ _id: 'm1' });
      await members.find({ words: 'vpn' });
      await members.find({}, { limit: 10 });
      expect(scans()).toEqual([]);

      expect((await members.find({ name: 'Bob' })).map((m) => m._id)).toEqual(['m2']);
      await members.find({ name: 'Cy' });
      await members.count({ name: 'Cy' });
      expect(store.fullScans).toBe(2);
      expect(scans().map((warning) => warning.fields.plan)).toEqual([['SCAN c:members'], ['SCAN c:members']]);
    });
  });

  describe('when a string equality is on the first key of a declared index', () => {
    it('makes the SQL indexes of the declared indexes it leads at the turn after their first use, and then reads the page in their order', async () => {
      const members = store.collection<Member>('members');
      await members.createIndex({ keys: { name: 1, handle: -1 } });
      await members.createIndex({ keys: { words: 1 } });
      for (const member of MEMBERS) await members.insertOne(member);
      const indexes = () =>
        store.database.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 's:%' ORDER BY name").pluck().all() as string[];
      expect(indexes()).toEqual([]);
      await members.find({ words: 'vpn' });
      expect(indexes()).toEqual([]);
      expect((await members.find({ name: { $in: ['Cy', 'Ann'] } }, { sort: { name: 1, handle: -1 } })).map((m) => m._id)).toEqual(['m1', 'm3']);
      // A read does not take the write lock: the index is made at the next turn, in a transaction of its own.
      expect(indexes()).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(indexes()).toEqual(['s:members:{"name":1,"handle":-1}']);
      // The statement the store prepares for a page of one name: its plan walks that index, no sort of its own.
      const prepared = jest.spyOn(store.database, 'prepare');
      expect((await members.find({ name: 'Ann' }, { sort: { name: 1, handle: -1 }, limit: 5 })).map((m) => m._id)).toEqual(['m1']);
      const select = prepared.mock.calls.map(([sql]) => sql).find((sql) => sql.startsWith('SELECT') && sql.includes('LIMIT 5'))!;
      prepared.mockRestore();
      const plan = store.database.prepare(`EXPLAIN QUERY PLAN ${select}`).all('Ann') as Array<{ detail: string }>;
      expect(plan.map((step) => step.detail)).toEqual(['SEARCH c:members USING INDEX s:members:{"name":1,"handle":-1} (x:name=?)']);
      expect(store.fullScans).toBe(0);
    });
  });

  describe('when another connection to the file is writing as a read first needs a declared index', () => {
    it('answers the read at once from the key entries, and makes the index once the writer committed', async () => {
      const dir = files.make();
      const reader = new SqliteReadStore({ filename: path.join(dir, 'readstore.db'), logger });
      const writer = new SqliteReadStore({ filename: path.join(dir, 'readstore.db'), logger, backgroundCheckpoints: false });
      try {
        const written = writer.collection<Member>('members');
        await written.createIndex({ keys: { name: 1, handle: -1 } });
        for (const member of MEMBERS) await written.insertOne(member);
        // The writer's transaction is open (a page being applied on the projection thread): a read that took the
        // write lock to make the index waited for it (busy_timeout, 5 s), or failed at once when its snapshot was older.
        writer.database.exec('BEGIN IMMEDIATE');
        const started = performance.now();
        expect((await reader.collection<Member>('members').find({ name: 'Ann' }, { sort: { name: 1, handle: -1 } })).map((m) => m._id)).toEqual(['m1']);
        expect(performance.now() - started).toBeLessThan(1000);
        writer.database.exec('COMMIT');
        await new Promise((resolve) => setImmediate(resolve));
        const made = reader.database.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 's:%'").pluck().all();
        expect(made).toEqual(['s:members:{"name":1,"handle":-1}']);
        expect(warnings.filter((warning) => warning.message.includes('could not be made'))).toEqual([]);
      } finally {
        await reader.close();
        await writer.close();
      }
    });
  });

  describe('when a dotted path runs through an array', () => {
    it('matches the fields of its elements, as MongoDB does, indexed or not', async () => {
      const members = store.collection<Member>('members');
      for (const member of MEMBERS) await members.insertOne(member);
      const ids = async (filter: Record<string, unknown>) => (await members.find(filter)).map((m) => m._id).sort();
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ 'team.id': 'blue' }, ['m1', 'm2']],
        [{ 'team.id': 'red' }, ['m2']],
        [{ 'team.id': { $ne: 'blue' } }, ['m3']],
        [{ 'team.id': null }, ['m3']],
      ];
      for (const [filter, expected] of cases) expect(await ids(filter)).toEqual(expected);
      await members.createIndex({ keys: { 'team.id': 1 } });
      for (const [filter, expected] of cases) expect(await ids(filter)).toEqual(expected);
      expect(store.unindexedScans).toBe(0);
    });
  });

  describe('when another connection to the file holds a page open', () => {
    it('answers reads at once, with what is committed', async () => {
      const filename = files.file('readstore.db');
      const writer = new SqliteReadStore({ filename });
      const reader = new SqliteReadStore({ filename });
      try {
        await writer.collection<Member>('members').insertOne(MEMBERS[0]!);
        let release = () => undefined as void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const page = writer.transaction(async () => {
          await writer.collection<Member>('members').insertOne(MEMBERS[1]!);
          await held;
        });
        await new Promise((resolve) => setImmediate(resolve));

        const started = Date.now();
        expect((await reader.collection<Member>('members').find({})).map((m) => m._id)).toEqual(['m1']);
        expect(Date.now() - started).toBeLessThan(1000);
        release();
        await page;
        expect(await reader.collection<Member>('members').count()).toBe(2);
      } finally {
        await reader.close();
        await writer.close();
      }
    });
  });

  describe('when the file is opened again', () => {
    it('keeps the documents, the unique indexes and the indexed fields', async () => {
      const filename = files.file('readstore.db');
      const first = new SqliteReadStore({ filename });
      const members = first.collection<Member>('members');
      await members.createIndex({ keys: { handle: 1 }, unique: true });
      await members.createIndex({ keys: { words: 1 } });
      for (const member of MEMBERS) await members.insertOne(member);
      await first.close();

      const again = new SqliteReadStore({ filename });
      try {
        const reopened = again.collection<Member>('members');
        // As every start does: the projections declare their indexes again.
        await reopened.createIndex({ keys: { handle: 1 }, unique: true });
        await reopened.createIndex({ keys: { words: 1 } });
        expect(await reopened.count()).toBe(3);
        await expect(reopened.insertOne({ _id: 'm4', name: 'Dee', handle: '@ann' })).rejects.toEqual(new DuplicateKeyError('members', ['handle']));
        await reopened.insertOne({ _id: 'm5', name: 'Eve', words: ['printer'] });
        expect((await reopened.find({ words: { $regex: '^print' } })).map((m) => m._id).sort()).toEqual(['m1', 'm5']);
      } finally {
        await again.close();
      }
    });

    it('when its indexes are on expressions of the documents (a file of before the key columns), then they are made again on key columns', async () => {
      const filename = files.file('readstore.db');
      const first = new SqliteReadStore({ filename });
      const members = first.collection<Member>('members');
      await members.createIndex({ keys: { handle: 1 }, unique: true });
      await members.createIndex({ keys: { name: -1, handle: 1 } });
      for (const member of MEMBERS) await members.insertOne(member);
      expect((await members.find({}, { sort: { name: -1, handle: 1 } })).map((m) => m._id)).toEqual(['m3', 'm2', 'm1']);
      // The layout before: no key columns, the unique and sort indexes on `doc ->>`.
      const db = first.database;
      for (const index of db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c:members' AND name NOT LIKE 'sqlite_%'")
        .pluck()
        .all())
        db.exec(`DROP INDEX "${String(index).replaceAll('"', '""')}"`);
      for (const column of ['x:handle', 'x:name']) db.exec(`ALTER TABLE "c:members" DROP COLUMN "${column}"`);
      db.exec(`CREATE UNIQUE INDEX "u:members:{""handle"":1}" ON "c:members" ((doc ->> '$."handle"'))`);
      db.exec(`CREATE INDEX "s:members:{""name"":-1,""handle"":1}" ON "c:members" ((doc ->> '$."name"') DESC, (doc ->> '$."handle"') ASC)`);
      await first.close();

      const again = new SqliteReadStore({ filename });
      try {
        const reopened = again.collection<Member>('members');
        await reopened.createIndex({ keys: { handle: 1 }, unique: true });
        await reopened.createIndex({ keys: { name: -1, handle: 1 } });
        await reopened.insertOne({ _id: 'm4', name: 'Bo', handle: '@bo' });
        await reopened.updateOne({ _id: 'm3' }, { $set: { name: 'Al' } });
        expect((await reopened.find({}, { sort: { name: -1, handle: 1 } })).map((m) => m._id)).toEqual(['m2', 'm4', 'm1', 'm3']);
        await expect(reopened.updateOne({ _id: 'm4' }, { $set: { handle: '@ann' } })).rejects.toEqual(new DuplicateKeyError('members', ['handle']));
        // The sort's index is made at the turn after the read that first needed it.
        await new Promise((resolve) => setImmediate(resolve));
        const indexes = again.database
          .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c:members' AND sql IS NOT NULL")
          .pluck()
          .all();
        expect(indexes.join('\n')).not.toContain('doc ->>');
        expect(indexes.join('\n')).toContain('"x:name" DESC');
      } finally {
        await again.close();
      }
    });
  });
});
