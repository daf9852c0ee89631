import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { MemoryReadStore } from '../platform/readstore/memory';
import { type Collection, type Doc, type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { BOT_COMMANDS, type BotCommandView } from './botCommands';
import { CATEGORIES, categoriesProjection } from './categories';
import { checkProjections } from './check';
import { type ConflictFault, type FailureFault, PROJECTION_FAULTS, faults } from './faults';
import { type Projection, ProjectionRunner } from './runner';
import { allProjections } from './all';
import { holderOf } from './uniqueKeys';

const metadata = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, occurredAt: '2026-03-01T10:00:00.000Z', schemaVersion: 1 };

const command = (commandId: string, name: string) => ({
  type: 'BotCommandCreated',
  data: { commandId, command: name, description: `/${name}`, handler: 'custom', response: `Answer of ${commandId}`, order: 0, isActive: true, isSystem: false },
  metadata,
});
const rename = (commandId: string, from: string, to: string) => ({
  type: 'BotCommandUpdated',
  data: { commandId, changes: { command: to }, previous: { command: from } },
  metadata,
});
const category = (categoryId: string, name: string) => ({
  type: 'CategoryCreated',
  data: { categoryId, name, description: '', color: '#007bff', order: 0 },
  metadata,
});

/** A projection with a bug: it throws on the category named "poison" (a fact it cannot handle). */
const fragile: Projection = {
  ...categoriesProjection,
  name: 'fragile',
  collections: ['fragile_v1'],
  async apply(event, store) {
    if ((event.data as { name?: string }).name === 'poison') throw new TypeError('Cannot read properties of undefined (reading "color")');
    await store.collection('fragile_v1').updateOne({ _id: event.id }, { $setOnInsert: { type: event.type } }, { upsert: true });
  },
};

/** The memory store whose writes fail as an unreachable store's do, while `down` is true. */
function flakyStore(inner: MemoryReadStore) {
  const state = { down: true, refused: 0 };
  const store: ReadStore = {
    kind: inner.kind,
    ...(inner.transaction ? { transaction: inner.transaction.bind(inner) } : {}),
    close: () => inner.close(),
    collection<T extends Doc>(name: string): Collection<T> {
      const collection = inner.collection<T>(name);
      const refuse = () => {
        state.refused += 1;
        throw new TransientStoreError(name, new Error('connection refused'));
      };
      return new Proxy(collection, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          const method = (value as (...args: unknown[]) => unknown).bind(target);
          return ['updateOne', 'replaceOne', 'insertOne'].includes(String(property)) && name === CATEGORIES
            ? (...args: unknown[]) => (state.down ? refuse() : method(...args))
            : method;
        },
      });
    },
  };
  return { store, state };
}

