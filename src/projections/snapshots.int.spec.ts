import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { addCategory, addMember, openTicket } from '../../test/support/desk';
import { EventStoreDbClientDouble } from '../../test/support/eventStoreDbDouble';
import { eventually } from '../../test/support/eventually';
import { ADMIN, type TestServer, startTestServer, urlOfStarted } from '../../test/support/server';
import { EventStoreDbEventStore } from '../platform/eventstore/eventstoredb';
import { projectRoot } from '../platform/paths';
import { SNAPSHOT_FILE } from '../platform/readstore/snapshot';

/** What an admin sees of the desk: users, categories, tickets with their conversations, statistics. */
async function deskAsSeen(server: TestServer) {
  const admin = await server.login();
  const get = async (url: string) => {
    const answer = await server.request('GET', url, { token: admin });
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const tickets = await get('/api/tickets?limit=100');
  const details = await Promise.all(tickets.tickets.map((ticket: { _id: string }) => get(`/api/tickets/${ticket._id}`)));
  const stats = await get('/api/tickets/stats?tz=UTC');
  // Signing in to look moves lastLogin: the one field that may differ between two looks.
  const users = (await get('/api/users?limit=100')).users.map(({ lastLogin: _moved, ...user }: { lastLogin: unknown }) => user);
  return { users, categories: await get('/api/categories'), tickets, details: details.map(({ ticket, messages }) => ({ ticket, messages })), stats };
}

async function fillDesk(server: TestServer, tickets: number) {
  const admin = await server.login();
  const category = await addCategory(server, admin);
  const agent = await addMember(server, admin, 'agent');
  for (let i = 0; i < tickets; i++) {
    const customer = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, customer, category, { title: `Snapshot ticket ${i}` });
    await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: customer.token, body: { content: `Hello ${i}` } });
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { assignedAgent: agent.id } });
  }
}

/** Events in the log after `position`: what a start that restored a snapshot there must replay. */
const eventsAfter = async (server: TestServer, position: number) => (await server.deps.events.readAll({ after: position, maxCount: 100_000 })).length;

/** A start on `dataDir` that refused its snapshot: the whole log replayed, the desk as it was. */
async function expectRebuiltFromLog(dataDir: string, before: Awaited<ReturnType<typeof deskAsSeen>>) {
  const server = await startTestServer({ dataDir });
  try {
    expect(await deskAsSeen(server)).toEqual(before);
    expect(server.deps.projections.eventsProcessed).toBe(await eventsAfter(server, 0));
  } finally {
    await server.stop({ keepData: true });
  }
}

