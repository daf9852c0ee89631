import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { eventually } from '../../test/support/eventually';
import { categoryStream } from '../domain/category/category';
import { categoryDecider } from '../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../platform/commands';
import type { RecordedEvent } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { LEASES, StoreLease } from '../platform/lease';
import { MemoryReadStore } from '../platform/readstore/memory';
import { MongoReadStore } from '../platform/readstore/mongodb';
import type { ReadStore } from '../platform/readstore/port';
import { CATEGORIES, categoriesProjection } from './categories';
import { checkProjections } from './check';
import { CHECKPOINTS, PROJECTIONS_LEASE, type Projection, ProjectionRunner } from './runner';

const logger = pino({ level: 'silent' });
const CONTEXT = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, now: new Date('2026-03-01T10:00:00Z') };

/** Two processes' views of one shared read store: one instance for the embedded store, two connections to MongoDB. */
type SharedStores = () => Promise<[ReadStore, ReadStore]>;
const stores: Array<[string, SharedStores]> = [
  [
    'memory',
    async () => {
      const store = new MemoryReadStore();
      return [store, store];
    },
  ],
];
if (process.env.MONGO_URL) {
  const url = process.env.MONGO_URL;
  const dbName = `desk_shared_${randomUUID().slice(0, 8)}`;
  stores.push(['mongodb', async () => [await MongoReadStore.connect(url, dbName), await MongoReadStore.connect(url, dbName)]]);
}

describe.each(stores)('Projection runners sharing one read store (%s)', (_name, connect) => {
  let events: SqliteEventStore;
  let shared: [ReadStore, ReadStore];
  const runners: ProjectionRunner[] = [];
  let count = 0;

  const addCategories = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const categoryId = `c${count++}`;
      await handleCommand(
        events,
        categoryStream(categoryId),
        categoryDecider,
        { type: 'CreateCategory', categoryId, input: createCategorySchema.parse({ name: categoryId }) },
        CONTEXT,
      );
    }
    return events.headPosition();
  };
  const runner = (store: ReadStore, projections: Projection[] = [categoriesProjection]) => {
    const created = new ProjectionRunner(events, store, projections, {
      lease: new StoreLease({ store, key: PROJECTIONS_LEASE, ttlMs: 300, logger }),
      checkpointEveryMs: 10,
      followEveryMs: 10,
    });
    runners.push(created);
    return created;
  };

  beforeEach(async () => {
    events = new SqliteEventStore({ filename: ':memory:' });
    shared = await connect();
    count = 0;
  });
  afterEach(async () => {
    for (const started of runners.splice(0)) await started.stop();
    for (const name of [CATEGORIES, CHECKPOINTS, LEASES]) await shared[0].collection(name).drop();
    await shared[0].close();
    if (shared[1] !== shared[0]) await shared[1].close();
    await events.close();
  });

  it('when two runners share it, then one applies the log and the other reads its writes and hears of live events', async () => {
    await addCategories(3);
    const [first, second] = [runner(shared[0]), runner(shared[1])];
    await first.start();
    await second.start();
    expect([first.isWriter, second.isWriter]).toEqual([true, false]);
    const heard: RecordedEvent[] = [];
    second.onApplied((event) => heard.push(event));

    const last = await addCategories(5);
    expect(await second.waitFor(last)).toBe(true);
    // Read-your-writes in the process that applies nothing: the documents are there when waitFor answers.
    expect(await shared[1].collection(CATEGORIES).count()).toBe(8);
    await eventually(() => heard.length === 5, { describe: 'the follower heard of each live event' });
    expect(second.eventsProcessed).toBe(0);
    expect(first.eventsProcessed).toBe(8);
    const check = await checkProjections(events, [categoriesProjection], shared[1], { livePosition: () => last });
    expect(check.ok).toBe(true);
  });

  it('when the writer stops, then the other takes the lease over and carries on from the shared checkpoint', async () => {
    const [first, second] = [runner(shared[0]), runner(shared[1])];
    await first.start();
    await second.start();
    await first.waitFor(await addCategories(4));
    await first.stop();
    await eventually(() => second.isWriter, { describe: 'the standby became the writer' });
    const last = await addCategories(3);
    expect(await second.waitFor(last)).toBe(true);
    // It resumed from the checkpoint the first writer stored: the 4 earlier events were not applied again here.
    // (waitFor answers once the models hold the events; the count of the page follows them.)
    await eventually(() => second.eventsProcessed >= 3, { describe: 'the new writer counted the page it applied' });
    expect(second.eventsProcessed).toBe(3);
    expect(await shared[1].collection(CATEGORIES).count()).toBe(7);
  });

  it('when a runner without the lease has a newer projection version, then it empties nothing the writer keeps', async () => {
    const writer = runner(shared[0]);
    await writer.start();
    await writer.waitFor(await addCategories(3));
    const bumped = runner(shared[1], [{ ...categoriesProjection, version: categoriesProjection.version + 1 }]);
    const starting = bumped.start();
    const last = await addCategories(1);
    expect(await writer.waitFor(last)).toBe(true);
    expect(bumped.isWriter).toBe(false);
    expect(await shared[0].collection(CATEGORIES).count()).toBe(4);
    // Once the old writer is gone, the new version's runner takes over and rebuilds its model.
    await writer.stop();
    await starting;
    expect(await bumped.waitFor(last, 10_000)).toBe(true);
    expect(bumped.isWriter).toBe(true);
    expect(await shared[1].collection(CATEGORIES).count()).toBe(4);
    expect(await shared[1].collection(CHECKPOINTS).findOne({ _id: 'categories' })).toMatchObject({ version: categoriesProjection.version + 1 });
  });

  it('when a checkpoint is further on than this writer got, then storing its own never moves it back', async () => {
    const writer = new ProjectionRunner(events, shared[0], [categoriesProjection], { checkpointEveryMs: 10 });
    runners.push(writer);
    await writer.start();
    await writer.waitFor(await addCategories(2));
    await shared[0].collection(CHECKPOINTS).updateOne({ _id: 'categories' }, { $set: { position: 1_000_000 } });
    await writer.waitFor(await addCategories(2));
    await writer.stop();
    expect(await shared[0].collection(CHECKPOINTS).findOne({ _id: 'categories' })).toMatchObject({ position: 1_000_000 });
  });
});
