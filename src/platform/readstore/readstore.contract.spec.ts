import { randomUUID } from 'node:crypto';
import { MemoryReadStore } from './memory';
import { MongoReadStore } from './mongodb';
import { type Collection, type Doc, DuplicateKeyError, type ReadStore } from './port';
import { SqliteReadStore } from './sqlite';
import { tempDirs } from '../../../test/support/tempDirs';

const files = tempDirs('readstore');
afterAll(() => files.removeAll());

const adapters: Array<[string, () => Promise<ReadStore>]> = [
  ['memory', async () => new MemoryReadStore()],
  ['sqlite in memory', async () => new SqliteReadStore({ filename: ':memory:' })],
  ['sqlite file', async () => new SqliteReadStore({ filename: files.file('readstore.db') })],
];
if (process.env.MONGO_URL) {
  const url = process.env.MONGO_URL;
  adapters.push(['mongodb', () => MongoReadStore.connect(url)]);
}

interface Ticket extends Doc {
  title: string;
  priority: number;
  status: string;
  tags?: string[];
  labels?: string[];
  owner?: { name: string };
  views?: number;
  rev?: number;
  sums?: { byStatus: Record<string, number> };
}

const TICKETS: Ticket[] = [
  { _id: 't1', title: 'Printer on fire', priority: 4, status: 'open', tags: ['hardware'], owner: { name: 'ann' } },
  { _id: 't2', title: 'Password reset', priority: 1, status: 'resolved', tags: ['account'] },
  { _id: 't3', title: 'VPN drops', priority: 3, status: 'open', tags: ['network', 'hardware'] },
  { _id: 't4', title: 'Invoice copy', priority: 2, status: 'closed', tags: [] },
];

