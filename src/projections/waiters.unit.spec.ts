import { Waiters } from './waiters';

describe('Read-your-writes waits', () => {
  it('when woken (the runner stopped), then every pending wait ends false at once, and a wait asked for later still waits for its position', async () => {
    let position = 5;
    const waiters = new Waiters(() => position);
    const pending = [waiters.waitFor(6, 60_000), waiters.waitFor(9, 60_000, ['feed'])];
    expect(waiters.pending).toBe(true);
    waiters.wake();
    expect(await Promise.all(pending)).toEqual([false, false]);
    expect(waiters.pending).toBe(false);

    const later = waiters.waitFor(7, 60_000);
    expect(waiters.pending).toBe(true);
    position = 7;
    waiters.release();
    expect(await later).toBe(true);
  });
});
