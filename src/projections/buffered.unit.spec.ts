import { MemoryReadStore } from '../platform/readstore/memory';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { withHeldWrites } from './buffered';

interface Entry extends Doc {
  agentId?: string | null;
  status?: string;
  _revision: number;
}

/** A guarded `$set` as the satisfaction model writes it: event `revision` applied once. */
const apply = (page: ReadStore, revision: number, fields: Partial<Entry>) =>
  page.collection<Entry>('entries').updateOne({ _id: 't1', _revision: { $lt: revision } }, { $set: { ...fields, _revision: revision } });

/** A memory store that records the writes each bulk write sends. */
function recording(): { store: ReadStore; sent: BulkOp[][] } {
  const inner = new MemoryReadStore();
  const sent: BulkOp[][] = [];
  const store: ReadStore = {
    kind: inner.kind,
    collection: <T extends Doc>(name: string) => {
      const collection = inner.collection<T>(name);
      return new Proxy(collection, {
        get: (target, key) =>
          key === 'bulkWrite'
            ? (ops: BulkOp<T>[]) => (sent.push(ops as BulkOp[]), target.bulkWrite(ops))
            : (target as unknown as Record<string | symbol, unknown>)[key],
      });
    },
    close: () => inner.close(),
  };
  return { store, sent };
}

describe('Held writes of a page', () => {
  const page = async (store: ReadStore, also?: (page: ReadStore) => Promise<unknown>) =>
    withHeldWrites(store, async (held) => {
      await apply(held, 5, { agentId: 'a1' });
      await also?.(held);
      await apply(held, 6, { status: 'resolved' });
    });

  it('when one document takes guarded sets in a row, then they go as one write with the fields of both', async () => {
    const { store, sent } = recording();
    await store.collection<Entry>('entries').insertOne({ _id: 't1', agentId: null, status: 'open', _revision: 4 });
    await page(store);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toHaveLength(1);
    expect(await store.collection('entries').findOne({ _id: 't1' })).toEqual({ _id: 't1', agentId: 'a1', status: 'resolved', _revision: 6 });
  });

  it('when the page is applied again after a crash wrote part of it, then the document ends as the events leave it', async () => {
    const { store } = recording();
    await store.collection<Entry>('entries').insertOne({ _id: 't1', agentId: 'a1', status: 'open', _revision: 5 });
    await page(store);
    expect(await store.collection('entries').findOne({ _id: 't1' })).toEqual({ _id: 't1', agentId: 'a1', status: 'resolved', _revision: 6 });
  });

  it('when another write of the collection comes between, then each write goes as it was held', async () => {
    const { store, sent } = recording();
    await store.collection<Entry>('entries').insertOne({ _id: 't1', agentId: null, status: 'open', _revision: 4 });
    await page(store, (held) => held.collection<Entry>('entries').updateOne({ _id: 't1' }, { $set: { agentId: 'a2' } }));
    expect(sent[0]).toHaveLength(3);
    expect(await store.collection('entries').findOne({ _id: 't1' })).toEqual({ _id: 't1', agentId: 'a2', status: 'resolved', _revision: 6 });
  });
});
