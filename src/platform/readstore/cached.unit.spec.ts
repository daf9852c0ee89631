import { CachedReadStore, DocumentCache } from './cached';
import { MemoryReadStore } from './memory';
import type { Collection, Doc, ReadStore } from './port';

interface Row extends Doc {
  _revision?: number;
  count?: number;
  tags?: string[];
  title?: string;
  upTo?: number;
}

const IDS = ['a', 'b', 'c', 'd'];

/** The store below the cache, counting the reads that reach it. */
function countingReads(inner: ReadStore) {
  const reads = { count: 0 };
  const store: ReadStore = {
    kind: inner.kind,
    close: () => inner.close(),
    collection<T extends Doc>(name: string): Collection<T> {
      const collection = inner.collection<T>(name);
      return {
        ...collection,
        name,
        findOne: (filter) => ((reads.count += 1), collection.findOne(filter)),
        find: (filter, options) => ((reads.count += 1), collection.find(filter, options)),
        count: (filter) => collection.count(filter),
        aggregate: (pipeline) => collection.aggregate(pipeline),
        insertOne: (doc) => collection.insertOne(doc),
        updateOne: (filter, update, options) => collection.updateOne(filter, update, options),
        updateMany: (filter, update) => collection.updateMany(filter, update),
        replaceOne: (filter, doc, options) => collection.replaceOne(filter, doc, options),
        deleteOne: (filter) => collection.deleteOne(filter),
        deleteMany: (filter) => collection.deleteMany(filter),
        bulkWrite: (ops) => collection.bulkWrite(ops),
        createIndex: (spec) => collection.createIndex(spec),
        drop: () => collection.drop(),
      };
    },
  };
  return { store, reads };
}

const byId = (rows: Row[]) => [...rows].sort((x, y) => x._id.localeCompare(y._id));

describe('The writer’s document cache', () => {
  it('when the writer reads documents by id after its own writes of every kind, then the cache answers what the store holds, asking it once', async () => {
    const memory = new MemoryReadStore();
    const { store, reads } = countingReads(memory);
    const cached = new CachedReadStore(store, new DocumentCache()).collection<Row>('rows');
    const plain = memory.collection<Row>('rows');
    await plain.insertOne({ _id: 'a', _revision: 1, count: 1, tags: ['x'], title: 'first' });
    expect(await cached.find({ _id: { $in: IDS } })).toEqual([{ _id: 'a', _revision: 1, count: 1, tags: ['x'], title: 'first' }]);
    const read = reads.count;
    const steps: Array<() => Promise<unknown>> = [
      () => cached.replaceOne({ _id: 'a', _revision: 1 }, { _id: 'a', _revision: 2, count: 5, title: 'replaced' }),
      // A guard that does not hold changes nothing.
      () => cached.replaceOne({ _id: 'a', _revision: 1 }, { _id: 'a', _revision: 9, title: 'stale' }),
      () => cached.updateOne({ _id: 'a', _revision: { $lt: 3 } }, { $set: { _revision: 3 }, $inc: { count: 2 }, $push: { tags: 'y' }, $max: { upTo: 4 } }),
      () => cached.updateOne({ _id: 'b' }, { $setOnInsert: { title: 'created' }, $addToSet: { tags: 'z' } }, { upsert: true }),
      () => cached.updateOne({ _id: 'b' }, { $setOnInsert: { title: 'not again' } }, { upsert: true }),
      () => cached.insertOne({ _id: 'c', title: 'inserted' }),
      () =>
        cached.bulkWrite([
          { replaceOne: { filter: { _id: 'd' }, replacement: { _id: 'd', title: 'upserted' }, upsert: true } },
          { updateOne: { filter: { _id: 'c' }, update: { $unset: { title: '' }, $set: { count: 1 } } } },
          { deleteOne: { filter: { _id: 'b' } } },
          { updateOne: { filter: { _id: 'a', _revision: { $lt: 3 } }, update: { $set: { title: 'guarded out' } } } },
        ]),
    ];
    for (const step of steps) {
      await step();
      expect(byId(await cached.find({ _id: { $in: IDS } }))).toEqual(byId(await plain.find({ _id: { $in: IDS } })));
      expect(await cached.findOne({ _id: 'a' })).toEqual(await plain.findOne({ _id: 'a' }));
    }
    expect(reads.count).toBe(read);
  });

  it('when another writer moved a document and a guarded write of the cache matches nothing, then the cache lets it go and reads it again', async () => {
    const memory = new MemoryReadStore();
    const { store, reads } = countingReads(memory);
    const cached = new CachedReadStore(store, new DocumentCache()).collection<Row>('rows');
    await memory.collection<Row>('rows').insertOne({ _id: 'a', _revision: 1, title: 'first' });
    await cached.findOne({ _id: 'a' });
    await memory.collection<Row>('rows').replaceOne({ _id: 'a' }, { _id: 'a', _revision: 2, title: 'by another writer' });
    const read = reads.count;
    expect((await cached.replaceOne({ _id: 'a', _revision: 1 }, { _id: 'a', _revision: 2, title: 'mine' })).matched).toBe(0);
    expect(await cached.findOne({ _id: 'a' })).toEqual({ _id: 'a', _revision: 2, title: 'by another writer' });
    expect(reads.count).toBe(read + 1);
  });

  it('when a write the cache cannot foresee changes a collection, then its documents are read again', async () => {
    const memory = new MemoryReadStore();
    const cached = new CachedReadStore(memory, new DocumentCache()).collection<Row>('rows');
    await memory.collection<Row>('rows').insertOne({ _id: 'a', title: 'first' });
    await cached.findOne({ _id: 'a' });
    await cached.updateMany({ title: 'first' }, { $set: { title: 'renamed' } });
    expect(await cached.findOne({ _id: 'a' })).toEqual({ _id: 'a', title: 'renamed' });
  });
});
