import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../../../test/support/eventually';
import { dropDatabase } from '../../../test/support/mongo';
import { appProcesses, call, login } from '../../../test/support/appProcesses';
import { ADMIN } from '../../../test/support/server';
import { projectRoot } from '../../platform/paths';

/**
 * Issue 32's "done when", run for real: two app processes on one log (a shared DATA_DIR: the SQLite
 * log, its secrets) and one MongoDB for their read models. One is SIGKILLed in the middle of a
 * burst of posts and started again; every acknowledged message is then listed exactly once by both,
 * and with both stopped `npm run projections:rebuild` finds the shared models equal to a rebuild.
 */
describe('Two app processes on one log and one MongoDB, one killed during a burst of posts', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-crash-'));
  const url = new URL(process.env.MONGO_URL!);
  url.pathname = `/desk_crash_${randomUUID().slice(0, 8)}`;
  const mongoUrl = url.toString();
  const env = { PORT: '0', DATA_DIR: dataDir, MONGO_URL: mongoUrl, REDIS_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' };

  const apps = appProcesses(env);
  const { start: startApp, stop: stopApp } = apps;
  /** The content of every message of the ticket one process lists, page by page. */
  const listed = async (base: string, token: string, ticket: string) => {
    const contents: string[] = [];
    for (let page = 1; ; page++) {
      const { status, body } = await call(base, 'GET', `/api/tickets/${ticket}/messages?page=${page}&limit=100`, token);
      if (status !== 200) throw new Error(`listing answered ${status}`);
      contents.push(...body.messages.map((message: { content: string }) => message.content));
      if (page >= body.pagination.pages) return contents;
    }
  };

  afterAll(async () => {
    apps.killAll();
    await dropDatabase(mongoUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when one is killed mid-burst and restarted, then every acknowledged message is listed exactly once by both, and the models equal a rebuild', async () => {
    // The first to start takes the read models' lease: it is the one applying the log when it is killed.
    let first = await startApp();
    const second = await startApp();
    const admin = await login(first.url, ADMIN.email, ADMIN.password);
    const category = (await call(first.url, 'POST', '/api/categories', admin, { name: 'Crash' })).body.category._id as string;
    const email = `carla_${randomUUID().slice(0, 6)}@example.com`;
    const created = await call(first.url, 'POST', '/api/users', admin, {
      username: email.split('@')[0],
      email,
      password: 'password-123',
      firstName: 'Carla',
      lastName: 'Tester',
      role: 'customer',
    });
    expect(created.status).toBe(201);
    const customer = await login(first.url, email, 'password-123');
    const ticket = (await call(first.url, 'POST', '/api/tickets', customer, { title: 'Crash burst', description: 'Posts while a process dies', category })).body
      .ticket._id as string;

    // The burst: posts alternate between the two processes, 8 at a time; the first is killed after a third of them.
    // Acknowledged: 201, or 202 (appended, the read models not there yet within the wait: a lease failover).
    const SENT = 150;
    const acknowledged: string[] = [];
    let started = 0;
    const post = async (index: number) => {
      const base = index % 2 === 0 ? first.url : second.url;
      try {
        const answer = await call(base, 'POST', `/api/tickets/${ticket}/messages`, customer, { content: `burst ${index}` });
        if (answer.status === 201 || answer.status === 202) acknowledged.push(`burst ${index}`);
      } catch {
        // The connection died with the process: not acknowledged.
      }
    };
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (started < SENT) {
          const index = started++;
          if (index === Math.floor(SENT / 3)) first.child.kill('SIGKILL');
          await post(index);
        }
      }),
    );
    first = await startApp();

    const counts = async (base: string) => {
      const contents = (await listed(base, customer, ticket)).filter((content) => content.startsWith('burst '));
      const seen = new Set(contents);
      return { listed: contents.length, duplicated: contents.length - seen.size, lost: acknowledged.filter((content) => !seen.has(content)).length };
    };
    await eventually(async () => (await counts(first.url)).lost === 0 && (await counts(second.url)).lost === 0, {
      timeoutMs: 30_000,
      describe: 'both processes list every acknowledged message',
    });
    const [byFirst, bySecond] = [await counts(first.url), await counts(second.url)];
    process.stderr.write(`sent ${SENT}, acknowledged ${acknowledged.length}; first ${JSON.stringify(byFirst)}; second ${JSON.stringify(bySecond)}\n`);
    expect(acknowledged.length).toBeGreaterThan(SENT / 3);
    expect(acknowledged.length).toBeLessThan(SENT);
    // A post whose process died after the append but before the answer is listed though never acknowledged: both list the same.
    expect(byFirst).toMatchObject({ duplicated: 0, lost: 0 });
    expect(bySecond).toEqual(byFirst);
    expect(byFirst.listed).toBeGreaterThanOrEqual(acknowledged.length);

    await stopApp(second.child);
    await stopApp(first.child);
    const rebuild = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/rebuild.ts'], {
      cwd: projectRoot(),
      env: { ...process.env, ...env },
    });
    process.stderr.write(rebuild.stdout);
    expect(rebuild.stdout).toContain('The rebuilt read models equal the live ones.');
  }, 120_000);
});
