import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { addCategory } from '../../test/support/desk';
import { type TestServer, startTestServer } from '../../test/support/server';
import { READSTORE_FILE } from '../platform/adapters';
import { CATEGORIES } from './categories';

/**
 * The read models the embedded app keeps in DATA_DIR/readstore.db (docs/readstore.md): a DATA_DIR of
 * the snapshot days starts on them by replaying its log once, and a file built from another log is
 * rebuilt, not trusted.
 */

const started: TestServer[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) await server.stop({ keepData: true });
});
const dirs = new Set<string>();
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server on `dataDir` (a fresh one when absent), on the SQLite read store whatever the shell says, whose log lines are kept. */
async function start(dataDir?: string) {
  const lines: string[] = [];
  const server = await startTestServer({
    ...(dataDir ? { dataDir } : {}),
    env: { READSTORE: 'sqlite' },
    logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
  });
  started.push(server);
  dirs.add(server.dataDir);
  return { server, logged: (message: string) => lines.some((line) => line.includes(message)) };
}

async function stop(server: TestServer) {
  started.splice(started.indexOf(server), 1);
  await server.stop({ keepData: true });
}

const categoryNames = async (server: TestServer) =>
  (await server.deps.readStore.collection<{ _id: string; name: string }>(CATEGORIES).find({})).map((category) => category.name).sort();

describe('Read models stored in DATA_DIR/readstore.db', () => {
  it('when a DATA_DIR holds its log and an old readstore.snapshot but no readstore.db, then the first start replays the log into it and says the snapshot can go, and the next start replays nothing', async () => {
    const { server: first } = await start();
    await addCategory(first, await first.login(), { name: 'Printers' });
    await stop(first);
    const dataDir = first.dataDir;
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, READSTORE_FILE + suffix), { force: true });
    writeFileSync(path.join(dataDir, 'readstore.snapshot'), 'DESKREADSTORE\n');

    const { server: migrated, logged } = await start(dataDir);
    expect(existsSync(path.join(dataDir, READSTORE_FILE))).toBe(true);
    expect((await migrated.health()).body.projections).toMatchObject({ state: 'live', percent: 100 });
    expect((await migrated.health()).body.projections.applied).toBeGreaterThan(0);
    expect(await categoryNames(migrated)).toEqual(['Printers']);
    expect(logged('readstore.snapshot is no longer read and can be deleted')).toBe(true);
    expect(logged('building read models from the event log')).toBe(true);
    const stoppedAt = await migrated.deps.events.headPosition();
    await stop(migrated);

    const { server: again, logged: loggedAgain } = await start(dataDir);
    expect(loggedAgain('building read models from the event log')).toBe(false);
    expect((await again.health()).body.projections.applied).toBeLessThan(stoppedAt / 2);
    expect(await categoryNames(again)).toEqual(['Printers']);
  });

  it('when readstore.db was built from another log, then its read models are rebuilt from this log, not trusted', async () => {
    const { server: other } = await start();
    const admin = await other.login();
    for (const name of ['Other 1', 'Other 2', 'Other 3']) await addCategory(other, admin, { name });
    await stop(other);
    const { server: own } = await start();
    await addCategory(own, await own.login(), { name: 'Own' });
    await stop(own);
    for (const suffix of ['', '-wal', '-shm']) {
      const from = path.join(other.dataDir, READSTORE_FILE + suffix);
      const to = path.join(own.dataDir, READSTORE_FILE + suffix);
      if (existsSync(from)) copyFileSync(from, to);
      else rmSync(to, { force: true });
    }

    const { server: restarted, logged } = await start(own.dataDir);
    expect(await categoryNames(restarted)).toEqual(['Own']);
    expect(logged('stored read models are of another event log')).toBe(true);
  });
});
