import pino from 'pino';
import { eventually } from '../../test/support/eventually';
import { StoreLease } from './lease';
import { MemoryReadStore } from './readstore/memory';
import type { Collection, ReadStore } from './readstore/port';

const logger = pino({ level: 'silent' });

/** The store, with the lease's renewals failing (no answer) while `failing` says so. */
function withFailingRenewals(store: ReadStore, state: { failing: boolean }): ReadStore {
  return {
    kind: store.kind,
    close: () => store.close(),
    collection: <T extends { _id: string }>(name: string): Collection<T> => {
      const inner = store.collection<T>(name);
      return Object.assign(Object.create(inner) as Collection<T>, {
        updateOne: (...args: Parameters<Collection<T>['updateOne']>) => {
          if (state.failing && 'holder' in args[0]) return Promise.reject(new Error('no answer'));
          return inner.updateOne(...args);
        },
      });
    },
  };
}

describe('The lease kept in the read store', () => {
  const leases: StoreLease[] = [];
  afterEach(async () => {
    for (const lease of leases.splice(0)) await lease.stop();
  });

  it('when the holder stops cleanly, then a standby takes over within a second, whatever the ttl', async () => {
    const store = new MemoryReadStore();
    const [first, second] = [new StoreLease({ store, key: 'work', logger }), new StoreLease({ store, key: 'work', logger })];
    leases.push(first, second);
    await first.start();
    await second.start();
    expect([first.held, second.held]).toEqual([true, false]);
    const stoppedAt = performance.now();
    await first.stop();
    await eventually(() => second.held, { timeoutMs: 1000, describe: 'the standby took the lease' });
    expect(performance.now() - stoppedAt).toBeLessThan(1000);
  });

  it('when one renewal gets no answer, then the holder keeps the lease, and it stands down at the second', async () => {
    const state = { failing: false };
    const lease = new StoreLease({ store: withFailingRenewals(new MemoryReadStore(), state), key: 'work', ttlMs: 300, logger });
    leases.push(lease);
    const changes: boolean[] = [];
    lease.onChange((held) => void changes.push(held));
    await lease.start();
    state.failing = true;
    // One renewal falls due after 100 ms: the holder keeps the lease through it.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(lease.held).toBe(true);
    await eventually(() => !lease.held, { timeoutMs: 1000, describe: 'the holder stood down' });
    expect(changes).toEqual([true, false]);
  });

  it('when the wall clock of a standby is 5 s ahead, then it takes no lease the holder still renews, and takes it a ttl after the renewals stop', async () => {
    const store = new MemoryReadStore();
    const state = { failing: false };
    const holder = new StoreLease({ store: withFailingRenewals(store, state), key: 'work', ttlMs: 1500, logger });
    const ahead = new StoreLease({ store, key: 'work', ttlMs: 1500, logger, clock: () => Date.now() + 5000 });
    leases.push(holder, ahead);
    await holder.start();
    await ahead.start();
    // Its clock says the holder's expiry passed long ago: before, it took the lease at its first try, while the holder skipped the fence.
    for (const deadline = performance.now() + 2500; performance.now() < deadline;) {
      expect([holder.held, ahead.held]).toEqual([true, false]);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    state.failing = true;
    const stoppedAt = performance.now();
    await eventually(() => ahead.held, { timeoutMs: 5000, describe: 'the standby took the lease nobody renews' });
    expect(holder.held).toBe(false);
    expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(1500 - 1500 / 3);
  });
});
