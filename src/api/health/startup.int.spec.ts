import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { io } from 'socket.io-client';
import { EventStoreDbClientDouble } from '../../../test/support/eventStoreDbDouble';
import { ADMIN } from '../../../test/support/server';
import { categoryStream } from '../../domain/category/category';
import { categoryDecider } from '../../domain/category/decide';
import { createCategorySchema } from '#contract/categories';
import { handleCommand } from '../../platform/commands';
import { loadConfig } from '../../platform/config';
import { EventStoreDbEventStore } from '../../platform/eventstore/eventstoredb';
import type { EventStore, ReadAllOptions } from '../../platform/eventstore/port';
import { SqliteEventStore } from '../../platform/eventstore/sqlite';
import { type RunningServer, startServer } from '../../server';

const CONTEXT = { actor: { userId: 'admin-1', role: 'admin', platform: 'web' as const }, now: new Date('2026-03-01T10:00:00Z') };
const CATEGORIES = 8;
/** Opens the detailed health answer (nobody can sign in while the desk starts). */
const METRICS_TOKEN = 'metrics-token-for-startup';
const detailed = { headers: { authorization: `Bearer ${METRICS_TOKEN}` } };

/** The configured log, with its global reads held until `release()`: a catch-up that takes as long as the test needs. */
class HeldCatchUp implements EventStore {
  readonly kind: EventStore['kind'];
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  constructor(private readonly inner: EventStore) {
    this.kind = inner.kind;
  }
  append: EventStore['append'] = (...args) => this.inner.append(...args);
  readStream: EventStore['readStream'] = (...args) => this.inner.readStream(...args);
  subscribeToAll: EventStore['subscribeToAll'] = (...args) => this.inner.subscribeToAll(...args);
  headPosition = () => this.inner.headPosition();
  close = () => this.inner.close();
  async readAll(options: ReadAllOptions = {}) {
    // Health counts the lag with readAll too: only the runner's catch-up (from its checkpoint) waits.
    if (new Error().stack?.includes('catchUp')) await this.gate;
    return this.inner.readAll(options);
  }
}

const healthcheck = (port: string) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/healthcheck.ts'], { env: { ...process.env, PORT: port } }, (error, stdout) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout.trim() }),
    );
  });

describe.each([
  ['the embedded SQLite log', 'sqlite', (dir: string): EventStore => new SqliteEventStore({ filename: path.join(dir, 'events.db') })],
  // Log positions there are bytes of the transaction file: the lag must still count events.
  ['the EventStoreDB adapter (client double)', 'eventstoredb', (): EventStore => new EventStoreDbEventStore(new EventStoreDbClientDouble().asClient())],
])('A desk starting on %s while its read models catch up', (_name, kind, createStore) => {
  let dataDir: string;
  let held: HeldCatchUp;
  let server: RunningServer;
  const get = (url: string, init: RequestInit = {}) => fetch(`${server.url}${url}`, init);
  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'desk-starting-'));
    const store = createStore(dataDir);
    for (let i = 0; i < CATEGORIES; i++) {
      const categoryId = `c${i}`;
      await handleCommand(
        store,
        categoryStream(categoryId),
        categoryDecider,
        { type: 'CreateCategory', categoryId, input: createCategorySchema.parse({ name: `Category ${i}` }) },
        CONTEXT,
      );
    }
    held = new HeldCatchUp(store);
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'silent', METRICS_TOKEN });
    server = await startServer(config, { logger: pino({ level: 'silent' }), events: held });
  });
  afterEach(async () => {
    held.release();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when asked before the catch-up ends, then health says starting with the lag in events, other routes answer 503 with Retry-After, and the container check passes', async () => {
    const everyone = await get('/api/health');
    expect(everyone.status).toBe(503);
    expect(everyone.headers.get('retry-after')).toBe('5');
    expect(await everyone.json()).toEqual({ status: 'starting' });
    const health = await get('/api/health', detailed);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('5');
    expect(await health.json()).toMatchObject({
      status: 'starting',
      eventStore: kind,
      projections: { state: 'catching up', position: 0, lag: CATEGORIES, applied: 0, percent: 0 },
    });

    const login = await get('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    expect(login.status).toBe(503);
    expect(login.headers.get('retry-after')).toBe('5');
    expect(await login.json()).toMatchObject({ code: 'STARTING', error: expect.stringContaining('starting') });
    expect((await get('/api/categories')).status).toBe(503);
    const socket = io(server.url, { auth: { token: 'any' }, transports: ['websocket'], reconnection: false });
    const refused = await new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    socket.close();
    expect(refused.message).toContain('starting');

    expect(await healthcheck(new URL(server.url).port)).toEqual({ code: 0, output: 'starting' });
  }, 30_000);

  it('when the catch-up ends, then the first admin exists, health says ok with no lag, and every route answers', async () => {
    held.release();
    const { firstAdmin } = await server.ready;
    expect(firstAdmin).toMatchObject({ email: ADMIN.email });
    const health = await get('/api/health', detailed);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', projections: { state: 'live', lag: 0, percent: 100 } });
    const login = await get('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    expect(login.status).toBe(200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const categories = (await (await get('/api/categories', { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { categories: unknown[] };
    expect(categories.categories).toHaveLength(CATEGORIES);
    expect(await healthcheck(new URL(server.url).port)).toEqual({ code: 0, output: 'ok' });
  }, 30_000);

  it('when the server is closed before the catch-up ends, then the start is reported as failed and nothing is left running', async () => {
    const closed = server.close();
    // The page being read when the close came arrives; the runner then stops instead of going on.
    held.release();
    await expect(server.ready).rejects.toThrow('closed before its read models caught up');
    await closed;
    expect(server.deps.projections.isLive).toBe(false);
    expect(await healthcheck(new URL(server.url).port)).toMatchObject({ code: 1 });
  }, 30_000);
});

describe('A desk starting on a large embedded log', () => {
  const PAGES = 40;
  const PAGE = 2000;
  let dataDir: string;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'desk-large-'));
    const store = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    // Facts no projection reads: the catch-up still walks and offers every one to every projection.
    const metadata = { occurredAt: '2026-03-01T10:00:00.000Z', schemaVersion: 1 };
    for (let page = 0; page < PAGES; page++) {
      await store.append(
        `noise-${page}`,
        Array.from({ length: PAGE }, (_, n) => ({ type: 'NoiseRecorded', data: { n }, metadata })),
        'no_stream',
      );
    }
    await store.close();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when health is asked right after the port opens, then it answers during the catch-up, not after it', async () => {
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'silent', METRICS_TOKEN });
    server = await startServer(config, { logger: pino({ level: 'silent' }) });
    const first = await fetch(`${server.url}/api/health`, detailed);
    const body = (await first.json()) as { status: string; projections: { state: string; percent: number; applied: number } };
    expect(first.status).toBe(503);
    expect(body).toMatchObject({ status: 'starting', projections: { state: 'catching up' } });
    expect(body.projections.applied).toBeLessThan(PAGES * PAGE);
    await server.ready;
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  }, 60_000);
});
