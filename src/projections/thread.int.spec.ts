import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Member, addCategory, addMember, openTicket } from '../../test/support/desk';
import { eventually } from '../../test/support/eventually';
import { LiveClient } from '../../test/support/liveClient';
import { ADMIN, type TestServer, startTestServer } from '../../test/support/server';
import { projectRoot } from '../platform/paths';

/**
 * The read models applied on a thread of their own (src/projections/thread.ts, docs/readstore.md "The
 * projection thread"): the app's runner follows the thread as it follows another process on the
 * DATA_DIR. Read-your-writes and live pushes wait for the thread's commits, a thread that ends
 * abruptly hands the log to the app's own thread, and the file equals a rebuild after either.
 */
const THREAD = { READSTORE: 'sqlite', PROJECTIONS_THREAD: 'true' };

/** Posts `count` messages, `lanes` at a time, each lane to its own ticket in order; answers what was acknowledged per lane. */
async function postInLanes(server: TestServer, lanes: Array<{ member: Member; ticket: string }>, count: number, tag: string, during?: () => Promise<void>) {
  const acknowledged = lanes.map(() => [] as string[]);
  const statuses: Record<string, number> = {};
  let fired = false;
  await Promise.all(
    lanes.map(async ({ member, ticket }, lane) => {
      for (let index = 0; index < count; index++) {
        if (during && !fired && lane === 0 && index === Math.floor(count / 3)) {
          fired = true;
          await during();
        }
        const content = `${tag} ${lane}.${index}`;
        const answer = await server.request('POST', `/api/tickets/${ticket}/messages`, { token: member.token, body: { content } });
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.status === 201 || answer.status === 202) acknowledged[lane]!.push(content);
      }
    }),
  );
  return { acknowledged, statuses };
}

/** The messages of a ticket carrying `tag`, in the order listed. */
async function listed(server: TestServer, member: Member, ticket: string, tag: string): Promise<string[]> {
  const contents: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await server.request('GET', `/api/tickets/${ticket}/messages?page=${page}&limit=100`, { token: member.token });
    contents.push(...body.messages.map((message: { content: string }) => message.content).filter((content: string) => content.startsWith(`${tag} `)));
    if (page >= body.pagination.pages) break;
  }
  return contents;
}

async function rebuildEquals(dataDir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/rebuild.ts'], {
    cwd: projectRoot(),
    env: { ...process.env, DATA_DIR: dataDir, READSTORE: 'sqlite', LOG_LEVEL: 'warn' },
  });
  return stdout;
}

