import { randomUUID } from 'node:crypto';
import { compactHeap } from '../heap';
import { MemoryReadStore } from './memory';

describe('MemoryReadStore.shareIds', () => {
  it('keeps every value as it was and gives back the copies of ids that parsed documents each held', async () => {
    const customers = Array.from({ length: 200 }, () => randomUUID());
    // As a snapshot loads them: each document parsed on its own, every id its own string.
    const parsed = (i: number) =>
      JSON.parse(
        JSON.stringify({
          _id: randomUUID(),
          number: i,
          customer: { _id: customers[i % customers.length], name: 'Ann' },
          watchers: [customers[(i + 1) % customers.length], customers[(i + 2) % customers.length]],
          note: 'x'.repeat(36),
        }),
      ) as { _id: string };
    const store = new MemoryReadStore();
    const tickets = store.collection<{ _id: string }>('tickets');
    await store.restore([{ name: 'tickets', docs: Array.from({ length: 60_000 }, (_, i) => parsed(i)), indexes: [] }]);
    const before = await tickets.find({}, { sort: { number: 1 } });
    compactHeap();
    const heapBefore = process.memoryUsage().heapUsed;

    const ids = await store.shareIds();
    compactHeap();
    const heapAfter = process.memoryUsage().heapUsed;

    expect(await tickets.find({}, { sort: { number: 1 } })).toEqual(before);
    // 60,000 documents' own ids, the 200 customers', and the 36-character note (a string of an id's length is shared the same way).
    expect(ids).toBe(60_000 + 200 + 1);
    // Four copies of 36 characters per document gone: some 10 MB.
    expect(heapBefore - heapAfter).toBeGreaterThan(6 * 1024 * 1024);
  });
});