describe('Read models meeting what they cannot take', () => {
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore({ filename: ':memory:' });
  });
  afterEach(() => events.close());

  it('when two commands hold one name and then the first is renamed away, then both are kept, the first answers until it leaves, and the conflict comes and goes', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, allProjections);
    await runner.start();
    await events.append('botcommand-a', [command('a', 'refund')], 'no_stream');
    const last = (await events.append('botcommand-b', [command('b', 'refund')], 'no_stream')).position;
    expect(await runner.waitFor(last)).toBe(true);
    const commands = store.collection<BotCommandView>(BOT_COMMANDS);
    expect((await commands.find({ command: 'refund' })).map((found) => found._id).sort()).toEqual(['a', 'b']);
    expect((await holderOf(commands, 'command', 'refund'))?._id).toBe('a');
    expect(await faults(store).find({ kind: 'conflict' })).toEqual([
      expect.objectContaining({ projection: 'botCommands', field: 'command', value: 'refund', holders: ['a', 'b'], position: last }),
    ]);

    const renamed = (await events.append('botcommand-a', [rename('a', 'refund', 'refunds')], 0)).position;
    expect(await runner.waitFor(renamed)).toBe(true);
    expect((await holderOf(commands, 'command', 'refund'))?._id).toBe('b');
    expect(await faults(store).count({ kind: 'conflict' })).toBe(0);
    const check = await checkProjections(events, allProjections, store, { livePosition: () => renamed });
    expect(check.ok).toBe(true);
    await runner.stop();
  });

  it('when a projection throws on one event, then it is recorded and skipped, every later event is applied, and a rebuild records the same', async () => {
    const store = new MemoryReadStore();
    const failures: FailureFault[] = [];
    const runner = new ProjectionRunner(events, store, [fragile], { onFailure: (failure) => failures.push(failure) });
    await events.append('category-1', [category('1', 'Before')], 'no_stream');
    const poison = (await events.append('category-2', [category('2', 'poison')], 'no_stream')).position;
    await runner.start();
    const last = (await events.append('category-3', [category('3', 'After')], 'no_stream')).position;
    expect(await runner.waitFor(last)).toBe(true);
    expect(await store.collection('fragile_v1').count()).toBe(2);
    const recorded = await faults(store).find({});
    expect(recorded).toEqual([
      expect.objectContaining({
        kind: 'failure',
        projection: 'fragile',
        position: poison,
        streamId: 'category-2',
        eventType: 'CategoryCreated',
        error: expect.stringContaining('TypeError'),
      }),
    ]);
    expect(failures.map((failure) => failure.position)).toEqual([poison]);
    const check = await checkProjections(events, [fragile], store, { livePosition: () => last });
    expect(check.collections.find((collection) => collection.name === PROJECTION_FAULTS)).toMatchObject({ rebuilt: 1, live: 1 });
    expect(check.ok).toBe(true);
    await runner.stop();
  });

  it('when the read store is away during the catch-up, then the runner retries instead of skipping, says so meanwhile, and applies everything once it is back', async () => {
    const inner = new MemoryReadStore();
    const { store, state } = flakyStore(inner);
    const runner = new ProjectionRunner(events, store, [categoriesProjection]);
    const last = (await events.append('category-1', [category('1', 'Kept')], 'no_stream')).position;
    const started = runner.start();
    const waitUntil = async (check: () => boolean) => {
      while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await waitUntil(() => runner.trouble().retrying !== null);
    expect(runner.trouble().retrying).toMatchObject({ error: expect.stringContaining('connection refused'), attempts: 1 });
    expect(state.refused).toBeGreaterThan(0);
    state.down = false;
    await started;
    expect(runner.position).toBe(last);
    expect(runner.trouble().retrying).toBeNull();
    expect(await inner.collection(CATEGORIES).count()).toBe(1);
    expect(await faults(inner).count()).toBe(0);
    await runner.stop();
  });

  it('when a projection meets a broken connection, then the page is tried again and the event is applied, not recorded as a fault', async () => {
    const store = new MemoryReadStore();
    let broken = 1;
    const touchy: Projection = {
      ...categoriesProjection,
      async apply(event, target) {
        if (broken > 0) {
          broken -= 1;
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        }
        await categoriesProjection.apply(event, target);
      },
      applyPage: undefined,
    };
    const runner = new ProjectionRunner(events, store, [touchy], { retryPauseMs: 10 });
    const last = (await events.append('category-1', [category('1', 'Kept')], 'no_stream')).position;
    await runner.start();
    expect(runner.position).toBe(last);
    expect(await store.collection(CATEGORIES).count()).toBe(1);
    expect(await faults(store).count()).toBe(0);
    await runner.stop();
  });

  it('when rebuilt, then the conflict records equal the live ones whatever pages the live runner applied', async () => {
    const live = new MemoryReadStore();
    const runner = new ProjectionRunner(events, live, allProjections, { pageSize: 1 });
    for (const id of ['x', 'y', 'z']) await events.append(`botcommand-${id}`, [command(id, 'same')], 'no_stream');
    await runner.start();
    const conflict = (await faults(live).findOne({ kind: 'conflict' })) as ConflictFault;
    expect(conflict.holders).toEqual(['x', 'y', 'z']);
    const check = await checkProjections(events, allProjections, live, { livePosition: () => runner.allApplied });
    expect(check.ok).toBe(true);
    await runner.stop();
  });
});
