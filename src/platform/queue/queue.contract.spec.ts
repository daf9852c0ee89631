import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { BullMqQueue } from './bullmq';
import { InlineQueue } from './inline';
import { type Job, PermanentJobError, type Queue, RetryAfterError } from './port';

// Redis runs on every development machine and in CI, so BullMQ is always held to the same contract.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-${randomUUID()}`;
const adapters: Array<[string, () => Queue]> = [
  ['inline', () => new InlineQueue()],
  ['bullmq', () => new BullMqQueue({ url: REDIS_URL, prefix: `${PREFIX}-${randomUUID()}` })],
];

afterAll(async () => {
  const redis = new IORedis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}-*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 8000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each(adapters)('Queue contract (%s)', (_name, create) => {
  let queue: Queue;
  const name = 'notifications';
  beforeEach(() => {
    queue = create();
  });
  afterEach(() => queue.close());

  it('processes an added job with its name and data', async () => {
    const seen: Job[] = [];
    queue.process(name, async (job) => {
      seen.push(job);
    });
    await queue.add(name, 'send', { chat: 42 }, { jobId: 'evt-1' });
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ id: 'evt-1', name: 'send', data: { chat: 42 }, attemptsMade: 0 });
  });

  it('processes jobs that were added before any processor started', async () => {
    await queue.add(name, 'send', { n: 1 }, { jobId: 'early-1' });
    await queue.add(name, 'send', { n: 2 }, { jobId: 'early-2' });
    const seen: number[] = [];
    queue.process<{ n: number }>(name, async (job) => {
      seen.push(job.data.n);
    });
    await until(() => seen.length === 2);
    expect(seen.sort()).toEqual([1, 2]);
  });

  it('ignores a second job with the same id, even after the first completed', async () => {
    let runs = 0;
    queue.process(name, async () => {
      runs++;
    });
    await queue.add(name, 'send', {}, { jobId: 'evt:dup' });
    await queue.add(name, 'send', {}, { jobId: 'evt:dup' });
    await until(() => runs === 1);
    await queue.add(name, 'send', {}, { jobId: 'evt:dup' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runs).toBe(1);
  });

  it('retries a failing job with exponential backoff until it succeeds', async () => {
    const attempts: Array<{ made: number; at: number }> = [];
    queue.process(name, async (job) => {
      attempts.push({ made: job.attemptsMade, at: Date.now() });
      if (attempts.length < 3) throw new Error('far side down');
    });
    await queue.add(name, 'send', {}, { jobId: 'flaky', attempts: 5, backoffMs: 100 });
    await until(() => attempts.length === 3);
    expect(attempts.map((a) => a.made)).toEqual([0, 1, 2]);
    const firstGap = attempts[1]!.at - attempts[0]!.at;
    const secondGap = attempts[2]!.at - attempts[1]!.at;
    expect(firstGap).toBeGreaterThanOrEqual(90);
    expect(secondGap).toBeGreaterThanOrEqual(190);
    expect(await queue.failed(name)).toEqual([]);
  });

  it('keeps a job that failed every attempt, with its reason, for inspection', async () => {
    let runs = 0;
    queue.process(name, async () => {
      runs++;
      throw new Error('still down');
    });
    await queue.add(name, 'send', { chat: 7 }, { jobId: 'doomed', attempts: 3, backoffMs: 20 });
    await until(async () => (await queue.failed(name)).length === 1);
    expect(runs).toBe(3);
    expect((await queue.failed(name))[0]).toMatchObject({ id: 'doomed', name: 'send', data: { chat: 7 }, attemptsMade: 3, failedReason: 'still down' });
  });

  it('fails at once on a permanent error', async () => {
    let runs = 0;
    queue.process(name, async () => {
      runs++;
      throw new PermanentJobError('chat blocked the bot');
    });
    await queue.add(name, 'send', {}, { jobId: 'blocked', attempts: 5, backoffMs: 20 });
    await until(async () => (await queue.failed(name)).length === 1);
    expect(runs).toBe(1);
    expect((await queue.failed(name))[0]?.failedReason).toBe('chat blocked the bot');
  });

  it('waits as long as the far side asks before retrying', async () => {
    const at: number[] = [];
    queue.process(name, async () => {
      at.push(Date.now());
      if (at.length === 1) throw new RetryAfterError('Too Many Requests', 300);
    });
    await queue.add(name, 'send', {}, { jobId: 'limited', attempts: 3, backoffMs: 10 });
    await until(() => at.length === 2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(290);
  });

  it('stores a checkpoint and reads it back', async () => {
    expect(await queue.checkpoint('reactor')).toBeNull();
    await queue.saveCheckpoint('reactor', 41);
    await queue.saveCheckpoint('reactor', 42);
    expect(await queue.checkpoint('reactor')).toBe(42);
  });

  it('runs jobs in parallel up to the concurrency', async () => {
    let running = 0;
    let peak = 0;
    let done = 0;
    queue.process(
      name,
      async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 50));
        running--;
        done++;
      },
      { concurrency: 3 },
    );
    for (let i = 0; i < 6; i++) await queue.add(name, 'send', {}, { jobId: `p${i}` });
    await until(() => done === 6);
    expect(peak).toBe(3);
  });
});

describe('Queue contract (inline, on disk)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'queue-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps waiting jobs, delayed retries, dedupe ids and checkpoints across a restart', async () => {
    const filename = path.join(dir, 'restart.db');
    const first = new InlineQueue({ filename });
    await first.add('mail', 'send', { n: 1 }, { jobId: 'a' });
    await first.saveCheckpoint('reactor', 7);
    let runs = 0;
    first.process('mail', async () => {
      runs++;
      throw new Error('smtp down');
    });
    await until(() => runs === 1);
    await first.close();

    const second = new InlineQueue({ filename });
    expect(await second.checkpoint('reactor')).toBe(7);
    const seen: Job[] = [];
    second.process('mail', async (job) => {
      seen.push(job);
    });
    await second.add('mail', 'send', { n: 2 }, { jobId: 'b' });
    await until(() => seen.length === 2, 5000);
    expect(seen.map((job) => [job.id, job.attemptsMade])).toEqual(
      expect.arrayContaining([
        ['a', 1],
        ['b', 0],
      ]),
    );
    await second.add('mail', 'send', { n: 1 }, { jobId: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(2);
    await second.close();
  });

  it('runs again a job that was running when the process died', async () => {
    const filename = path.join(dir, 'crash.db');
    const first = new InlineQueue({ filename });
    let started = false;
    first.process('mail', () => {
      started = true;
      return new Promise<void>(() => undefined); // never settles: the process "dies" mid-job
    });
    await first.add('mail', 'send', {}, { jobId: 'mid' });
    await until(() => started);
    // A second open of the file stands for the next start after the crash.
    const second = new InlineQueue({ filename });
    const seen: string[] = [];
    second.process('mail', async (job) => {
      seen.push(job.id);
    });
    await until(() => seen.length === 1);
    expect(seen).toEqual(['mid']);
    await second.close();
  });
});