describe('The read models applied on a projection thread', () => {
  let dataDir: string;
  let server: TestServer;
  let admin: string;
  let lanes: Array<{ member: Member; ticket: string }>;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'desk-thread-'));
    server = await startTestServer({ dataDir, env: THREAD });
    admin = await server.login();
    const category = await addCategory(server, admin);
    lanes = [];
    for (let lane = 0; lane < 4; lane++) {
      const member = await addMember(server, admin, 'customer');
      lanes.push({ member, ticket: (await openTicket(server, member, category))._id });
    }
  }, 60_000);
  afterAll(async () => {
    await server?.stop({ keepData: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when posts race on four tickets, then the thread applies them (not the app thread), each answer reads its own write, each is pushed live and listed once in order', async () => {
    expect(server.deps.projectionThread).toBeTruthy();
    expect(server.deps.projections.isWriter).toBe(false);
    const watcher = await LiveClient.connect(server.url, lanes[0]!.member.token);
    expect((await watcher.join(lanes[0]!.ticket)).ok).toBe(true);
    try {
      const before = server.deps.projections.eventsProcessed;
      const { acknowledged, statuses } = await postInLanes(server, lanes, 25, 'raced');
      // 201: the answer read the message back from the models, which only the thread writes.
      expect(statuses).toEqual({ 201: 100 });
      for (const [lane, { member, ticket }] of lanes.entries()) expect(await listed(server, member, ticket, 'raced')).toEqual(acknowledged[lane]);
      await eventually(() => watcher.events('new_message').filter((p) => String(p.message.content).startsWith('raced 0.')).length === 25, {
        describe: 'every post of the watched ticket pushed',
      });
      const pushed = watcher.events('new_message').map((p) => p.message.content as string);
      expect(pushed.filter((content) => content.startsWith('raced 0.'))).toEqual(acknowledged[0]);
      // The app's runner counts what its thread applied (health's `applied`).
      await eventually(() => server.deps.projections.eventsProcessed - before >= 100, { describe: 'the thread counted the posts it applied' });
      const health = await server.health();
      expect(health.body.status).toBe('ok');
    } finally {
      watcher.socket.disconnect();
    }
  });

  it('when the thread ends abruptly under a load of posts, then the app thread takes the lock and applies, every acknowledged post is listed once in order, and the file equals a rebuild', async () => {
    const thread = server.deps.projectionThread!;
    let endedAt = 0;
    const { acknowledged, statuses } = await postInLanes(server, lanes, 30, 'ended', async () => {
      endedAt = performance.now();
      await thread.end();
    });
    process.stderr.write(`projection thread ended under load: answers ${JSON.stringify(statuses)}\n`);
    expect(endedAt).toBeGreaterThan(0);
    // Posts answered 202 (accepted, the models not there within the wait) are still acknowledged: none is lost.
    expect(Object.keys(statuses).every((status) => status === '201' || status === '202')).toBe(true);
    await eventually(() => server.deps.projections.isWriter, { timeoutMs: 5_000, describe: 'the app thread applies the log' });
    for (const [lane, { member, ticket }] of lanes.entries()) {
      await eventually(async () => (await listed(server, member, ticket, 'ended')).length >= acknowledged[lane]!.length, {
        describe: `lane ${lane} listed`,
      });
      expect(await listed(server, member, ticket, 'ended')).toEqual(acknowledged[lane]);
    }
    const after = await server.request('POST', `/api/tickets/${lanes[1]!.ticket}/messages`, {
      token: lanes[1]!.member.token,
      body: { content: 'ended after' },
    });
    expect(after.status).toBe(201);
    await server.stop({ keepData: true });
    expect(await rebuildEquals(dataDir)).toContain('The rebuilt read models equal the live ones.');
    // Started again on the file, a new thread takes the lock and goes on from the checkpoints.
    server = await startTestServer({ dataDir, env: THREAD });
    expect(server.deps.projections.isWriter).toBe(false);
    const token = await server.login(lanes[2]!.member.email, 'password-123');
    const again = await server.request('POST', `/api/tickets/${lanes[2]!.ticket}/messages`, { token, body: { content: 'ended again' } });
    expect(again.status).toBe(201);
    expect((await listed(server, { ...lanes[2]!.member, token }, lanes[2]!.ticket, 'ended')).at(-1)).toBe('ended again');
  }, 120_000);
});

describe('Two servers on one DATA_DIR, each with a projection thread', () => {
  it('then one thread applies the log, the other server follows it, and both list every post once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-thread-two-'));
    const first = await startTestServer({ dataDir, env: THREAD });
    const second = await startTestServer({ dataDir, env: THREAD });
    try {
      const admin = await first.login(ADMIN.email, ADMIN.password);
      const category = await addCategory(first, admin);
      const member = await addMember(first, admin, 'customer');
      const ticket = (await openTicket(first, member, category))._id;
      const sent: string[] = [];
      for (let index = 0; index < 20; index++) {
        const server = index % 2 === 0 ? first : second;
        const answer = await server.request('POST', `/api/tickets/${ticket}/messages`, { token: member.token, body: { content: `two ${index}` } });
        expect(answer.status).toBe(201);
        sent.push(`two ${index}`);
      }
      for (const server of [first, second]) expect(await listed(server, member, ticket, 'two')).toEqual(sent);
      // The first server's thread took the lock; the second's waits for it, as the second's own runner does.
      expect(first.deps.projections.eventsProcessed).toBeGreaterThan(20);
      expect(second.deps.projections.eventsProcessed).toBe(0);
      expect([first.deps.projections.isWriter, second.deps.projections.isWriter]).toEqual([false, false]);
    } finally {
      await second.stop({ keepData: true });
      await first.stop({ keepData: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
