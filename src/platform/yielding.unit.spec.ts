import { ioYielder } from './yielding';

/** Holds the thread for `ms`, as a synchronous SQLite query does. */
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('ioYielder', () => {
  it('when a step held the thread past its bound, then I/O and timers run before the next; after a quick one the work goes straight on', async () => {
    const breathe = ioYielder(4);
    let ran = 0;
    setImmediate(() => (ran += 1));
    busy(1);
    await breathe();
    expect(ran).toBe(0);
    busy(6);
    await breathe();
    expect(ran).toBe(1);
    setImmediate(() => (ran += 1));
    await breathe();
    expect(ran).toBe(1);
  });
});
