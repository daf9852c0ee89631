import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryReadStore } from './memory';
import { SNAPSHOT_FILE, SNAPSHOT_FORMAT, readSnapshot, writeSnapshot } from './snapshot';

describe('Read store snapshot file', () => {
  let dir: string;
  let store: MemoryReadStore;
  const identity = { position: 42, eventId: 'event-42', link: 'ab'.repeat(32) };
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'snapshot-file-'));
    store = new MemoryReadStore();
    const tickets = store.collection('tickets');
    await tickets.createIndex({ keys: { ticketId: 1 }, unique: true });
    await tickets.createIndex({ keys: { status: 1, createdAt: -1 } });
    // More documents than one frame holds, and a collection with none.
    for (let i = 0; i < 12_345; i++)
      await tickets.insertOne({
        _id: `t${i}`,
        ticketId: i,
        status: i % 2 ? 'open' : 'closed',
        createdAt: new Date(i * 1000).toISOString(),
        nested: { tags: ['a', i] },
      } as never);
    await store.collection('empty').createIndex({ keys: { name: 1 } });
    await writeSnapshot(dir, store.dump(), identity);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = () => path.join(dir, SNAPSHOT_FILE);

  it('when intact, then it restores every collection with its documents and indexes, and the identity it was taken at', async () => {
    const loaded = await readSnapshot(dir);
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(loaded.identity).toEqual(identity);
    const restored = new MemoryReadStore();
    await restored.restore(loaded.collections);
    expect(restored.dump()).toEqual(store.dump());
    await expect(restored.collection('tickets').insertOne({ _id: 'again', ticketId: 7 } as never)).rejects.toThrow('Duplicate key');
    expect(await restored.collection('tickets').count({ status: 'open' })).toBe(6172);
  });

  it('when the store changes while a frozen snapshot is written, then the file holds the models of the moment they were frozen', async () => {
    const before = store.dump().map(({ name, docs, indexes }) => ({ name, indexes, docs: structuredClone(docs) }));
    const tickets = store.collection<{ _id: string; status: string; nested?: { tags: unknown[] } }>('tickets');
    const writing = writeSnapshot(dir, store.freeze(), { ...identity, position: 43 });
    // Writes while the frames go out: in place, a nested change, a delete, an insert, a new collection.
    await tickets.updateOne({ _id: 't1' }, { $set: { status: 'closed', 'nested.tags': ['changed'] } });
    await tickets.updateMany({ status: 'open' }, { $set: { status: 'pending' } });
    await tickets.deleteOne({ _id: 't2' });
    await tickets.insertOne({ _id: 'new', status: 'open' });
    await store.collection('later').insertOne({ _id: 'x' });
    await writing;
    store.thaw();
    const loaded = await readSnapshot(dir);
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(loaded.collections).toEqual(before);
    expect(await tickets.findOne({ _id: 't1' })).toMatchObject({ status: 'closed', nested: { tags: ['changed'] } });
    expect(await tickets.count({ status: 'open' })).toBe(1);
    // Thawed: a change is made in place again, and the store's answers are the changed ones.
    await tickets.updateOne({ _id: 't3' }, { $set: { status: 'open' } });
    expect(await tickets.count({ status: 'open' })).toBe(2);
  });

  it.each([
    ['cut short (a torn write)', (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length * 0.7)), /truncated|checksum/],
    [
      'a byte changed in the middle',
      (bytes: Buffer) => Buffer.concat([bytes.subarray(0, 5000), Buffer.from([bytes[5000]! ^ 1]), bytes.subarray(5001)]),
      /checksum|malformed/,
    ],
    ['the checksum changed', (bytes: Buffer) => Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes[bytes.length - 1]! ^ 1])]), /checksum/],
    [
      'of another format version',
      (bytes: Buffer) => Buffer.concat([bytes.subarray(0, 14), Buffer.from([SNAPSHOT_FORMAT + 1, 0, 0, 0]), bytes.subarray(18)]),
      /format/,
    ],
    ['not a snapshot at all', () => Buffer.from('{"hello": "world"}'), /not a snapshot/],
    ['empty', () => Buffer.alloc(0), /not a snapshot/],
  ])('when %s, then it is refused with a reason', async (_case, damage, reason) => {
    writeFileSync(file(), damage(readFileSync(file())));
    const loaded = await readSnapshot(dir);
    expect(loaded.ok).toBe(false);
    expect(loaded.ok ? '' : loaded.reason).toMatch(reason);
  });

  it('when there is none, then the reason says so', async () => {
    rmSync(file());
    expect(await readSnapshot(dir)).toEqual({ ok: false, reason: 'no snapshot' });
  });
});