describe('Embedded read models across restarts (snapshot in DATA_DIR)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'desk-snapshot-'));
    dirs.push(dir);
    return dir;
  };

  it('when the app stops cleanly and starts again, then it shows the same desk and replays only what came after the snapshot', async () => {
    const dataDir = fresh();
    const first = await startTestServer({ dataDir });
    await fillDesk(first, 3);
    const before = await deskAsSeen(first);
    const head = await first.deps.events.headPosition();
    await first.stop({ keepData: true });
    expect(existsSync(path.join(dataDir, SNAPSHOT_FILE))).toBe(true);

    const second = await startTestServer({ dataDir });
    try {
      expect(await deskAsSeen(second)).toEqual(before);
      // Only events appended since the stop (the test server's own start-up writes) were applied.
      expect(second.deps.projections.eventsProcessed).toBe(await eventsAfter(second, head));
      expect(second.deps.projections.eventsProcessed).toBeLessThan(head / 2);
    } finally {
      await second.stop({ keepData: true });
    }
  });

  it('when the log is on EventStoreDB (the adapter over the client double, which refuses a position inside a record as the server does), then a restart restores the snapshot and replays only what came after it', async () => {
    const dataDir = fresh();
    const log = new EventStoreDbClientDouble();
    const logged: Array<{ msg?: string; reason?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as { msg?: string }) });
    const first = await startTestServer({ dataDir, events: new EventStoreDbEventStore(log.asClient()) });
    await fillDesk(first, 2);
    const before = await deskAsSeen(first);
    const head = await first.deps.events.headPosition();
    await first.stop({ keepData: true });
    expect(existsSync(path.join(dataDir, SNAPSHOT_FILE))).toBe(true);

    const second = await startTestServer({ dataDir, events: new EventStoreDbEventStore(log.asClient()), logger });
    try {
      expect(logged.filter(({ msg }) => msg?.includes('snapshot')).map(({ msg }) => msg)).toContain('read models restored from snapshot');
      expect(await deskAsSeen(second)).toEqual(before);
      expect(second.deps.projections.eventsProcessed).toBe(await eventsAfter(second, head));
      expect(second.deps.projections.eventsProcessed).toBeLessThan(10);
    } finally {
      await second.stop({ keepData: true });
    }
  });

  it('when the snapshot file is corrupt, then it is ignored and the read models are rebuilt from the log, correct', async () => {
    const dataDir = fresh();
    const first = await startTestServer({ dataDir });
    await fillDesk(first, 2);
    const before = await deskAsSeen(first);
    await first.stop({ keepData: true });
    const file = path.join(dataDir, SNAPSHOT_FILE);
    const bytes = readFileSync(file);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(file, bytes);

    await expectRebuiltFromLog(dataDir, before);
  });

  it('when the snapshot comes from another event log, then it is refused and the models are those of this log', async () => {
    const other = fresh();
    const foreign = await startTestServer({ dataDir: other });
    await fillDesk(foreign, 3);
    await foreign.stop({ keepData: true });

    const dataDir = fresh();
    const first = await startTestServer({ dataDir });
    await fillDesk(first, 1);
    const before = await deskAsSeen(first);
    await first.stop({ keepData: true });
    copyFileSync(path.join(other, SNAPSHOT_FILE), path.join(dataDir, SNAPSHOT_FILE));

    await expectRebuiltFromLog(dataDir, before);
  });

  it('when the process is killed (SIGKILL) after a periodic snapshot and more events, then a restart shows everything: the snapshot plus the tail of the log', async () => {
    const dataDir = fresh();
    const seeding = await startTestServer({ dataDir });
    await fillDesk(seeding, 2);
    await seeding.stop({ keepData: true });
    const file = path.join(dataDir, SNAPSHOT_FILE);
    const seeded = statSync(file).mtimeMs;

    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot(),
      env: {
        ...process.env,
        PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
        READSTORE_SNAPSHOT_MS: '4000',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await urlOfStarted(child);
      const call = async (method: string, route: string, token?: string, body?: unknown) => {
        const response = await fetch(`${url}${route}`, {
          method,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of the API
      };
      const admin = (await call('POST', '/api/auth/login', undefined, ADMIN)).body.accessToken as string;
      expect((await call('POST', '/api/categories', admin, { name: 'Before the snapshot' })).status).toBe(201);
      // The periodic snapshot covers that category; the next comes only seconds later.
      await eventually(() => statSync(file).mtimeMs > seeded, { timeoutMs: 20_000, describe: 'a periodic snapshot' });
      expect((await call('POST', '/api/categories', admin, { name: 'After the snapshot' })).status).toBe(201);
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }

    // What a write cut short by the kill would have left: removed at the next start, never read.
    const torn = path.join(dataDir, `${SNAPSHOT_FILE}.${child.pid}.tmp`);
    writeFileSync(torn, 'half a snapshot');
    const restarted = await startTestServer({ dataDir });
    try {
      expect(existsSync(torn)).toBe(false);
      const admin = await restarted.login();
      const categories = (await restarted.request('GET', '/api/categories', { token: admin })).body.categories as Array<{ name: string }>;
      expect(categories.map(({ name }) => name)).toEqual(expect.arrayContaining(['Before the snapshot', 'After the snapshot']));
      // The tail after the snapshot was replayed, not the whole log.
      expect(restarted.deps.projections.eventsProcessed).toBeGreaterThan(0);
      expect(restarted.deps.projections.eventsProcessed).toBeLessThan((await restarted.deps.events.headPosition()) / 2);
      expect((await deskAsSeen(restarted)).tickets.tickets).toHaveLength(2);
    } finally {
      await restarted.stop({ keepData: true });
    }
  });
});
