import { categoryStream } from '../domain/category/category';
import { categoryDecider } from '../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../platform/commands';
import { verifyLog } from '../platform/eventstore/integrity';
import type { EventStore, ReadAllOptions, RecordedEvent, Subscription } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { MemoryReadStore } from '../platform/readstore/memory';
import { allProjections } from './all';
import { CATEGORIES } from './categories';
import { checkProjections } from './check';
import { ProjectionRunner } from './runner';

const CONTEXT = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, now: new Date('2026-03-01T10:00:00Z') };

/**
 * A port double whose readAll answers one event per call whatever was asked: allowed by the port
 * (only an empty page is the end), and what the EventStoreDB adapter does when the server's own
 * records fill a round trip. Its subscription delivers nothing, so only the catch-up is measured.
 */
class OneEventPages implements EventStore {
  readonly kind = 'sqlite' as const;
  constructor(private readonly inner: SqliteEventStore) {}
  append: EventStore['append'] = (...args) => this.inner.append(...args);
  readStream: EventStore['readStream'] = (...args) => this.inner.readStream(...args);
  headPosition = () => this.inner.headPosition();
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return (await this.inner.readAll(options)).slice(0, 1);
  }
  subscribeToAll(): Subscription {
    return { stop: async () => undefined };
  }
  close = () => this.inner.close();
}

describe('Walking the log when pages come back short', () => {
  let inner: SqliteEventStore;
  let short: OneEventPages;
  let total: number;
  beforeEach(async () => {
    inner = new SqliteEventStore({ filename: ':memory:' });
    short = new OneEventPages(inner);
    for (let i = 0; i < 8; i++) {
      const categoryId = `c${i}`;
      await handleCommand(
        inner,
        categoryStream(categoryId),
        categoryDecider,
        { type: 'CreateCategory', categoryId, input: createCategorySchema.parse({ name: `Category ${i}` }) },
        CONTEXT,
      );
    }
    total = (await inner.readAll({ maxCount: 10_000 })).length;
  });
  afterEach(() => inner.close());

  it('when the hash chains are verified, then every event is checked, not the first page only', async () => {
    const report = await verifyLog(short, { pageSize: 100 });
    expect(report).toMatchObject({ ok: true, events: total, head: { position: await inner.headPosition() } });
  });

  it('when the projections are checked, then the private replay covers the whole log and matches the live models', async () => {
    const live = new MemoryReadStore();
    const runner = new ProjectionRunner(inner, live, allProjections);
    await runner.start();
    const check = await checkProjections(short, allProjections, live, { livePosition: () => runner.allApplied });
    await runner.stop();
    expect(check).toMatchObject({ ok: true, events: total });
  });

  it('when the runner catches up at start, then it reaches the head before going live', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(short, store, allProjections, { pageSize: 100 });
    await runner.start();
    expect(runner.position).toBe(await inner.headPosition());
    expect(runner.eventsProcessed).toBe(total);
    expect(await store.collection(CATEGORIES).count({})).toBe(8);
    await runner.stop();
  });
});
