import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { requireTools, startRedis } from './services';
import { REDIS_CLOSE_GRACE_MS } from '../../src/platform/redis';

const SHARED_REDIS = 'redis://127.0.0.1:6379';
const NAMES = ['REDIS_URL', 'DESK_TEST_OWN_REDIS', 'PATH', 'CHROMIUM_PATH'] as const;

describe('The test tiers’ services', () => {
  const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('when no Redis is given, then one is started on a free port for the run, answers, and is stopped after', async () => {
    delete process.env.REDIS_URL;
    // Not the Redis on 6379 that the other suites use: this one is the run's own.
    process.env.DESK_TEST_OWN_REDIS = '1';
    const started = await startRedis();
    const url = process.env.REDIS_URL!;
    expect(started?.url).toBe(url);
    expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe(SHARED_REDIS);
    const client = new IORedis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, disconnectTimeout: REDIS_CLOSE_GRACE_MS });
    client.on('error', () => undefined);
    try {
      expect(await client.ping()).toBe('PONG');
      await started!.stop();
      expect(process.env.REDIS_URL).toBeUndefined();
      await expect(client.ping()).rejects.toThrow();
    } finally {
      client.disconnect();
    }
  });

  it('when REDIS_URL is given, then nothing is started and it is kept', async () => {
    process.env.REDIS_URL = SHARED_REDIS;
    process.env.DESK_TEST_OWN_REDIS = '1';
    expect(await startRedis()).toBeNull();
    expect(process.env.REDIS_URL).toBe(SHARED_REDIS);
  });

  it('when neither redis-server nor Chromium can be found, then it fails at once with one line saying what to install', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'desk-no-tools-'));
    try {
      delete process.env.REDIS_URL;
      process.env.DESK_TEST_OWN_REDIS = '1';
      process.env.PATH = empty;
      process.env.CHROMIUM_PATH = path.join(empty, 'chromium');
      const failure = (await requireTools(['redis', 'chromium']).catch((error: unknown) => error)) as Error;
      expect(failure.message).toMatch(/: apt-get install redis-server chromium$/);
      expect(failure.stack).toBe(failure.message);
      expect(failure.message).not.toContain('\n');
      await expect(startRedis()).rejects.toThrow(/apt-get install redis-server$/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
