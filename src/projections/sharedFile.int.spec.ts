import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { addCategory, addMember, openTicket } from '../../test/support/desk';
import { eventually } from '../../test/support/eventually';
import { appProcesses, call, login } from '../../test/support/appProcesses';
import { ADMIN, type TestServer, startTestServer } from '../../test/support/server';
import { projectRoot } from '../platform/paths';

/**
 * Several processes on one DATA_DIR and its SQLite read store (docs/readstore.md, "Several processes on
 * one file"): the app and `npm run workers`, or a second app. The holder of the file's lock applies the
 * log; the others follow its checkpoints. Without the lock each applied every event into the one file:
 * counters twice, every guard raced.
 */
describe('Two processes on one DATA_DIR with the read models in SQLite', () => {
  describe('when both serve posts, one after the other', () => {
    let dataDir: string;
    let first: TestServer;
    let second: TestServer;
    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'desk-shared-file-'));
      first = await startTestServer({ dataDir, env: { READSTORE: 'sqlite' } });
      second = await startTestServer({ dataDir, env: { READSTORE: 'sqlite' } });
    });
    afterAll(async () => {
      await second.stop({ keepData: true });
      await first.stop({ keepData: true });
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('then one applies the log and the other none of it, both list every message once, and the models equal a rebuild', async () => {
      expect(first.deps.projections.isWriter).toBe(true);
      expect(second.deps.projections.isWriter).toBe(false);
      const admin = await first.login();
      const category = await addCategory(first, admin);
      const customers = [await addMember(first, admin, 'customer'), await addMember(second, admin, 'customer')];
      const tickets = [await openTicket(first, customers[0]!, category), await openTicket(second, customers[1]!, category)];
      const sent: string[] = [];
      for (let index = 0; index < 20; index++) {
        const server = index % 2 === 0 ? first : second;
        const content = `alternating ${index}`;
        const posted = await server.request('POST', `/api/tickets/${tickets[index % 2]!._id}/messages`, {
          token: customers[index % 2]!.token,
          body: { content },
        });
        // 201: the answer read the post back, on the follower too (it waits for the holder's checkpoint).
        expect(posted.status).toBe(201);
        sent.push(content);
      }
      for (const server of [first, second]) {
        const listed: string[] = [];
        for (const [at, ticket] of tickets.entries()) {
          const answer = await server.request('GET', `/api/tickets/${ticket._id}/messages?limit=100`, { token: customers[at]!.token });
          listed.push(
            ...answer.body.messages.map((message: { content: string }) => message.content).filter((content: string) => content.startsWith('alternating')),
          );
        }
        expect(listed.sort()).toEqual([...sent].sort());
        const stats = await server.request('GET', '/api/tickets/stats', { token: admin });
        expect(stats.body).toMatchObject({ total: 2 });
      }
      // The work is done once: the follower applied none of it (without the lock both applied every event, the guards skipping the second).
      expect(first.deps.projections.eventsProcessed).toBeGreaterThan(20);
      expect(second.deps.projections.eventsProcessed).toBe(0);
      const audit = await first.request('GET', '/api/audit/projections', { token: admin });
      expect(audit.body.ok).toBe(true);
    });

    it('then when the holder stops, the other takes the lock within a second and applies what is posted to it', async () => {
      const admin = await second.login();
      const category = await addCategory(second, admin);
      const customer = await addMember(second, admin, 'customer');
      const ticket = await openTicket(second, customer, category);
      const stopped = performance.now();
      await first.stop({ keepData: true });
      await eventually(() => second.deps.projections.isWriter, { timeoutMs: 5_000, describe: 'the second process applies the log' });
      const takeover = performance.now() - stopped;
      process.stderr.write(`takeover after a clean stop: ${Math.round(takeover)} ms\n`);
      expect(takeover).toBeLessThan(1_000);
      const posted = await second.request('POST', `/api/tickets/${ticket._id}/messages`, { token: customer.token, body: { content: 'after the handover' } });
      expect(posted.status).toBe(201);
      first = await startTestServer({ dataDir, env: { READSTORE: 'sqlite' } });
      expect(first.deps.projections.isWriter).toBe(false);
      const listed = await first.request('GET', `/api/tickets/${ticket._id}/messages`, { token: customer.token });
      expect(listed.body.messages.map((message: { content: string }) => message.content)).toContain('after the handover');
    });
  });

  describe('when the process applying the log is killed (SIGKILL) in the middle of a burst of posts and started again', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-shared-crash-'));
    const env = {
      PORT: '0',
      DATA_DIR: dataDir,
      READSTORE: 'sqlite',
      REDIS_URL: '',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    };
    const apps = appProcesses(env);
    const { start: startApp, stop: stopApp } = apps;

    afterAll(() => {
      apps.killAll();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('then every acknowledged message is listed exactly once by both, the other took over within a second, and the file equals a rebuild', async () => {
      // The first to start takes the lock: it is the one applying the log when it is killed.
      let first = await startApp();
      const second = await startApp();
      const admin = await login(first.url, ADMIN.email, ADMIN.password);
      const category = (await call(first.url, 'POST', '/api/categories', admin, { name: 'Crash' })).body.category._id as string;
      const created = await call(first.url, 'POST', '/api/users', admin, {
        username: 'carla_crash',
        email: 'carla_crash@example.com',
        password: 'password-123',
        firstName: 'Carla',
        lastName: 'Tester',
        role: 'customer',
      });
      expect(created.status).toBe(201);
      const customer = await login(first.url, 'carla_crash@example.com', 'password-123');
      const ticket = (await call(first.url, 'POST', '/api/tickets', customer, { title: 'Crash burst', description: 'Posts while a process dies', category }))
        .body.ticket._id as string;

      // Posts alternate between the two, 8 at a time; the first is killed after a third of them.
      const SENT = 150;
      const acknowledged: string[] = [];
      const answers: Record<string, number> = {};
      let started = 0;
      let killedAt = 0;
      let firstAppliedAfterKill = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (started < SENT) {
            const index = started++;
            if (index === Math.floor(SENT / 3)) {
              first.child.kill('SIGKILL');
              killedAt = performance.now();
            }
            const base = index % 2 === 0 ? first.url : second.url;
            const sentAfterKill = killedAt > 0;
            try {
              const answer = await call(base, 'POST', `/api/tickets/${ticket}/messages`, customer, { content: `burst ${index}` });
              answers[answer.status] = (answers[answer.status] ?? 0) + 1;
              if (answer.status === 201 || answer.status === 202) acknowledged.push(`burst ${index}`);
              if (answer.status === 201 && sentAfterKill && !firstAppliedAfterKill) firstAppliedAfterKill = performance.now();
            } catch {
              // The connection died with the process: not acknowledged.
            }
          }
        }),
      );
      first = await startApp();

      const counts = async (base: string) => {
        const contents: string[] = [];
        for (let page = 1; ; page++) {
          const { body } = await call(base, 'GET', `/api/tickets/${ticket}/messages?page=${page}&limit=100`, customer);
          contents.push(...body.messages.map((message: { content: string }) => message.content).filter((content: string) => content.startsWith('burst ')));
          if (page >= body.pagination.pages) break;
        }
        const seen = new Set(contents);
        return { listed: contents.length, duplicated: contents.length - seen.size, lost: acknowledged.filter((content) => !seen.has(content)).length };
      };
      await eventually(async () => (await counts(first.url)).lost === 0 && (await counts(second.url)).lost === 0, {
        timeoutMs: 30_000,
        describe: 'both processes list every acknowledged message',
      });
      const [byFirst, bySecond] = [await counts(first.url), await counts(second.url)];
      const takeover = Math.round(firstAppliedAfterKill - killedAt);
      process.stderr.write(
        `sent ${SENT}, acknowledged ${acknowledged.length}, answers ${JSON.stringify(answers)}; first ${JSON.stringify(byFirst)}; second ${JSON.stringify(bySecond)}; ` +
          `the first post sent after the kill answered 201 (the survivor applying) ${takeover} ms after it\n`,
      );
      expect(acknowledged.length).toBeGreaterThan(SENT / 3);
      expect(byFirst).toMatchObject({ duplicated: 0, lost: 0 });
      expect(bySecond).toEqual(byFirst);
      // The lock goes with the process: the survivor applies (and answers 201) within a second or two, not a lease's ttl.
      expect(firstAppliedAfterKill).toBeGreaterThan(0);
      expect(takeover).toBeLessThan(3_000);

      await stopApp(second.child);
      await stopApp(first.child);
      const rebuild = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/rebuild.ts'], {
        cwd: projectRoot(),
        env: { ...process.env, ...env },
      });
      expect(rebuild.stdout).toContain('The rebuilt read models equal the live ones.');
    }, 120_000);
  });
});