describe.each(adapters)('ReadStore contract (%s)', (name, create) => {
  let store: ReadStore;
  let tickets: Collection<Ticket>;
  beforeEach(async () => {
    store = await create();
    tickets = store.collection<Ticket>(`tickets_${randomUUID().slice(0, 8)}`);
    for (const ticket of TICKETS) await tickets.insertOne(ticket);
  });
  afterEach(async () => {
    await tickets.drop();
    await store.close();
  });

  describe('when querying', () => {
    it('filters with comparison, logical, array and nested operators', async () => {
      expect((await tickets.find({ priority: { $gte: 3 } })).map((t) => t._id).sort()).toEqual(['t1', 't3']);
      expect((await tickets.find({ $or: [{ status: 'closed' }, { tags: 'account' }] })).map((t) => t._id).sort()).toEqual(['t2', 't4']);
      expect((await tickets.find({ status: { $in: ['open'] }, tags: { $all: ['hardware'] } })).map((t) => t._id).sort()).toEqual(['t1', 't3']);
      expect((await tickets.find({ 'owner.name': 'ann' })).map((t) => t._id)).toEqual(['t1']);
      expect((await tickets.find({ title: { $regex: 'pass', $options: 'i' } })).map((t) => t._id)).toEqual(['t2']);
    });

    it('sorts, skips, limits and projects', async () => {
      const page = await tickets.find({}, { sort: { priority: -1 }, skip: 1, limit: 2, projection: { title: 1 } });
      expect(page).toEqual([
        { _id: 't3', title: 'VPN drops' },
        { _id: 't4', title: 'Invoice copy' },
      ]);
    });

    it('finds one, counts, and answers null when nothing matches', async () => {
      expect(await tickets.findOne({ _id: 't2' })).toMatchObject({ title: 'Password reset' });
      expect(await tickets.findOne({ _id: 't2', status: 'open' })).toBeNull();
      expect(await tickets.count({ status: 'open' })).toBe(2);
      expect(await tickets.count()).toBe(4);
    });

    it('matches no document by an empty list of ids, and every one by an empty list to exclude, beside other conditions', async () => {
      expect(await tickets.find({ _id: { $in: [] }, status: { $in: ['open', 'closed'] } })).toEqual([]);
      expect(await tickets.count({ _id: { $in: [] }, status: 'open' })).toBe(0);
      expect((await tickets.find({ _id: { $nin: [] }, status: 'open' })).map((t) => t._id).sort()).toEqual(['t1', 't3']);
      expect(await tickets.count({ _id: { $in: [] } })).toBe(0);
    });

    it('returns copies that callers cannot use to change stored documents', async () => {
      const found = await tickets.findOne({ _id: 't1' });
      found!.title = 'changed';
      found!.tags!.push('mutated');
      expect(await tickets.findOne({ _id: 't1' })).toMatchObject({ title: 'Printer on fire', tags: ['hardware'] });
    });
  });

  describe('when updating', () => {
    it('applies $set, $inc, $push, $pull and $unset', async () => {
      const result = await tickets.updateOne(
        { _id: 't1' },
        { $set: { status: 'in_progress' }, $inc: { views: 2 }, $push: { tags: 'urgent' }, $unset: { owner: '' } },
      );
      expect(result).toEqual({ matched: 1, modified: 1, upsertedId: null });
      await tickets.updateOne({ _id: 't1' }, { $pull: { tags: 'hardware' } });
      const doc = await tickets.findOne({ _id: 't1' });
      expect(doc).toMatchObject({ status: 'in_progress', views: 2, tags: ['urgent'] });
      expect(doc).not.toHaveProperty('owner');
    });

    it('creates missing parents on dotted paths, keeps $max and $min, and counts a no-op as unmodified', async () => {
      await tickets.updateOne({ _id: 't1' }, { $inc: { 'sums.byStatus.open': 2 }, $set: { 'meta.seen': true }, $max: { top: 5 }, $min: { low: 5 } });
      await tickets.updateOne({ _id: 't1' }, { $inc: { 'sums.byStatus.open': -1, 'sums.byStatus.closed': 1 }, $max: { top: 3 }, $min: { low: 3 } });
      expect(await tickets.findOne({ _id: 't1' })).toMatchObject({ sums: { byStatus: { open: 1, closed: 1 } }, meta: { seen: true }, top: 5, low: 3 });
      // No `$inc` by 0 here: FerretDB counts it as a change (docs/readstore.md).
      const same = await tickets.updateOne({ _id: 't1' }, { $set: { 'meta.seen': true, title: 'Printer on fire' }, $max: { top: 4 } });
      expect(same).toEqual({ matched: 1, modified: 0, upsertedId: null });
      await tickets.updateOne({ _id: 't1' }, { $unset: { 'sums.byStatus.closed': '' } });
      expect((await tickets.findOne({ _id: 't1' }))?.sums).toEqual({ byStatus: { open: 1 } });
    });

    it('refuses to $inc a field that is not a number, changing nothing', async () => {
      await expect(tickets.updateOne({ _id: 't1' }, { $inc: { title: 1, views: 1 } })).rejects.toThrow();
      expect(await tickets.findOne({ _id: 't1' })).not.toHaveProperty('views');
    });

    it('updates many and reports matched counts', async () => {
      const result = await tickets.updateMany({ status: 'open' }, { $set: { status: 'pending_customer' } });
      expect(result).toMatchObject({ matched: 2, modified: 2 });
      expect(await tickets.count({ status: 'pending_customer' })).toBe(2);
    });

    it('guards an update with a condition so a repeated write changes nothing', async () => {
      await tickets.updateOne({ _id: 't2' }, { $set: { rev: 3 } });
      const stale = await tickets.updateOne({ _id: 't2', rev: { $lt: 3 } }, { $inc: { views: 1 } });
      expect(stale.matched).toBe(0);
      expect(await tickets.findOne({ _id: 't2' })).not.toHaveProperty('views');
    });

    it('appends with $push and $addToSet, one value or $each, and counts adding what a set holds as unmodified', async () => {
      const push = await tickets.updateOne({ _id: 't1' }, { $push: { tags: { $each: ['a', 'a'] } }, $addToSet: { labels: { $each: ['x', 'x', 'y'] } } });
      expect(push).toEqual({ matched: 1, modified: 1, upsertedId: null });
      expect(await tickets.updateOne({ _id: 't1' }, { $addToSet: { labels: { $each: ['y', 'x'] }, tags: 'hardware' } })).toEqual({
        matched: 1,
        modified: 0,
        upsertedId: null,
      });
      await tickets.updateOne({ _id: 't1' }, { $addToSet: { labels: 'z' }, $push: { tags: 'b' } });
      expect(await tickets.findOne({ _id: 't1' })).toMatchObject({ tags: ['hardware', 'a', 'a', 'b'], labels: ['x', 'y', 'z'] });
    });

    it('appends with $push beside a $set guarded by the field it sets, and onto a missing field', async () => {
      const once = { matched: 1, modified: 1, upsertedId: null };
      expect(await tickets.updateOne({ _id: 't3' }, { $push: { labels: { $each: ['a', 'b'] } }, $set: { views: 2 } })).toEqual(once);
      expect(await tickets.updateOne({ _id: 't3', views: 2 }, { $push: { labels: { $each: ['c', 'd'] }, tags: 'usb' }, $set: { views: 4 } })).toEqual(once);
      expect(await tickets.updateOne({ _id: 't3', views: 2 }, { $push: { labels: 'e' }, $set: { views: 5 } })).toEqual({
        matched: 0,
        modified: 0,
        upsertedId: null,
      });
      expect(await tickets.updateOne({ _id: 'missing' }, { $push: { labels: 'e' } })).toEqual({ matched: 0, modified: 0, upsertedId: null });
      expect(await tickets.findOne({ _id: 't3' })).toEqual({ ...TICKETS[2], views: 4, labels: ['a', 'b', 'c', 'd'], tags: ['network', 'hardware', 'usb'] });
    });

    it('sets fields of a document named by its id, guarded, and counts setting the same values as unmodified', async () => {
      const sums = { byStatus: { open: 1 } };
      expect(await tickets.updateOne({ _id: 't2' }, { $set: { rev: 3, sums, tags: ['a', 'b'] } })).toEqual({ matched: 1, modified: 1, upsertedId: null });
      expect(await tickets.updateOne({ _id: 't2', rev: { $lt: 3 } }, { $set: { rev: 4 } })).toEqual({ matched: 0, modified: 0, upsertedId: null });
      expect(await tickets.updateOne({ _id: 't2', rev: 3 }, { $set: { sums, tags: ['a', 'b'] } })).toEqual({ matched: 1, modified: 0, upsertedId: null });
      expect(await tickets.updateOne({ _id: 'missing' }, { $set: { rev: 1 } })).toEqual({ matched: 0, modified: 0, upsertedId: null });
      expect(await tickets.findOne({ _id: 't2' })).toEqual({ ...TICKETS[1], rev: 3, sums, tags: ['a', 'b'] });
    });

    it('sets fields of many documents guarded by the field it sets, counting what matched before the write and what changed', async () => {
      await tickets.updateOne({ _id: 't1' }, { $set: { rev: 5, views: 2 } });
      await tickets.updateOne({ _id: 't3' }, { $set: { rev: 1, views: 2 } });
      const guard = { $or: [{ _id: 't1' }, { _id: 't3' }, { _id: 't4' }], rev: { $lt: 5 } };
      expect(await tickets.updateMany(guard, { $set: { rev: 5, views: 2 } })).toEqual({ matched: 1, modified: 1, upsertedId: null });
      expect(await tickets.updateMany(guard, { $set: { rev: 5 } })).toEqual({ matched: 0, modified: 0, upsertedId: null });
      expect(await tickets.updateMany({ rev: 5 }, { $set: { views: 2 } })).toEqual({ matched: 2, modified: 0, upsertedId: null });
      expect(await tickets.updateMany({ rev: 5 }, { $set: { views: 3, owner: { name: 'bo' } } })).toEqual({ matched: 2, modified: 2, upsertedId: null });
      expect(await tickets.find({ rev: 5 }, { sort: { _id: 1 } })).toEqual([
        { ...TICKETS[0], rev: 5, views: 3, owner: { name: 'bo' } },
        { ...TICKETS[2], rev: 5, views: 3, owner: { name: 'bo' } },
      ]);
    });

    it('upserts a document built from the filter and $setOnInsert', async () => {
      const first = await tickets.updateOne(
        { _id: 'stats' },
        { $inc: { views: 1 }, $setOnInsert: { title: 'Stats', priority: 0, status: 'n/a' } },
        { upsert: true },
      );
      expect(first.upsertedId).toBe('stats');
      await tickets.updateOne({ _id: 'stats' }, { $inc: { views: 1 }, $setOnInsert: { title: 'ignored' } }, { upsert: true });
      expect(await tickets.findOne({ _id: 'stats' })).toEqual({ _id: 'stats', views: 2, title: 'Stats', priority: 0, status: 'n/a' });
    });

    it('keeps the null and empty values of a create-only upsert, and leaves a document already there as it is', async () => {
      const view = { title: 'Blank', priority: 0, status: 'open', tags: [], owner: null, sums: { byStatus: {} } };
      expect(await tickets.updateOne({ _id: 'blank' }, { $setOnInsert: view }, { upsert: true })).toEqual({ matched: 0, modified: 0, upsertedId: 'blank' });
      expect(await tickets.findOne({ _id: 'blank' })).toEqual({ _id: 'blank', ...view });
      const again = await tickets.updateOne({ _id: 't1' }, { $setOnInsert: { ...view, title: 'Other' } }, { upsert: true });
      expect(again).toEqual({ matched: 1, modified: 0, upsertedId: null });
      expect(await tickets.findOne({ _id: 't1' })).toEqual(TICKETS[0]);
    });

    it('gives an upserted document without an id filter a string id', async () => {
      const result = await tickets.updateOne({ title: 'New' }, { $set: { priority: 1 } }, { upsert: true });
      expect(typeof result.upsertedId).toBe('string');
      expect(await tickets.findOne({ title: 'New' })).toMatchObject({ _id: result.upsertedId, priority: 1 });
    });

    it('replaces a document, keeping its id', async () => {
      await tickets.replaceOne({ _id: 't4' }, { _id: 't4', title: 'Replaced', priority: 0, status: 'open' });
      expect(await tickets.findOne({ _id: 't4' })).toEqual({ _id: 't4', title: 'Replaced', priority: 0, status: 'open' });
    });
  });

  describe('when deleting', () => {
    it('deletes one or many', async () => {
      expect(await tickets.deleteOne({ status: 'open' })).toBe(1);
      expect(await tickets.deleteMany({ priority: { $lt: 3 } })).toBe(2);
      expect(await tickets.count()).toBe(1);
    });
  });

  describe('when dropping', () => {
    it('removes the documents and the indexes, and a collection that is not there is dropped already', async () => {
      await tickets.createIndex({ keys: { title: 1 }, unique: true });
      await tickets.drop();
      expect(await tickets.count()).toBe(0);
      await tickets.insertOne({ _id: 't9', title: 'VPN drops', priority: 1, status: 'open' });
      await tickets.insertOne({ _id: 't10', title: 'VPN drops', priority: 1, status: 'open' });
      expect(await tickets.count()).toBe(2);
      await expect(store.collection(`never_${randomUUID().slice(0, 8)}`).drop()).resolves.toBeUndefined();
    });
  });

  describe('when writing in bulk', () => {
    it('applies inserts, updates, upserts, replacements and deletes in order, each seeing the ones before it', async () => {
      await tickets.bulkWrite([
        { insertOne: { document: { _id: 't5', title: 'New', priority: 1, status: 'open' } } },
        { updateOne: { filter: { _id: 't5' }, update: { $inc: { views: 1 }, $push: { tags: 'fresh' } } } },
        { updateOne: { filter: { _id: 'sums' }, update: { $inc: { views: 2 }, $setOnInsert: { title: 'Sums' } }, upsert: true } },
        { updateMany: { filter: { status: 'open' }, update: { $set: { status: 'pending_customer' } } } },
        { replaceOne: { filter: { _id: 't2', priority: 1 }, replacement: { _id: 't2', title: 'Replaced', priority: 2, status: 'closed' } } },
        { replaceOne: { filter: { _id: 't6' }, replacement: { _id: 't6', title: 'Upserted', priority: 0, status: 'open' }, upsert: true } },
        { replaceOne: { filter: { _id: 't2', priority: 1 }, replacement: { _id: 't2', title: 'Guarded away', priority: 9, status: 'open' } } },
        { deleteOne: { filter: { _id: 't1' } } },
        { deleteMany: { filter: { status: 'closed', title: { $ne: 'Replaced' } } } },
        { updateOne: { filter: { title: 'Stray' }, update: { $set: { priority: 7 } }, upsert: true } },
      ]);
      const all = await tickets.find({}, { sort: { _id: 1 } });
      expect(all.filter((t) => t.title !== 'Stray')).toEqual([
        { _id: 'sums', views: 2, title: 'Sums' },
        { _id: 't2', title: 'Replaced', priority: 2, status: 'closed' },
        { _id: 't3', title: 'VPN drops', priority: 3, status: 'pending_customer', tags: ['network', 'hardware'] },
        { _id: 't5', title: 'New', priority: 1, status: 'pending_customer', views: 1, tags: ['fresh'] },
        { _id: 't6', title: 'Upserted', priority: 0, status: 'open' },
      ]);
      // Ids are strings everywhere: an upsert whose filter names none gets one too.
      expect(all.find((t) => t.title === 'Stray')).toMatchObject({ _id: expect.any(String), priority: 7 });
    });

    it('answers what the writes matched, changed, upserted, inserted and deleted, so a guarded write that missed is known', async () => {
      const done = await tickets.bulkWrite([
        { updateOne: { filter: { _id: 't1' }, update: { $set: { views: 5 } } } },
        { replaceOne: { filter: { _id: 't2', priority: 99 }, replacement: { _id: 't2', title: 'Missed', priority: 1, status: 'open' } } },
        { updateOne: { filter: { _id: 'counted' }, update: { $set: { views: 1 } }, upsert: true } },
        { insertOne: { document: { _id: 't9', title: 'Fresh', priority: 1, status: 'open' } } },
        { deleteOne: { filter: { _id: 't3' } } },
      ]);
      expect(done).toEqual({ matched: 1, modified: 1, upserted: 1, inserted: 1, deleted: 1 });
    });

    it('stops at the first failing write: the ones before it are done, the ones after are not', async () => {
      await tickets.createIndex({ keys: { title: 1 }, unique: true });
      await expect(
        tickets.bulkWrite([
          { updateOne: { filter: { _id: 't1' }, update: { $set: { status: 'closed' } } } },
          { insertOne: { document: { _id: 't9', title: 'Fresh', priority: 1, status: 'open' } } },
          { insertOne: { document: { _id: 't1', title: 'Again', priority: 1, status: 'open' } } },
          { updateOne: { filter: { _id: 't2' }, update: { $set: { status: 'closed' } } } },
          { deleteOne: { filter: { _id: 't3' } } },
        ]),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await tickets.findOne({ _id: 't1' })).toMatchObject({ title: 'Printer on fire', status: 'closed' });
      expect(await tickets.findOne({ _id: 't9' })).toMatchObject({ title: 'Fresh' });
      expect(await tickets.findOne({ _id: 't2' })).toMatchObject({ status: 'resolved' });
      expect(await tickets.count()).toBe(5);
      // An update that breaks the index, between two others (FerretDB fails the whole command, MongoDB the one write: docs/readstore.md).
      await expect(
        tickets.bulkWrite([
          { updateOne: { filter: { _id: 't2' }, update: { $set: { views: 1 } } } },
          { updateOne: { filter: { _id: 't2' }, update: { $set: { title: 'VPN drops' } } } },
          { updateOne: { filter: { _id: 't4' }, update: { $set: { views: 1 } } } },
        ]),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await tickets.findOne({ _id: 't2' })).toMatchObject({ title: 'Password reset', views: 1 });
      expect(await tickets.findOne({ _id: 't4' })).not.toHaveProperty('views');
    });

    it('keeps the null and empty values of a create-only upsert, leaves a document already there, and does nothing for no writes', async () => {
      const view = { title: 'Blank', priority: 0, status: 'open', tags: [], owner: null, sums: { byStatus: {} } };
      await tickets.bulkWrite([
        { updateOne: { filter: { _id: 'blank' }, update: { $setOnInsert: view }, upsert: true } },
        { updateOne: { filter: { _id: 't1' }, update: { $setOnInsert: { ...view, title: 'Other' } }, upsert: true } },
        { updateOne: { filter: { _id: 'blank' }, update: { $set: { priority: 1 } } } },
      ]);
      expect(await tickets.findOne({ _id: 'blank' })).toEqual({ _id: 'blank', ...view, priority: 1 });
      expect(await tickets.findOne({ _id: 't1' })).toEqual(TICKETS[0]);
      await tickets.bulkWrite([]);
      expect(await tickets.count()).toBe(5);
    });
  });

  describe('with a unique index', () => {
    it('refuses inserts, updates and upserts that duplicate a key', async () => {
      await tickets.createIndex({ keys: { title: 1 }, unique: true });
      await expect(tickets.insertOne({ _id: 't9', title: 'VPN drops', priority: 1, status: 'open' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(tickets.updateOne({ _id: 't2' }, { $set: { title: 'VPN drops' } })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await tickets.findOne({ _id: 't2' })).toMatchObject({ title: 'Password reset' });
      await tickets.updateOne({ _id: 't2' }, { $set: { title: 'Renamed' } });
      await tickets.insertOne({ _id: 't9', title: 'Password reset', priority: 1, status: 'open' });
      expect(await tickets.count()).toBe(5);
    });

    it('when the same keys are declared again without unique, then duplicates are taken (the read side records conflicts instead)', async () => {
      await tickets.createIndex({ keys: { title: 1 }, unique: true });
      await tickets.createIndex({ keys: { title: 1 } });
      await tickets.insertOne({ _id: 't9', title: 'VPN drops', priority: 1, status: 'open' });
      await tickets.updateOne({ _id: 't2' }, { $set: { title: 'VPN drops' } });
      expect((await tickets.find({ title: 'VPN drops' }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t2', 't3', 't9']);
    });

    it('refuses a second document with the same _id', async () => {
      await expect(tickets.insertOne({ ...TICKETS[0]! })).rejects.toBeInstanceOf(DuplicateKeyError);
    });
  });

  describe('with a plain index', () => {
    it('finds by the indexed field through inserts, updates, replacements, deletes and array values', async () => {
      await tickets.createIndex({ keys: { status: 1, priority: -1 } });
      const ids = async (status: string) => (await tickets.find({ status }, { sort: { _id: 1 } })).map((t) => t._id);
      const before = await ids('open');
      await tickets.insertOne({ _id: 't9', title: 'New', priority: 1, status: 'open' });
      expect(await ids('open')).toEqual([...before, 't9'].sort());
      await tickets.updateOne({ _id: 't9' }, { $set: { status: 'closed' } });
      expect(await ids('open')).toEqual(before);
      expect(await ids('closed')).toContain('t9');
      await tickets.replaceOne({ _id: 't9' }, { _id: 't9', title: 'New', priority: 1, status: 'pending' });
      expect(await ids('pending')).toEqual(['t9']);
      await tickets.updateMany({ status: 'pending' }, { $set: { status: ['pending', 'open'] as unknown as string } });
      expect(await ids('open')).toEqual([...before, 't9'].sort());
      await tickets.deleteOne({ _id: 't9' });
      expect(await ids('open')).toEqual(before);
      expect(await tickets.count({ status: 'pending' })).toBe(0);
    });

    it('pages and counts an equality on the first key in the order of its other keys, exact once a document holds an array or object there', async () => {
      await tickets.createIndex({ keys: { status: 1, priority: -1 } });
      await tickets.insertOne({ _id: 't9', title: 'Looks like a list', priority: 5, status: '["open","x"]' });
      const page = async (filter: Record<string, unknown>) => (await tickets.find(filter, { sort: { priority: -1 }, limit: 2 })).map((t) => t._id);
      expect(await page({ status: 'open' })).toEqual(['t1', 't3']);
      expect(await page({ status: { $eq: 'open' } })).toEqual(['t1', 't3']);
      expect(await page({ status: { $in: ['closed', 'resolved', 'closed'] } })).toEqual(['t4', 't2']);
      expect(await page({ status: '["open","x"]' })).toEqual(['t9']);
      expect(await tickets.count({ status: { $in: ['open', 'resolved'] } })).toBe(3);
      await tickets.insertOne({ _id: 't7', title: 'No status', priority: 0 } as Ticket);
      expect((await tickets.find({ status: { $ne: 'open' } }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t2', 't4', 't7', 't9']);
      await tickets.insertOne({ _id: 't6', title: 'Null status', priority: 0, status: null } as unknown as Ticket);
      expect((await tickets.find({ status: { $ne: null } }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t1', 't2', 't3', 't4', 't9']);
      expect(await tickets.count({ status: { $ne: null } })).toBe(5);
      await tickets.deleteOne({ _id: 't6' });
      await tickets.deleteOne({ _id: 't7' });
      // An array holds its elements for an equality, and its JSON text is no string it equals; nor is an object's.
      await tickets.updateOne({ _id: 't2' }, { $set: { status: ['open', 'x'] as unknown as string } });
      await tickets.insertOne({ _id: 't8', title: 'Object', priority: 0, status: { a: 1 } as unknown as string });
      expect(await page({ status: 'open' })).toEqual(['t1', 't3']);
      expect((await tickets.find({ status: 'open' }, { sort: { priority: 1 } })).map((t) => t._id)).toEqual(['t2', 't3', 't1']);
      expect(await page({ status: '["open","x"]' })).toEqual(['t9']);
      expect(await tickets.count({ status: '{"a":1}' })).toBe(0);
      expect(await tickets.count({ status: { $in: ['open', 'x'] } })).toBe(3);
      expect((await tickets.find({ status: { $ne: 'open' } }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t4', 't8', 't9']);
      expect(await tickets.count({ status: { $ne: null } })).toBe(6);
      await tickets.deleteOne({ _id: 't2' });
      await tickets.deleteOne({ _id: 't8' });
      expect(await page({ status: '["open","x"]' })).toEqual(['t9']);
      expect(await tickets.count({ status: 'open' })).toBe(2);
    });

    it('answers an $in of 1,500 values and an $or of 1,500 branches on indexed fields (a page of 1,000 tickets read up to as many marks)', async () => {
      await tickets.createIndex({ keys: { status: 1, priority: -1 } });
      await tickets.createIndex({ keys: { priority: 1 } });
      const many = Array.from({ length: 1500 }, (_, at) => `s${at}`);
      const ids = async (filter: Record<string, unknown>) => (await tickets.find(filter, { sort: { _id: 1 } })).map((t) => t._id);
      expect(await ids({ status: { $in: [...many, 'closed', 'resolved'] } })).toEqual(['t2', 't4']);
      expect(await ids({ priority: { $in: [...Array.from({ length: 1500 }, (_, at) => 1000 + at), 'open', null, 3] } })).toEqual(['t3']);
      expect(await ids({ status: { $nin: many } })).toEqual(['t1', 't2', 't3', 't4']);
      const branches = Array.from({ length: 1500 }, (_, at) => ({ status: `s${at}`, priority: { $gte: at } }));
      expect(await ids({ $or: [...branches, { status: 'open', priority: { $gte: 2 } }] })).toEqual(['t1', 't3']);
      expect(await tickets.count({ $or: [...branches, { status: 'closed' }] })).toBe(1);
      expect(await tickets.aggregate([{ $match: { $or: [...branches, { status: 'open' }] } }, { $group: { _id: null, n: { $sum: 1 } } }])).toEqual([
        { _id: null, n: 2 },
      ]);
    });

    it('moves the entries of a dotted and a top-level indexed field on a replacement guarded by a revision, and not on one guarded away', async () => {
      await tickets.createIndex({ keys: { 'owner.name': 1 } });
      await tickets.createIndex({ keys: { status: 1 } });
      await tickets.updateOne({ _id: 't1' }, { $set: { rev: 1 } });
      const owned = async (name: string) => (await tickets.find({ 'owner.name': name }, { sort: { _id: 1 } })).map((t) => t._id);
      const moved = { _id: 't1', title: 'Printer on fire', priority: 4, status: 'closed', owner: { name: 'bo' }, rev: 2 };
      expect(await tickets.replaceOne({ _id: 't1', rev: 1 }, moved)).toEqual({ matched: 1, modified: 1, upsertedId: null });
      expect(await tickets.replaceOne({ _id: 't1', rev: 1 }, { ...moved, owner: { name: 'cy' }, rev: 3 })).toMatchObject({ matched: 0, modified: 0 });
      expect([await owned('ann'), await owned('bo'), await owned('cy')]).toEqual([[], ['t1'], []]);
      expect((await tickets.find({ status: 'closed' }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(['t1', 't4']);
      expect(await tickets.findOne({ _id: 't1' })).toEqual(moved);
    });
  });

  describe('with a range on the first key of an index (a word prefix)', () => {
    it('finds exactly the strings inside [$gte, $lt), through inserts and deletes, also with other conditions', async () => {
      await tickets.createIndex({ keys: { title: 1 } });
      const inRange = async (from: string, to: string, extra: Record<string, unknown> = {}) =>
        (await tickets.find({ title: { $gte: from, $lt: to }, ...extra })).map((t) => t._id).sort();
      expect(await inRange('P', 'Q')).toEqual(['t1', 't2']);
      await tickets.insertOne({ _id: 't9', title: 'Pass', priority: 1, status: 'open' });
      await tickets.insertOne({ _id: 't8', title: 'Q', priority: 1, status: 'open' });
      await tickets.insertOne({ _id: 't7', title: 'Oz', priority: 1, status: 'open' });
      expect(await inRange('P', 'Q')).toEqual(['t1', 't2', 't9']);
      expect(await inRange('Pas', 'Pat')).toEqual(['t2', 't9']);
      expect(await inRange('Pas', 'Pat', { status: 'open' })).toEqual(['t9']);
      await tickets.deleteOne({ _id: 't2' });
      expect(await inRange('Pas', 'Pat')).toEqual(['t9']);
      expect(await inRange('Z', 'ZZ')).toEqual([]);
    });
  });

  describe('with an index on an array of words (multikey)', () => {
    const withWord = async (filter: Record<string, unknown>) => (await tickets.find(filter, { projection: { _id: 1 } })).map((t) => t._id).sort();

    const prefix = (word: string) => ({ $regex: `^${word}` });

    it('finds a document by any element, and a word by an anchored prefix, through inserts, updates, replacements and deletes', async () => {
      await tickets.createIndex({ keys: { tags: 1 } });
      expect(await withWord({ tags: 'hardware' })).toEqual(['t1', 't3']);
      expect(await withWord({ tags: prefix('net') })).toEqual(['t3']);
      await tickets.insertOne({ _id: 't9', title: 'Router', priority: 1, status: 'open', tags: ['network', 'netgear'] });
      expect(await withWord({ tags: prefix('net') })).toEqual(['t3', 't9']);
      expect(await withWord({ tags: prefix('netg') })).toEqual(['t9']);
      await tickets.updateOne({ _id: 't3' }, { $set: { tags: ['software'] } });
      expect(await withWord({ tags: 'hardware' })).toEqual(['t1']);
      expect(await withWord({ tags: prefix('net') })).toEqual(['t9']);
      await tickets.replaceOne({ _id: 't9' }, { _id: 't9', title: 'Router', priority: 1, status: 'open', tags: ['wifi'] });
      expect(await withWord({ tags: prefix('net') })).toEqual([]);
      expect(await withWord({ tags: 'wifi', status: 'open' })).toEqual(['t9']);
      await tickets.deleteOne({ _id: 't9' });
      expect(await withWord({ tags: 'wifi' })).toEqual([]);
    });

    it('matches a prefix within one element, and only at its start', async () => {
      await tickets.createIndex({ keys: { tags: 1 } });
      await tickets.insertOne({ _id: 't9', title: 'Mixed', priority: 1, status: 'open', tags: ['account', 'zzz', 'subnet', 'b.c'] });
      expect(await withWord({ tags: prefix('b') })).toEqual(['t9']);
      expect(await withWord({ tags: prefix('net') })).toEqual(['t3']);
      expect(await withWord({ tags: prefix('b\\.c') })).toEqual(['t9']);
      expect(await withWord({ tags: prefix('zz'), status: 'open' })).toEqual(['t9']);
      expect(await withWord({ tags: prefix('acc'), status: 'closed' })).toEqual([]);
    });

    it('counts and finds by several words at once: all of them, any of several lists, none of others', async () => {
      await tickets.createIndex({ keys: { tags: 1 } });
      await tickets.createIndex({ keys: { labels: 1 } });
      await tickets.insertOne({ _id: 't5', title: 'Wifi', priority: 1, status: 'open', tags: ['network', 'wifi'], labels: ['urgent'] } as Ticket);
      await tickets.insertOne({ _id: 't6', title: 'Cable', priority: 1, status: 'open', tags: ['netcable'], labels: ['hardware'] } as Ticket);
      await tickets.insertOne({ _id: 't7', title: 'None', priority: 1, status: 'open', tags: [], labels: [] } as Ticket);
      const either = (word: unknown) => ({ $or: [{ tags: word }, { labels: word }] });
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ $and: [either(prefix('net'))] }, ['t3', 't5', 't6']],
        [{ $and: [either(prefix('net')), either('hardware')] }, ['t3', 't6']],
        [{ $and: [either(prefix('net'))], $nor: [{ tags: 'wifi' }, { labels: 'hardware' }] }, ['t3']],
        [{ tags: prefix('net'), labels: 'urgent' }, ['t5']],
        [{ $and: [{ tags: { $in: ['wifi', 'account'] } }] }, ['t2', 't5']],
        [{ $and: [either('nothing')] }, []],
      ];
      for (const [filter, expected] of cases) {
        expect(await withWord(filter)).toEqual(expected);
        expect(await tickets.count(filter)).toBe(expected.length);
        expect((await tickets.find({ _id: { $in: ['t1', 't3', 't5', 't7'] }, ...filter })).map((t) => t._id).sort()).toEqual(
          expected.filter((id) => ['t1', 't3', 't5', 't7'].includes(id)),
        );
      }
    });

    it('counts a document holding several of the wanted elements once', async () => {
      await tickets.createIndex({ keys: { tags: 1 } });
      expect(await tickets.count({ tags: { $in: ['network', 'hardware'] } })).toBe(2);
      expect(await tickets.count({ tags: 'hardware' })).toBe(2);
    });

    it('answers a projection of top-level fields with those fields only', async () => {
      expect(await tickets.find({ status: 'open' }, { projection: { _id: 1, title: 1 } })).toEqual(
        expect.arrayContaining([
          { _id: 't1', title: 'Printer on fire' },
          { _id: 't3', title: 'VPN drops' },
        ]),
      );
      expect(await tickets.find({ _id: 't1' }, { projection: { title: 1, _id: 0 } })).toEqual([{ title: 'Printer on fire' }]);
    });
  });

  describe('with ordered and equality indexes (random documents, filters and sorts)', () => {
    /** A small deterministic generator, so a failure can be replayed. */
    const random = (seed: number) => () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    interface Row extends Doc {
      a?: number | string | null;
      b?: number;
      when?: string;
      owner?: { id: string | null } | null;
      tags?: string[];
    }
    const pick = <V>(next: () => number, values: V[]) => values[Math.floor(next() * values.length)]!;
    const row = (next: () => number, id: string): Row => {
      const doc: Row = { _id: id };
      const a = pick(next, [0, 1, 2, 3, 'x', 'y', null, undefined]);
      if (a !== undefined) doc.a = a;
      if (next() < 0.9) doc.b = Math.floor(next() * 20);
      doc.when = `2026-01-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`;
      const owner = pick(next, [null, undefined, { id: 'u1' }, { id: 'u2' }, { id: null }]);
      if (owner !== undefined) doc.owner = owner;
      if (next() < 0.2) doc.tags = pick(next, [['p'], ['p', 'q'], []]);
      return doc;
    };
    const FILTERS: Array<Record<string, unknown>> = [
      {},
      { a: 1 },
      { a: null },
      { a: { $in: [1, 'x', null] } },
      { 'owner.id': 'u1' },
      { 'owner.id': null },
      { 'owner.id': { $ne: null } },
      { owner: null },
      { b: { $gte: 10 }, a: { $ne: 2 } },
      { when: { $regex: '-1' } },
      { tags: 'p' },
      { a: { $in: [0, 3] }, 'owner.id': 'u2' },
    ];
    const SORTS: Array<Record<string, 1 | -1>> = [
      { b: -1, when: -1 },
      { b: 1, when: 1 },
      { when: 1, a: -1 },
      { when: -1, a: 1 },
    ];

    it('answers every find and count as the same collection without indexes does, through inserts, updates and deletes', async () => {
      // What this pins is the embedded store's own indexes. On a server each query is a round trip (the
      // full run makes about 2,700, a minute on FerretDB), so a server gets a third of the documents and one round.
      const [documents, rounds] = name === 'memory' ? [300, 3] : [100, 1];
      const next = random(24);
      const indexed = store.collection<Row>(`indexed_${randomUUID().slice(0, 8)}`);
      const plain = store.collection<Row>(`plain_${randomUUID().slice(0, 8)}`);
      try {
        const declared: Array<Record<string, 1 | -1>> = [{ b: -1, when: -1 }, { when: 1, a: -1 }, { a: 1 }, { 'owner.id': 1, when: -1 }];
        for (const keys of declared) await indexed.createIndex({ keys });
        for (let i = 0; i < documents; i++) {
          const doc = row(next, `d${i}`);
          await indexed.insertOne(doc);
          await plain.insertOne(doc);
        }
        const sortKey = (sort: Record<string, 1 | -1>) => (doc: Row) =>
          Object.keys(sort).map((field) => (doc as unknown as Record<string, unknown>)[field] ?? null);
        const compare = async () => {
          for (const filter of FILTERS) {
            expect(await indexed.count(filter)).toBe(await plain.count(filter));
            const ids = async (collection: Collection<Row>) => (await collection.find(filter)).map((doc) => doc._id).sort();
            expect(await ids(indexed)).toEqual(await ids(plain));
            for (const sort of SORTS) {
              for (const limit of [1, 7, 50, undefined]) {
                const options = { sort, ...(limit ? { limit } : {}) };
                const [got, want] = [await indexed.find(filter, options), await plain.find(filter, options)];
                // Ties may come in any order: the same sort keys in the same order, the same count.
                expect(got.map(sortKey(sort))).toEqual(want.map(sortKey(sort)));
                if (!limit) expect(got.map((doc) => doc._id).sort()).toEqual(want.map((doc) => doc._id).sort());
              }
            }
          }
        };
        await compare();
        for (let round = 0; round < rounds; round++) {
          for (let i = 0; i < documents / 5; i++) {
            const id = `d${Math.floor(next() * documents * 1.1)}`;
            const change = next();
            for (const collection of [indexed, plain]) {
              if (change < 0.5) await collection.updateOne({ _id: id }, { $set: { b: i % 20, when: `2026-02-${String(1 + (i % 28)).padStart(2, '0')}` } });
              else if (change < 0.7) await collection.updateOne({ _id: id }, { $set: { owner: i % 2 ? { id: 'u1' } : null, a: i % 3 } });
              else if (change < 0.85) await collection.deleteOne({ _id: id });
              else if (!(await collection.findOne({ _id: id }))) await collection.insertOne(row(random(i + round * 100), id));
            }
          }
          await compare();
        }
      } finally {
        await indexed.drop();
        await plain.drop();
      }
    });
  });

  describe('when aggregating', () => {
    it('runs $match, $unwind, $group and $sort pipelines', async () => {
      // Only what FerretDB does too (docs/readstore.md): after `$unwind` a document keeps only its `_id` and the
      // unwound field, and a `$group` computes one accumulator, `$sum` or `$count`.
      const byTag = await tickets.aggregate<{ _id: string; count: number }>([
        { $match: { status: { $ne: 'closed' } } },
        { $unwind: '$tags' },
        { $group: { _id: '$tags', count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
      ]);
      expect(byTag).toEqual([
        { _id: 'hardware', count: 2 },
        { _id: 'account', count: 1 },
        { _id: 'network', count: 1 },
      ]);
      const byStatus = await tickets.aggregate([{ $group: { _id: '$status', priorities: { $sum: '$priority' } } }, { $sort: { _id: 1 } }]);
      expect(byStatus).toEqual([
        { _id: 'closed', priorities: 2 },
        { _id: 'open', priorities: 7 },
        { _id: 'resolved', priorities: 1 },
      ]);
    });

    it('counts by a field after a $match of indexed and other conditions, a null or missing value in one group', async () => {
      await tickets.createIndex({ keys: { status: 1, priority: -1 } });
      await tickets.insertOne({ _id: 't5', title: 'No status', priority: 2 } as Ticket);
      await tickets.insertOne({ _id: 't6', title: 'Null status', priority: 5, status: null } as unknown as Ticket);
      const counted = async (match: Record<string, unknown>) => {
        const rows = await tickets.aggregate<{ _id: string | null; n: number }>([{ $match: match }, { $group: { _id: '$status', n: { $sum: 1 } } }]);
        return rows.sort((a, b) => String(a._id).localeCompare(String(b._id)));
      };
      expect(await counted({ priority: { $gte: 2 } })).toEqual([
        { _id: 'closed', n: 1 },
        { _id: null, n: 2 },
        { _id: 'open', n: 2 },
      ]);
      expect(
        await counted({ $or: [{ status: { $in: ['open', 'resolved'] }, priority: { $gt: 1 } }, { status: 'closed' }], title: { $ne: 'VPN drops' } }),
      ).toEqual([
        { _id: 'closed', n: 1 },
        { _id: 'open', n: 1 },
      ]);
      expect(await counted({ status: 'none' })).toEqual([]);
      // A number stays a number; with a boolean there too, each keeps its type.
      await tickets.insertOne({ _id: 't7', title: 'Numbered', priority: 3, status: 7 as unknown as string });
      expect(await counted({ priority: 3 })).toEqual([
        { _id: 7, n: 1 },
        { _id: 'open', n: 1 },
      ]);
      // Into one group, a field's numbers summed (a string among them counts nothing), and no group for no match.
      const summed = (match: Record<string, unknown>) => tickets.aggregate([{ $match: match }, { $group: { _id: null, total: { $sum: '$priority' } } }]);
      await tickets.insertOne({ _id: 't9', title: 'Worded priority', priority: 'high' as unknown as number, status: 'open' });
      expect(await summed({ status: 'open' })).toEqual([{ _id: null, total: 7 }]);
      expect(await summed({ _id: { $gte: 't3' } })).toEqual([{ _id: null, total: 15 }]);
      expect(await summed({ status: 'none' })).toEqual([]);
      await tickets.insertOne({ _id: 't8', title: 'Flagged', priority: 3, status: true as unknown as string });
      expect(await counted({ priority: 3, status: { $ne: 'open' } })).toEqual([
        { _id: 7, n: 1 },
        { _id: true, n: 1 },
      ]);
    });
  });
});
