import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { call, login } from '../../test/support/appProcesses';
import { databaseUrl, deployment } from '../../test/support/deskProcesses';
import { ADMIN } from '../../test/support/server';
import { projectRoot } from '../platform/paths';
import { EPOCH_FIELD, FENCES } from '../platform/readstore/fenced';
import { MongoClient } from 'mongodb';
import { MemoryReadStore } from '../platform/readstore/memory';
import { allProjections } from '../projections/all';
import { CATEGORIES } from '../projections/categories';
import { Generations } from '../projections/generations';
import { PROJECTIONS_LEASE } from '../projections/runner';

/**
 * `npm run projections:rebuild -- --write` on the shared MongoDB read models (docs/operations.md):
 * it refuses while a running app leads them, and otherwise writes as their leader, under the lease's
 * epoch, every document fenced like an app's.
 */
describe('projections:rebuild --write on MongoDB', () => {
  const url = databaseUrl(process.env.MONGO_URL!, 'desk_rebuild');
  const desk = deployment(url);
  afterAll(() => desk.dispose());

  const rebuild = async (): Promise<{ code: number; stdout: string }> => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/rebuild.ts', '--write'], {
        cwd: projectRoot(),
        env: { ...process.env, REDIS_URL: '', ...desk.env },
        timeout: 60_000,
      });
      return { code: 0, stdout };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string };
      return { code: failed.code ?? -1, stdout: failed.stdout ?? '' };
    }
  };

  it('when an app leads the models, then it refuses and writes nothing; once stopped, it writes under a new epoch with the fence raised to it', async () => {
    const app = await desk.start();
    const admin = await login(app.url, ADMIN.email, ADMIN.password);
    expect((await call(app.url, 'POST', '/api/categories', admin, { name: 'Kept' })).status).toBe(201);
    // The driver itself: the read store's adapter leaves the epoch stamps out of what it returns.
    const client = await MongoClient.connect(url);
    const generations = new Generations(new MemoryReadStore(), allProjections);
    const categories = client.db().collection<{ _id: string; [EPOCH_FIELD]?: number }>(generations.nameOf(CATEGORIES));
    const before = await categories.find({}).toArray();
    try {
      const refused = await rebuild();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('A running app holds the read models (their lease): stop the apps first');
      expect(await categories.find({}).toArray()).toEqual(before);
      expect((await call(app.url, 'GET', '/api/categories', admin)).body.categories.map((c: { name: string }) => c.name)).toContain('Kept');

      await desk.stop(app.child);
      const written = await rebuild();
      expect(written.stdout).toContain('Rebuilt the mongodb read models in place');
      expect(written.code).toBe(0);
      const fence = await client.db().collection<{ _id: string; epoch: number }>(generations.nameOf(FENCES)).findOne({ _id: PROJECTIONS_LEASE });
      const after = await categories.find({}).toArray();
      expect(after.map(({ _id }) => _id)).toEqual(before.map(({ _id }) => _id));
      // Written by a leader: each document carries the epoch of the lease the rebuild took, and the fence is raised to it.
      expect(before[0]![EPOCH_FIELD]).toBeGreaterThan(0);
      expect(fence!.epoch).toBeGreaterThan(before[0]![EPOCH_FIELD]!);
      expect(after.map((doc) => doc[EPOCH_FIELD])).toEqual(after.map(() => fence!.epoch));

      const again = await desk.start();
      expect((await call(again.url, 'POST', '/api/categories', await login(again.url, ADMIN.email, ADMIN.password), { name: 'After' })).status).toBe(201);
      await desk.stop(again.child);
    } finally {
      await client.close();
    }
  }, 120_000);
});
