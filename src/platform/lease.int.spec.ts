import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import pino from 'pino';
import { eventually } from '../../test/support/eventually';
import { RedisLease } from './lease';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = pino({ level: 'silent' });

describe('The Redis lease (single active consumer)', () => {
  const key = `test-lease-${randomUUID()}`;
  const leases: RedisLease[] = [];
  const redis = new IORedis(REDIS_URL);
  const lease = () => {
    const created = new RedisLease({ url: REDIS_URL, key, ttlMs: 600, logger });
    leases.push(created);
    return created;
  };

  afterEach(async () => {
    await Promise.all(leases.splice(0).map((l) => l.stop()));
    await redis.del(key);
  });
  afterAll(() => redis.quit());

  it('lets exactly one of several processes hold it, and hands it over when the holder stops', async () => {
    const [first, second, third] = [lease(), lease(), lease()];
    const seen: string[] = [];
    first.onChange((held) => void seen.push(`first ${held}`));
    second.onChange((held) => void seen.push(`second ${held}`));
    await first.start();
    await Promise.all([second.start(), third.start()]);
    expect([first.held, second.held, third.held]).toEqual([true, false, false]);

    // Renewals keep it with the holder well past the ttl.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([first.held, second.held, third.held]).toEqual([true, false, false]);

    await first.stop();
    await eventually(() => second.held || third.held, { describe: 'a standby took the lease' });
    expect(Number(second.held) + Number(third.held)).toBe(1);
    expect(seen[0]).toBe('first true');
    expect(seen[1]).toBe('first false');
  });

  it('stops the work of a holder whose lease was taken while it stalled, and never gives it back to it', async () => {
    const holder = lease();
    const changes: boolean[] = [];
    holder.onChange((held) => void changes.push(held));
    await holder.start();
    expect(holder.held).toBe(true);
    // Another process took the key after this one's lease had lapsed.
    await redis.set(key, 'someone-else', 'PX', 60_000);
    await eventually(() => !holder.held, { describe: 'the stalled holder let go' });
    expect(changes).toEqual([true, false]);
    expect(await redis.get(key)).toBe('someone-else');
    await holder.stop();
    expect(await redis.get(key)).toBe('someone-else');
  });
});
