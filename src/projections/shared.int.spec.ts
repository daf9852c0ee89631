import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { eventually } from '../../test/support/eventually';
import { categoryStream } from '../domain/category/category';
import { categoryDecider } from '../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../platform/commands';
import type { EventStore, RecordedEvent } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { LEASES, StoreLease } from '../platform/lease';
import { FENCES } from '../platform/readstore/fenced';
import { MemoryReadStore } from '../platform/readstore/memory';
import { MongoReadStore } from '../platform/readstore/mongodb';
import type { Collection, ReadStore } from '../platform/readstore/port';
import { CATEGORIES, categoriesProjection } from './categories';
import { checkProjections } from './check';
import { EPOCHS, GENERATIONS, Generations, LEGACY, SHARED_CHECKPOINTS } from './generations';
import { type Applied, LINEAGE_COLLECTIONS, labelsOf, lineageProjections } from '../../test/support/lineageProjections';
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

/** A fault to inject: while it holds a message, the wrapped operation throws an error saying so. */
class Fault {
  message: string | null = null;
  check(): void {
    if (this.message) throw new Error(this.message);
  }
}

/** The store, with the checkpoints' `findOne` (a leader's first read) failing while `fault` says so. */
function withFailingCheckpoints(store: ReadStore, fault: Fault): ReadStore {
  return {
    kind: store.kind,
    close: () => store.close(),
    ...(store.transaction ? { transaction: store.transaction.bind(store) } : {}),
    collection: <T extends { _id: string }>(name: string): Collection<T> => {
      const inner = store.collection<T>(name);
      if (name !== CHECKPOINTS) return inner;
      return Object.assign(Object.create(inner) as Collection<T>, {
        findOne: (filter: Record<string, unknown>) => {
          fault.check();
          return inner.findOne(filter);
        },
      });
    },
  };
}

/** The store, counting the reads of the checkpoints in `reads`. */
function countingCheckpointReads(store: ReadStore, reads: { count: number }): ReadStore {
  return {
    kind: store.kind,
    close: () => store.close(),
    ...(store.transaction ? { transaction: store.transaction.bind(store) } : {}),
    collection: <T extends { _id: string }>(name: string): Collection<T> => {
      const inner = store.collection<T>(name);
      if (name !== CHECKPOINTS) return inner;
      return Object.assign(Object.create(inner) as Collection<T>, {
        find: (...args: Parameters<Collection<T>['find']>) => {
          reads.count += 1;
          return inner.find(...args);
        },
      });
    },
  };
}

