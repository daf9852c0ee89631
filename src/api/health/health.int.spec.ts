import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { freePort } from '../../../test/support/services';
import type { EventStore } from '../../platform/eventstore/port';
import { SqliteEventStore } from '../../platform/eventstore/sqlite';

/** The configured log, counting its reads: what a health answer costs the log. */
function countedLog(dataDir: string) {
  const inner = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
  const reads = { readAll: 0, headPosition: 0, readStream: 0 };
  const events = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof property === 'string' && property in reads) reads[property as keyof typeof reads]++;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as EventStore;
  return { events, reads, reset: () => Object.assign(reads, { readAll: 0, headPosition: 0, readStream: 0 }) };
}

describe('Public health', () => {
  it('when anyone asks, then it answers the status alone and reads nothing of the log; an admin gets the detailed answer', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-health-'));
    const log = countedLog(dataDir);
    const server = await startTestServer({ dataDir, events: log.events });
    try {
      const admin = await server.login();
      const registered = await server.request('POST', '/api/auth/register', {
        body: { username: 'health_customer', email: 'health@example.com', password: 'customer-password-1', firstName: 'Health', lastName: 'Check' },
      });
      expect(registered.status).toBe(201);
      const customer = registered.body.accessToken as string;
      // The projections' own watcher looks at the head now and then; only the reads made by the answers count.
      await new Promise((resolve) => setTimeout(resolve, 200));
      log.reset();
      for (let i = 0; i < 5; i++) {
        const everyone = await server.request('GET', '/api/health');
        expect(everyone).toEqual({ status: 200, body: { status: 'ok' } });
        expect(everyone.headers.get('cache-control')).toBe('no-store');
        expect((await server.request('GET', '/api/health', { token: customer })).body).toEqual({ status: 'ok' });
      }
      expect(log.reads.readAll).toBe(0);
      expect(log.reads.readStream).toBe(0);

      const detailed = await server.request('GET', '/api/health', { token: admin });
      expect(detailed.body).toMatchObject({
        status: 'ok',
        queue: 'inline',
        queueState: 'up',
        projections: { state: 'live', lag: 0 },
        deliveries: { failed: 0 },
      });
      // The counter sees the reads the detailed answer makes (the lag is counted on the log).
      expect(log.reads.readAll).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });
});

const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCRAPE_TOKEN = 'scrape-token-for-redis-down';

/** A Redis of this test's own, so stopping it touches nobody else's; up once it answers a ping (no client is left behind). */
async function ownRedis(port: number) {
  execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
  await eventually(
    () => {
      try {
        return execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).trim() === 'PONG';
      } catch {
        return false;
      }
    },
    { describe: 'the test Redis up' },
  );
}

/** Stops the test's own Redis (and nothing else): SHUTDOWN on its port. */
function stopRedis(port: number) {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // redis-cli reports the dropped connection of a shutdown as an error.
  }
}

describe('Health and producers while Redis is down', () => {
  let port: number;
  let server: TestServer | undefined;
  beforeAll(async () => {
    port = await freePort();
    await ownRedis(port);
  });
  afterAll(async () => {
    try {
      await server?.stop();
    } finally {
      stopRedis(port);
    }
  }, 40_000);

  it('when Redis stops, then health answers within 1 s saying the queue is down, producers fail with a clear 503, and all comes back with Redis', async () => {
    server = await startTestServer({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `test-health-${randomUUID().slice(0, 8)}`, METRICS_TOKEN: SCRAPE_TOKEN },
    });
    const scrape = async () => (await fetch(`${server!.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } })).text();
    expect(await scrape()).toMatch(/^desk_queue_up 1$/m);
    const admin = await server.login();
    expect((await server.request('GET', '/api/health', { token: admin })).body).toMatchObject({ status: 'ok', queue: 'bullmq', queueState: 'up' });

    stopRedis(port);
    await new Promise((resolve) => setTimeout(resolve, 300));

    let started = Date.now();
    const everyone = await server.request('GET', '/api/health');
    const publicMs = Date.now() - started;
    expect(everyone).toEqual({ status: 200, body: { status: 'degraded' } });
    expect(publicMs).toBeLessThan(1000);

    started = Date.now();
    const detailed = await server.request('GET', '/api/health', { token: admin });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(detailed.body).toMatchObject({ status: 'degraded', queue: 'bullmq', queueState: 'down', deliveries: { failed: 0 } });

    // The scrape still answers, saying the queue is down.
    expect(await scrape()).toMatch(/^desk_queue_up 0$/m);

    // An admin's retry needs the queue: a clear error within the producers' bound, never a hang.
    started = Date.now();
    const retry = await server.request('POST', '/api/deliveries/telegram/no-such-job/retry', { token: admin });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(retry.status).toBe(503);
    expect(retry.body).toMatchObject({ code: 'QUEUE_UNAVAILABLE', error: expect.stringContaining('job queue (Redis) cannot be reached') });

    // Changes are kept in the log meanwhile (the reactor enqueues their notices from it later).
    expect((await server.request('POST', '/api/categories', { token: admin, body: { name: 'Made while Redis was down' } })).status).toBe(201);

    await ownRedis(port);
    const back = await eventually(
      async () => {
        const answer = await server!.request('GET', '/api/health', { token: admin });
        return answer.body.queueState === 'up' ? answer : null;
      },
      { timeoutMs: 15_000, describe: 'the queue back up' },
    );
    expect(back.body.status).toBe('ok');
    // The Redis of the other tests was never touched.
    const shared = new IORedis(SHARED_REDIS, { maxRetriesPerRequest: 1 });
    try {
      expect(await shared.ping()).toBe('PONG');
    } finally {
      shared.disconnect();
    }
  }, 60_000);
});
