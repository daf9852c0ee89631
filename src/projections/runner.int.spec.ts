import { categoryStream } from '../domain/category/category';
import { categoryDecider } from '../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../platform/commands';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { MemoryReadStore } from '../platform/readstore/memory';
import { allProjections } from './all';
import { CATEGORIES, categoriesProjection } from './categories';
import { CHECKPOINTS, ProjectionRunner } from './runner';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import { type Applied, labelsOf, lineageProjections } from '../../test/support/lineageProjections';

const CONTEXT = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, now: new Date('2026-03-01T10:00:00Z') };

async function seed(events: SqliteEventStore, count: number) {
  for (let i = 0; i < count; i++) {
    const categoryId = `c${i}`;
    const input = createCategorySchema.parse({ name: `Category ${i}` });
    await handleCommand(events, categoryStream(categoryId), categoryDecider, { type: 'CreateCategory', categoryId, input }, CONTEXT);
    await handleCommand(events, categoryStream(categoryId), categoryDecider, { type: 'UpdateCategory', categoryId, changes: { order: i } }, CONTEXT);
    if (i % 3 === 0) {
      await handleCommand(events, categoryStream(categoryId), categoryDecider, { type: 'DeleteCategory', categoryId }, CONTEXT);
    }
  }
  return events.headPosition();
}

const snapshot = async (store: MemoryReadStore) => store.collection(CATEGORIES).find({}, { sort: { _id: 1 } });

describe('ProjectionRunner', () => {
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore({ filename: ':memory:' });
  });
  afterEach(() => events.close());

  it('when an event is applied twice, then the read model is unchanged', async () => {
    await seed(events, 2);
    const store = new MemoryReadStore();
    const all = await events.readAll();
    for (const event of all) await categoriesProjection.apply(event, store);
    const once = await snapshot(store);
    for (const event of all) await categoriesProjection.apply(event, store);
    expect(await snapshot(store)).toEqual(once);
  });

  it('when rebuilt from zero, then the read models equal the live ones', async () => {
    const live = new MemoryReadStore();
    const runner = new ProjectionRunner(events, live, allProjections);
    await runner.start();
    const last = await seed(events, 30);
    expect(await runner.waitFor(last)).toBe(true);

    const rebuilt = new MemoryReadStore();
    const replay = new ProjectionRunner(events, rebuilt, allProjections);
    const progress: number[] = [];
    await replay.rebuild((p) => progress.push(p.events));
    expect(await snapshot(rebuilt)).toEqual(await snapshot(live));
    expect(await snapshot(live)).toHaveLength(20);
    expect(progress.at(-1)).toBe(await events.headPosition());
    await runner.stop();
    await replay.stop();
  });

  it('when it crashed after applying but before checkpointing, then resuming changes nothing', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, allProjections);
    await runner.start();
    await runner.waitFor(await seed(events, 10));
    await runner.stop();
    const before = await snapshot(store);
    // Put the checkpoints back to the start, as if the process died before storing them.
    await store.collection(CHECKPOINTS).updateMany({}, { $set: { position: 0 } });
    const resumed = new ProjectionRunner(events, store, allProjections);
    await resumed.start();
    expect(await snapshot(store)).toEqual(before);
    await resumed.stop();
  });

  it('when a projection version changes, then only its collections are rebuilt', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, [categoriesProjection]);
    await runner.start();
    await runner.waitFor(await seed(events, 4));
    await runner.stop();
    await store.collection(CATEGORIES).insertOne({ _id: 'stale-leftover' });
    const bumped = new ProjectionRunner(events, store, [{ ...categoriesProjection, version: categoriesProjection.version + 1 }]);
    await bumped.start();
    const ids = (await snapshot(store)).map((doc) => doc._id);
    expect(ids).not.toContain('stale-leftover');
    expect(ids).toHaveLength(2);
    await bumped.stop();
  });

  it('when waiting for a position that is never reached, then it answers false at the timeout', async () => {
    const runner = new ProjectionRunner(events, new MemoryReadStore(), allProjections);
    await runner.start();
    expect(await runner.waitFor(10_000, 50)).toBe(false);
    await runner.stop();
  });

  it('when waiting for named read models only, then a slower projection after them does not hold the caller', async () => {
    let open: () => void = () => undefined;
    let gate: Promise<void> | null = null;
    const slow = { name: 'slow', version: 1, collections: ['slow_v1'], apply: async () => gate ?? undefined };
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, [categoriesProjection, slow]);
    await runner.start();
    expect(await runner.waitFor(await seed(events, 1))).toBe(true);
    gate = new Promise<void>((resolve) => (open = resolve));
    await handleCommand(
      events,
      categoryStream('c1'),
      categoryDecider,
      { type: 'CreateCategory', categoryId: 'c1', input: createCategorySchema.parse({ name: 'Category 1' }) },
      CONTEXT,
    );
    const last = await events.headPosition();
    expect(await runner.waitFor(last, 5000, [categoriesProjection.name])).toBe(true);
    expect(await store.collection(CATEGORIES).findOne({ _id: 'c1' })).toMatchObject({ name: 'Category 1' });
    expect(await runner.waitFor(last, 50)).toBe(false);
    open();
    expect(await runner.waitFor(last, 5000, ['slow'])).toBe(true);
    expect(await runner.waitFor(last)).toBe(true);
    expect(() => runner.waitFor(last, 50, ['nonesuch'])).toThrow('no projection named nonesuch');
    await runner.stop();
  });

  it('when one projection version is bumped on the embedded store, then only it and those that read it are rebuilt, the others keep their checkpoints', async () => {
    const store = new SqliteReadStore({ filename: ':memory:' });
    const checkpoints = async () =>
      Object.fromEntries((await store.collection<{ _id: string; position: number }>(CHECKPOINTS).find({})).map(({ _id, position }) => [_id, position]));
    const run = async (versions: Parameters<typeof lineageProjections>[1]) => {
      const applied: Applied = new Map();
      const runner = new ProjectionRunner(events, store, lineageProjections(applied, versions));
      await runner.start();
      await runner.stop();
      return Object.fromEntries(applied);
    };
    const head = await seed(events, 3);
    expect(await run({})).toEqual({ names: 3, labels: 3, counts: 3 });
    const stored = await checkpoints();
    expect(stored).toEqual({ names: head, labels: head, counts: head });

    expect(await run({ labels: 2 })).toEqual({ labels: 3 });
    expect(await labelsOf(store)).toEqual(['v2:Category 0', 'v2:Category 1', 'v2:Category 2']);
    // The labels read the names: a new version of the names rebuilds both, and the counts stay.
    expect(await run({ labels: 2, names: 2 })).toEqual({ names: 3, labels: 3 });
    expect(await run({ labels: 2, names: 2 })).toEqual({});
    expect(await checkpoints()).toEqual(stored);
    await store.close();
  });
});