/** The log, with its reads (a catch-up, a follower's start) failing while `fault` says so. */
function withFailingReads(events: EventStore, fault: Fault): EventStore {
  return Object.assign(Object.create(events) as EventStore, {
    readAll: (...args: Parameters<EventStore['readAll']>) => {
      fault.check();
      return events.readAll(...args);
    },
  });
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
  const runner = (store: ReadStore, projections: Projection[] = [categoriesProjection], log: EventStore = events) => {
    const created = new ProjectionRunner(log, store, projections, {
      lease: new StoreLease({ store, key: PROJECTIONS_LEASE, ttlMs: 300, logger }),
      checkpointEveryMs: 10,
      followEveryMs: 10,
    });
    runners.push(created);
    return created;
  };

  /** A process of one version of the desk: its generations' view of the store, a lease drawing from the shared epochs, and the projections it writes. */
  const versioned = (generations: Generations, projections: Projection[]) => {
    const store = generations.store();
    const created = new ProjectionRunner(events, store, projections, {
      lease: new StoreLease({ store, key: PROJECTIONS_LEASE, ttlMs: 300, logger, epochs: generations.epochs() }),
      ownership: generations,
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
    for (const name of [CATEGORIES, CHECKPOINTS, LEASES, FENCES]) await shared[0].collection(name).drop();
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
    expect(await second.waitFor(last, 20_000)).toBe(true);
    // Read-your-writes in the process that applies nothing: the documents are there when waitFor answers.
    expect(await shared[1].collection(CATEGORIES).count()).toBe(8);
    await eventually(() => heard.length === 5, { describe: 'the follower heard of each live event' });
    expect(second.eventsProcessed).toBe(0);
    expect(first.eventsProcessed).toBe(8);
    const check = await checkProjections(events, [categoriesProjection], shared[1], { livePosition: () => last });
    expect(check.ok).toBe(true);
  });

  it('when nobody waits on a follower, then it reads the checkpoints 20 times less often, and at its usual pace again once a caller waits', async () => {
    const reads = { count: 0 };
    const [writer, follower] = [runner(shared[0]), runner(countingCheckpointReads(shared[1], reads))];
    await writer.start();
    await follower.start();
    expect(await follower.waitFor(await addCategories(2))).toBe(true);
    reads.count = 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // At its pace of every 10 ms it read them about 200 times in those 2 s; idle, every 200 ms.
    expect(reads.count).toBeLessThanOrEqual(12);
    const last = await addCategories(1);
    const asked = performance.now();
    expect(await follower.waitFor(last)).toBe(true);
    expect(performance.now() - asked).toBeLessThan(500);
  });

  it('when the writer stops, then the other takes the lease over and carries on from the shared checkpoint', async () => {
    const [first, second] = [runner(shared[0]), runner(shared[1])];
    await first.start();
    await second.start();
    await first.waitFor(await addCategories(4));
    await first.stop();
    await eventually(() => second.isWriter, { describe: 'the standby became the writer' });
    const last = await addCategories(3);
    expect(await second.waitFor(last, 20_000)).toBe(true);
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

  it('when the lease holder cannot start applying the log, then it gives the lease back, health says why, and it leads again once it can', async () => {
    const last = await addCategories(3);
    const fault = new Fault();
    fault.message = 'Index with name: name_1 already exists with different options';
    const failing = runner(withFailingCheckpoints(shared[0], fault));
    const starting = failing.start();
    await eventually(() => failing.trouble().retrying !== null, { describe: 'the failed start is reported' });
    // What health's problems line carries (src/app/status.ts).
    expect(failing.trouble().retrying?.error).toBe('could not start applying the log: Index with name: name_1 already exists with different options');
    expect(failing.isWriter).toBe(false);
    // Given back, not kept renewed: the lease document says it is free, and another process takes it and applies the log.
    const leases = shared[1].collection<{ _id: string; expiresAt: number }>(LEASES);
    await eventually(async () => (await leases.findOne({ _id: PROJECTIONS_LEASE }))!.expiresAt < Date.now(), { describe: 'the lease was released' });
    const healthy = runner(shared[1]);
    await healthy.start();
    expect(healthy.isWriter).toBe(true);
    expect(await healthy.waitFor(last)).toBe(true);
    expect(await shared[1].collection(CATEGORIES).count()).toBe(3);
    // The failed process follows meanwhile: its start ends once the shared models reach the head.
    await starting;

    fault.message = null;
    await healthy.stop();
    await eventually(() => failing.isWriter, { timeoutMs: 10_000, describe: 'the repaired process leads again' });
    const more = await addCategories(2);
    expect(await failing.waitFor(more)).toBe(true);
    expect(failing.trouble().retrying).toBeNull();
    expect(await shared[0].collection(CATEGORIES).count()).toBe(5);
  });

  it('when a process cannot start following the log, then it tries again after a pause and health says why meanwhile', async () => {
    const writer = runner(shared[0]);
    await writer.start();
    await writer.waitFor(await addCategories(2));
    const fault = new Fault();
    fault.message = 'log unreadable';
    const follower = runner(shared[1], [categoriesProjection], withFailingReads(events, fault));
    await follower.start();
    expect(follower.isWriter).toBe(false);
    await eventually(() => follower.trouble().retrying?.error === 'could not start following the log: log unreadable', {
      describe: 'the failed follow is reported',
    });
    fault.message = null;
    await eventually(() => follower.trouble().retrying === null, { timeoutMs: 10_000, describe: 'the follower started again' });
    const heard: RecordedEvent[] = [];
    follower.onApplied((event) => heard.push(event));
    await addCategories(2);
    await eventually(() => heard.length === 2, { describe: 'the follower hears of live events again' });
  });

  it('when a new projection version starts beside a running one, then it builds its own models while the old keep serving, and the old are dropped once retired', async () => {
    // Models written before generations, under the plain names, with their checkpoint.
    await shared[0].collection(CATEGORIES).insertOne({ _id: 'from-before' });
    await shared[0].collection<{ _id: string; version: number; position: number }>(CHECKPOINTS).insertOne({ _id: 'categories', version: 1, position: 0 });
    const old = new Generations(shared[0], [categoriesProjection]);
    await old.register();
    const oldRunner = runner(old.store());
    await oldRunner.start();
    await oldRunner.waitFor(await addCategories(3));

    const bumped = { ...categoriesProjection, version: categoriesProjection.version + 1 };
    const next = new Generations(shared[1], [bumped]);
    expect(next.id).not.toBe(old.id);
    await next.register();
    const served: number[] = [];
    const sampler = setInterval(
      () =>
        void old
          .store()
          .collection(CATEGORIES)
          .count()
          .then((count) => served.push(count)),
      5,
    );
    // Its own lease: it builds its models while the old version's writer keeps its lease and its models.
    const nextRunner = runner(next.store(), [bumped]);
    const starting = nextRunner.start();
    served.push(await old.store().collection(CATEGORIES).count());
    await starting;
    served.push(await old.store().collection(CATEGORIES).count());
    expect([oldRunner.isWriter, nextRunner.isWriter]).toEqual([true, true]);
    const last = await addCategories(1);
    expect(await oldRunner.waitFor(last)).toBe(true);
    expect(await nextRunner.waitFor(last)).toBe(true);
    clearInterval(sampler);
    expect(Math.min(...served)).toBeGreaterThanOrEqual(3);
    expect(await old.store().collection(CATEGORIES).count()).toBe(4);
    expect(await next.store().collection(CATEGORIES).count()).toBe(4);
    // While a process of the old version leads, its models stay; the ones from before generations stay until their lease has long been free.
    expect(await next.dropRetired(60_000)).toEqual([]);
    expect(await shared[0].collection(CATEGORIES).count()).toBe(1);

    await oldRunner.stop();
    expect((await next.dropRetired(0)).sort()).toEqual([LEGACY, old.id].sort());
    expect(await old.store().collection(CATEGORIES).count()).toBe(0);
    expect(await shared[0].collection(CATEGORIES).count()).toBe(0);
    expect(await next.store().collection(CATEGORIES).count()).toBe(4);
    expect((await shared[1].collection(GENERATIONS).find({})).map((generation) => generation._id)).toEqual([next.id]);
    for (const name of [CATEGORIES, CHECKPOINTS, LEASES, FENCES]) await next.store().collection(name).drop();
    await shared[0].collection(GENERATIONS).drop();
  });

  it('when one projection version is bumped beside a running version, then only it is built, the others keep their models and checkpoints, and are taken over once the old version stops', async () => {
    const oldApplied: Applied = new Map();
    const newApplied: Applied = new Map();
    const old = new Generations(shared[0], lineageProjections(oldApplied));
    await old.register();
    const oldRunner = versioned(old, lineageProjections(oldApplied));
    await oldRunner.start();
    const first = await addCategories(4);
    expect(await oldRunner.waitFor(first)).toBe(true);
    const checkpoints = shared[0].collection<{ _id: string; position: number; owner: string }>(SHARED_CHECKPOINTS);
    const kept = async () => checkpoints.find({ _id: { $in: [old.checkpointId('names'), old.checkpointId('counts')] } }, { sort: { _id: 1 } });
    await eventually(async () => (await kept()).every(({ position }) => position === first), { describe: 'the old version stored its checkpoints' });

    // A rolling deploy: a process of the next version (the labels model bumped) starts while the old one runs.
    const next = new Generations(shared[1], lineageProjections(newApplied, { labels: 2 }));
    expect([next.checkpointId('names'), next.checkpointId('counts')]).toEqual([old.checkpointId('names'), old.checkpointId('counts')]);
    expect(next.checkpointId('labels')).not.toBe(old.checkpointId('labels'));
    await next.register();
    const served: string[][] = [];
    const sampler = setInterval(() => void labelsOf(old.store()).then((labels) => served.push(labels)), 5);
    const nextRunner = versioned(next, lineageProjections(newApplied, { labels: 2 }));
    await nextRunner.start();
    expect([oldRunner.isWriter, nextRunner.isWriter]).toEqual([true, true]);
    expect(Object.fromEntries(newApplied)).toEqual({ labels: 4 });

    const last = await addCategories(3);
    expect(await oldRunner.waitFor(last)).toBe(true);
    expect(await nextRunner.waitFor(last)).toBe(true);
    clearInterval(sampler);
    // Only the bumped model was built; the names it reads are the old version's, written once, and always there before its page.
    expect(Object.fromEntries(newApplied)).toEqual({ labels: 7 });
    expect(await labelsOf(next.store())).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => `v2:${id}`));
    expect(served.every((labels) => labels.length >= 4 && labels.every((label) => label.startsWith('v1:c')))).toBe(true);
    const during = await kept();
    expect(during.map(({ owner }) => owner)).toEqual([old.id, old.id]);
    expect(during.every(({ position }) => position >= first)).toBe(true);

    // The old version stops: the next takes its shared models over from their checkpoints, never from zero.
    await oldRunner.stop();
    const end = await addCategories(2);
    expect(await nextRunner.waitFor(end, 10_000)).toBe(true);
    await eventually(async () => (await kept()).every(({ owner }) => owner === next.id), { describe: 'the next version writes the shared models' });
    expect(Object.fromEntries(newApplied)).toEqual({ labels: 9, names: 2, counts: 2 });
    expect(await labelsOf(next.store())).toHaveLength(9);
    expect(await shared[1].collection(next.nameOf(LINEAGE_COLLECTIONS[0]!)).count()).toBe(9);

    // Retired, the old version's own models go; the ones the next version shares stay.
    expect(await next.dropRetired(0)).toEqual([old.id]);
    expect(await labelsOf(old.store())).toEqual([]);
    expect(await shared[1].collection(next.nameOf(LINEAGE_COLLECTIONS[0]!)).count()).toBe(9);
    for (const name of [...LINEAGE_COLLECTIONS, LEASES, FENCES, 'projection_faults_v1']) await shared[0].collection(next.nameOf(name)).drop();
    for (const name of [GENERATIONS, SHARED_CHECKPOINTS, EPOCHS]) await shared[0].collection(name).drop();
  });
});
