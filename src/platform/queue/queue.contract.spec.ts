import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { freePort } from '../../../test/support/services';
import { BullMqQueue } from './bullmq';
import { InlineQueue } from './inline';
import { type Job, PermanentJobError, type Queue, type QueueOptions, RetryAfterError } from './port';

// Redis runs on every development machine and in CI, so BullMQ is always held to the same contract.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-${randomUUID()}`;
const adapters: Array<[string, (options?: QueueOptions) => Queue]> = [
  ['inline', (options) => new InlineQueue(options)],
  ['bullmq', (options) => new BullMqQueue({ url: REDIS_URL, prefix: `${PREFIX}-${randomUUID()}`, ...options })],
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

  it('when a job is added with a delay, then it runs no sooner than the delay, and one without runs meanwhile', async () => {
    const ran = new Map<string, number>();
    queue.process(name, async (job) => {
      ran.set(job.id, Date.now());
    });
    const added = Date.now();
    await queue.add(name, 'survey', {}, { jobId: 'later', delayMs: 1500 });
    await queue.add(name, 'send', {}, { jobId: 'now' });
    await until(() => ran.has('now'));
    expect(ran.has('later')).toBe(false);
    await until(() => ran.has('later'));
    expect(ran.get('later')! - added).toBeGreaterThanOrEqual(1400);
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

  it('when a job of a group waits for a retry, then later jobs of that group wait behind it and other groups go on', async () => {
    const order: string[] = [];
    let failures = 0;
    queue.process<{ n: string }>(name, async (job) => {
      if (job.data.n === 'a1' && failures++ === 0) {
        order.push('a1 failed');
        throw new Error('far side down');
      }
      order.push(job.data.n);
    });
    await queue.add(name, 'send', { n: 'a1' }, { jobId: 'a1', group: 'chat-a', backoffMs: 600 });
    await until(() => order.length === 1);
    await queue.add(name, 'send', { n: 'a2' }, { jobId: 'a2', group: 'chat-a' });
    await queue.add(name, 'send', { n: 'b1' }, { jobId: 'b1', group: 'chat-b' });
    await until(() => order.length === 4, 10_000);
    expect(order).toEqual(['a1 failed', 'b1', 'a1', 'a2']);
  });

  it('when jobs wait for a distant retry and the queue is woken, then they run at once, in order per group', async () => {
    const order: string[] = [];
    let down = true;
    queue.process<{ n: string }>(name, async (job) => {
      if (down) {
        order.push(`${job.data.n} failed`);
        throw new Error('far side down');
      }
      order.push(job.data.n);
    });
    // A first retry a minute away stands for a backoff step that has grown during an outage.
    await queue.add(name, 'send', { n: 'd1' }, { jobId: 'd1', group: 'chat-d', backoffMs: 60_000 });
    await queue.add(name, 'send', { n: 'd2' }, { jobId: 'd2', group: 'chat-d', backoffMs: 60_000 });
    await queue.add(name, 'send', { n: 'e1' }, { jobId: 'e1', group: 'chat-e', backoffMs: 60_000 });
    await until(() => order.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(order.sort()).toEqual(['d1 failed', 'e1 failed']);
    down = false;
    const woken = Date.now();
    expect(await queue.wake(name)).toBeGreaterThanOrEqual(2);
    await until(() => order.length === 5, 10_000);
    expect(Date.now() - woken).toBeLessThan(8000);
    expect(order.slice(2).filter((n) => n.startsWith('d'))).toEqual(['d1', 'd2']);
    expect(order.slice(2)).toContain('e1');
  });

  it('when a job fails for good, then later jobs of its group go on', async () => {
    const seen: string[] = [];
    queue.process<{ n: string }>(name, async (job) => {
      seen.push(job.data.n);
      if (job.data.n === 'c1') throw new PermanentJobError('blocked');
    });
    await queue.add(name, 'send', { n: 'c1' }, { jobId: 'c1', group: 'chat-c' });
    await queue.add(name, 'send', { n: 'c2' }, { jobId: 'c2', group: 'chat-c' });
    await until(() => seen.length === 2);
    expect(seen).toEqual(['c1', 'c2']);
  });

  it('when transient failures outlast the retry window, then the job fails for good with its last reason, and each wait is capped', async () => {
    await queue.close();
    const logged: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => logged.push({ level: 'warn', fields, message }),
      error: (fields: Record<string, unknown>, message: string) => logged.push({ level: 'error', fields, message }),
    };
    queue = create({ retry: { windowMs: 1500, capMs: 200 }, logger });
    const at: number[] = [];
    const lastTries: boolean[] = [];
    queue.process(name, async (job) => {
      at.push(Date.now());
      lastTries.push(job.lastTry);
      throw new Error(`down ${at.length}`);
    });
    await queue.add(name, 'send', { text: 'secret words' }, { jobId: 'window', backoffMs: 100 });
    await until(async () => (await queue.failed(name)).length === 1, 10_000);
    const gaps = at.slice(1).map((time, i) => time - at[i]!);
    // 100, then 200 (capped) between tries: at least five tries fit into 1.5 s.
    expect(at.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...gaps)).toBeLessThan(1000);
    expect((await queue.failed(name))[0]).toMatchObject({ id: 'window', attemptsMade: at.length, failedReason: `down ${at.length}` });
    expect(logged.filter((line) => line.level === 'warn')).toHaveLength(at.length - 1);
    expect(logged.filter((line) => line.level === 'error')).toEqual([
      {
        level: 'error',
        fields: expect.objectContaining({ queue: name, jobId: 'window', reason: `down ${at.length}` }),
        message: expect.stringContaining('failed for good'),
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain('secret words');
    // The processor knows which try is the last, so it can tell someone before giving up.
    expect(lastTries).toEqual([...Array.from({ length: at.length - 1 }, () => false), true]);
  });

  it('lists jobs on their way apart from failed ones, which are paged newest first; a failed job can be retried or discarded', async () => {
    let broken = true;
    queue.process<{ n: number }>(name, async (job) => {
      if (broken) throw new PermanentJobError(`refused ${job.data.n}`);
    });
    await queue.add(name, 'send', { n: 1 }, { jobId: 'r:1', group: 'g' });
    await until(async () => (await queue.failedCount(name)) === 1);
    await queue.add(name, 'send', { n: 2 }, { jobId: 'r:2', group: 'g' });
    await queue.add(name, 'send', { n: 3 }, { jobId: 'r:3', group: 'g' });
    await until(async () => (await queue.failedCount(name)) === 3);
    expect(await queue.pending(name)).toEqual([]);
    const row = (job: { id: string; state: string; attemptsMade: number; lastError: string | null }) => [job.id, job.state, job.attemptsMade, job.lastError];
    expect((await queue.failedPage(name, 0, 2)).map(row)).toEqual([
      ['r_3', 'failed', 1, 'refused 3'],
      ['r_2', 'failed', 1, 'refused 2'],
    ]);
    expect((await queue.failedPage(name, 2, 2)).map(row)).toEqual([['r_1', 'failed', 1, 'refused 1']]);
    expect(await queue.failedPage(name, 3, 2)).toEqual([]);
    expect((await queue.failed(name)).map((job) => job.id)).toEqual(['r_3', 'r_2', 'r_1']);
    expect(await queue.retry(name, 'nope')).toBe(false);
    broken = false;
    expect(await queue.retry(name, 'r:1')).toBe(true);
    await until(async () => (await queue.failedCount(name)) === 2 && (await queue.pending(name)).length === 0);
    expect(await queue.discard(name, 'r:2')).toBe(true);
    expect(await queue.discard(name, 'r:3')).toBe(true);
    expect(await queue.failedCount(name)).toBe(0);
    expect(await queue.discard(name, 'r:2')).toBe(false);
  });

  it('when more jobs fail than are kept, or a failed job outlives the age kept, then the oldest are dropped', async () => {
    await queue.close();
    queue = create({ keepFailed: { count: 2, ageMs: 1000 } });
    queue.process<{ n: number }>(name, async (job) => {
      throw new PermanentJobError(`refused ${job.data.n}`);
    });
    for (const n of [1, 2, 3, 4]) {
      await queue.add(name, 'send', { n }, { jobId: `k:${n}` });
      await until(async () => (await queue.failed(name)).some((job) => job.id === `k_${n}`));
    }
    expect(await queue.failedCount(name)).toBe(2);
    expect((await queue.failed(name)).map((job) => job.id)).toEqual(['k_4', 'k_3']);
    // Past the age, the next failure drops them.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await queue.add(name, 'send', { n: 5 }, { jobId: 'k:5' });
    await until(async () => (await queue.failed(name)).some((job) => job.id === 'k_5'));
    expect((await queue.failed(name)).map((job) => job.id)).toEqual(['k_5']);
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

describe('Queue contract (bullmq, Redis not answering)', () => {
  it('when nothing listens at the Redis address, then producer calls fail with a clear error within their bound instead of hanging', async () => {
    // Port 9 (discard) on loopback: nothing listens there, every connection is refused.
    const queue = new BullMqQueue({ url: 'redis://127.0.0.1:9', prefix: `${PREFIX}-down`, timeoutMs: 500 });
    try {
      for (const call of [
        () => queue.add('notifications', 'send', {}, { jobId: 'down-1' }),
        () => queue.failedCount('notifications'),
        () => queue.pending('notifications'),
        () => queue.checkpoint('reactor'),
      ]) {
        const started = Date.now();
        await expect(call()).rejects.toMatchObject({ status: 503, code: 'QUEUE_UNAVAILABLE', message: expect.stringContaining('cannot be reached') });
        expect(Date.now() - started).toBeLessThan(3000);
      }
    } finally {
      await queue.close();
    }
  });
});

describe('Queue contract (bullmq, Redis going away)', () => {
  /** Resolves with the first of the lines wanted that the process says. */
  const says = (child: ChildProcess, ...lines: string[]) =>
    new Promise<string>((resolve) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const said = lines.find((line) => output.split('\n').includes(line));
        if (said) resolve(said);
      });
    });

  it('when Redis stops while a worker waits for jobs, then closing the queue leaves nothing open and the process ends by itself', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const redisStopped = new Promise((resolve) => redis.once('exit', resolve));
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'test/support/queueCloser.ts'], {
      env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}` },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const ended = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      expect(await says(child, 'ready')).toBe('ready');
      redis.kill('SIGTERM');
      await redisStopped;
      // The worker's blocking connection is now between reconnect tries, where BullMQ's own close never ends.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const closed = says(child, 'closed');
      child.stdin!.end('close\n');
      expect(await closed).toBe('closed');
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), 5000)))]);
      clearTimeout(timer);
      expect(exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      redis.kill('SIGKILL');
    }
  }, 40_000);
});
