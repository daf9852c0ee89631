import { randomUUID } from 'node:crypto';
import { FencedOutError, FencedReadStore } from './fenced';
import { MemoryReadStore } from './memory';
import { MongoReadStore } from './mongodb';
import type { ReadStore } from './port';

const stores: Array<[string, () => Promise<ReadStore>]> = [['memory', async () => new MemoryReadStore()]];
if (process.env.MONGO_URL) {
  const url = process.env.MONGO_URL;
  stores.push(['mongodb', () => MongoReadStore.connect(url, `desk_fenced_${randomUUID().slice(0, 8)}`)]);
}

interface Note {
  _id: string;
  text: string;
}

/** docs/read-models.md "Fenced writes": what a writer of an older epoch can and cannot still change. */
describe.each(stores)('A read store fenced with a writer epoch (%s)', (_name, connect) => {
  let store: ReadStore;
  beforeEach(async () => {
    store = await connect();
  });
  afterEach(async () => {
    for (const name of ['notes', 'fences']) await store.collection(name).drop();
    await store.close();
  });

  it('when a newer writer has written, then the older one changes none of its documents and fails at its next page', async () => {
    const older = new FencedReadStore(store, 1, 'group');
    const newer = new FencedReadStore(store, 2, 'group');
    await older.fence();
    await older.collection<Note>('notes').replaceOne({ _id: 'a' }, { _id: 'a', text: 'old' }, { upsert: true });
    await older.collection<Note>('notes').replaceOne({ _id: 'b' }, { _id: 'b', text: 'old' }, { upsert: true });
    // Readers never see the stamp.
    expect(await store.collection('notes').findOne({ _id: 'a' })).toEqual({ _id: 'a', text: 'old' });

    await newer.fence();
    await newer.collection<Note>('notes').updateOne({ _id: 'a' }, { $set: { text: 'new' } });

    await expect(older.fence()).rejects.toBeInstanceOf(FencedOutError);
    const notes = older.collection<Note>('notes');
    await expect(notes.replaceOne({ _id: 'a' }, { _id: 'a', text: 'stale' }, { upsert: true })).rejects.toBeInstanceOf(FencedOutError);
    expect(await notes.updateOne({ _id: 'a' }, { $set: { text: 'stale' } })).toMatchObject({ matched: 0 });
    expect(await notes.updateMany({}, { $set: { text: 'stale' } })).toMatchObject({ matched: 1 });
    expect(await notes.deleteOne({ _id: 'a' })).toBe(0);
    await expect(notes.bulkWrite([{ replaceOne: { filter: { _id: 'a' }, replacement: { _id: 'a', text: 'stale' }, upsert: true } }])).rejects.toBeInstanceOf(
      FencedOutError,
    );
    expect(await store.collection('notes').findOne({ _id: 'a' })).toEqual({ _id: 'a', text: 'new' });
    // Not covered per document: one the newer writer has not written yet (the page fence stops the older writer's next page).
    expect(await store.collection('notes').findOne({ _id: 'b' })).toEqual({ _id: 'b', text: 'stale' });
    // The newer writer is not fenced by its own stamps.
    await newer.fence();
    await newer.collection<Note>('notes').replaceOne({ _id: 'a' }, { _id: 'a', text: 'newer' }, { upsert: true });
    expect(await store.collection('notes').findOne({ _id: 'a' })).toEqual({ _id: 'a', text: 'newer' });
  });

  it('when the older writer is not sure it still leads, then each write reads the fence first: none lands once a newer writer raised it, not even on a document it has not written', async () => {
    let standing: 'sure' | 'unsure' | 'gone' = 'sure';
    const older = new FencedReadStore(store, 1, 'group', () => standing);
    await older.fence();
    await older.collection<Note>('notes').insertOne({ _id: 'a', text: 'old' });
    await new FencedReadStore(store, 2, 'group').fence();

    standing = 'unsure';
    const notes = older.collection<Note>('notes');
    await expect(notes.replaceOne({ _id: 'b' }, { _id: 'b', text: 'stale' }, { upsert: true })).rejects.toBeInstanceOf(FencedOutError);
    await expect(notes.bulkWrite([{ updateOne: { filter: { _id: 'a' }, update: { $set: { text: 'stale' } } } }])).rejects.toBeInstanceOf(FencedOutError);
    expect(await store.collection('notes').find({}, { sort: { _id: 1 } })).toEqual([{ _id: 'a', text: 'old' }]);
    // A writer that stood down is refused without asking the store.
    standing = 'gone';
    await expect(notes.deleteMany({})).rejects.toBeInstanceOf(FencedOutError);
  });
});
