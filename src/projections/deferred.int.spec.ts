import { categoryStream } from '../domain/category/category';
import { categoryDecider } from '../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../platform/commands';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import type { RecordedEvent } from '../platform/eventstore/port';
import { type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { CATEGORIES, categoriesProjection } from './categories';
import { CHECKPOINTS, type Projection, ProjectionRunner } from './runner';
import { tempDirs } from '../../test/support/tempDirs';

const CONTEXT = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, now: new Date('2026-03-01T10:00:00Z') };
const SEEN = 'deferred_seen';

const createCategory = (events: SqliteEventStore, i: number) =>
  handleCommand(
    events,
    categoryStream(`c${i}`),
    categoryDecider,
    { type: 'CreateCategory', categoryId: `c${i}`, input: createCategorySchema.parse({ name: `Category ${i}` }) },
    CONTEXT,
  );

/**
 * A deferred projection that counts each event it is given (`times`, not idempotent on purpose: a
 * count of 2 is an event applied twice into committed state), the pages it is given, and fails as a
 * store that is away does while `failing` says so (after its writes: the transaction rolls them back).
 */
function counting(state: { failing: boolean; pages: number }): Projection {
  return {
    name: 'counting',
    version: 1,
    collections: [SEEN],
    deferred: true,
    async apply(event: RecordedEvent, store: ReadStore) {
      await this.applyPage!([event], store);
    },
    async applyPage(page: RecordedEvent[], store: ReadStore) {
      state.pages += 1;
      for (const event of page) await store.collection(SEEN).updateOne({ _id: event.id }, { $inc: { times: 1 } }, { upsert: true });
      if (state.failing) throw new TransientStoreError(SEEN, new Error('disk I/O error'));
    },
  };
}

const dirs = tempDirs('deferred-');

describe('a deferred projection on SQLite', () => {
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore({ filename: ':memory:' });
  });
  afterEach(() => events.close());
  afterAll(() => dirs.removeAll());

  it('when it lags or fails, then commands and pushes do not wait for it, its readers do, and a restart applies each event to it once', async () => {
    const file = dirs.file('readstore.db');
    const state = { failing: false, pages: 0 };
    const store = new SqliteReadStore({ filename: file });
    const errors: unknown[] = [];
    const runner = new ProjectionRunner(events, store, [categoriesProjection, counting(state)], { retryPauseMs: 50, onError: (error) => errors.push(error) });
    await runner.start();
    const announced: number[] = [];
    runner.onApplied((event) => announced.push(event.position));

    // Working: both reach every position, the deferred one after the others' commit.
    const first = (await createCategory(events, 1)).position;
    expect(await runner.waitFor(first, 2000, ['counting'])).toBe(true);
    expect(runner.allApplied).toBe(first);

    // Failing: every unnamed wait (a command's, a push's) ends, the deferred one's reader waits out its timeout.
    state.failing = true;
    let last = first;
    for (let i = 2; i <= 6; i++) last = (await createCategory(events, i)).position;
    expect(await runner.waitFor(last, 2000)).toBe(true);
    expect(runner.position).toBe(last);
    await new Promise((resolve) => setImmediate(resolve));
    expect(announced.at(-1)).toBe(last);
    expect(await runner.waitFor(last, 300, ['counting'])).toBe(false);
    expect(runner.allApplied).toBe(first);
    expect(await store.collection(CATEGORIES).find({})).toHaveLength(6);
    // Tried again after pauses, each attempt rolled back with its checkpoint.
    const triedBefore = state.pages;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pages).toBeGreaterThan(triedBefore);
    expect(errors.length).toBeGreaterThan(1);
    const checkpoints = await store.collection<{ _id: string; position: number }>(CHECKPOINTS).find({}, { sort: { _id: 1 } });
    expect(checkpoints.map(({ _id, position }) => [_id, position])).toEqual([
      ['categories', last],
      ['counting', first],
    ]);
    await runner.stop();
    await store.close();

    // Another start on the file applies what the deferred projection missed, each event once.
    state.failing = false;
    const reopened = new SqliteReadStore({ filename: file });
    const again = new ProjectionRunner(events, reopened, [categoriesProjection, counting(state)]);
    await again.start();
    expect(again.allApplied).toBe(last);
    const seen = await reopened.collection<{ _id: string; times: number }>(SEEN).find({});
    expect(seen).toHaveLength((await events.readAll()).length);
    expect(seen.every(({ times }) => times === 1)).toBe(true);
    await again.stop();
    await reopened.close();
  });

  it('when posts come faster than pages, then one transaction of the deferred projection serves several pages, and a clean stop leaves it caught up', async () => {
    const state = { failing: false, pages: 0 };
    const store = new SqliteReadStore({ filename: dirs.file('burst.db') });
    let eagerPages = 0;
    const categories: Projection = {
      ...categoriesProjection,
      applyPage: async (page, into) => {
        eagerPages += 1;
        for (const event of page) await categoriesProjection.apply(event, into);
        // A page that takes a while, as a busy desk's do: posts come in meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 2));
      },
    };
    const runner = new ProjectionRunner(events, store, [categories, counting(state)]);
    await runner.start();
    let last = 0;
    for (let i = 0; i < 60; i++) {
      last = (await createCategory(events, i)).position;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await runner.waitFor(last, 5000)).toBe(true);
    await runner.stop();
    expect(runner.allApplied).toBe(last);
    expect(eagerPages).toBeGreaterThan(1);
    expect(state.pages).toBeLessThan(eagerPages);
    const seen = await store.collection<{ _id: string; times: number }>(SEEN).find({});
    expect(seen).toHaveLength(60);
    expect(seen.every(({ times }) => times === 1)).toBe(true);
    await store.close();
  });
});
