import pino from 'pino';
import { HeapCompactor, compactHeap, heapSizeMb } from './heap';

/** Half of a million small objects, the other half dropped: the old generation's pages are left half empty, as after a replay. */
function fragmentedHeap(): unknown[] {
  const all: Array<{ n: number; text: string } | null> = [];
  for (let i = 0; i < 1_000_000; i++) all.push({ n: i, text: `value ${i}` });
  // Survive two collections first, so that the objects sit in the old generation.
  compactHeap();
  for (let i = 0; i < all.length; i += 2) all[i] = null;
  return all;
}

describe('heap compaction', () => {
  it('gives back the pages that objects dropped between survivors leave, which a full collection alone keeps', () => {
    const kept = fragmentedHeap();
    const { beforeMb, afterMb } = compactHeap();
    expect(kept).toHaveLength(1_000_000);
    expect(beforeMb - afterMb).toBeGreaterThan(20);
    expect(heapSizeMb()).toBe(afterMb);
  });

  it('compacts on its own once the process rests and its heap grew, and logs it; not again while the heap stays as it is', async () => {
    const lines: Array<{ msg: string; reason?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string; reason?: string }) });
    // The compactor measures growth from the heap it is made on. A Jest worker that ran other files first
    // holds their garbage, and this file's heap fell below that baseline: compact first, as the app does
    // once its read models are caught up.
    compactHeap();
    const compactor = new HeapCompactor({ logger, checkEveryMs: 100, minGrowthMb: 16, minGrowthShare: 0.1, atMostEveryMs: 0 });
    expect(compactor.compactIfGrown('nothing grew')).toBe(false);
    const kept = fragmentedHeap();
    compactor.start();
    try {
      const until = Date.now() + 15_000;
      while (!lines.some((line) => line.msg === 'compacted the heap') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      compactor.stop();
    }
    expect(kept).toHaveLength(1_000_000);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'compacted the heap', reason: 'at rest' }));
    expect(compactor.compactIfGrown('again')).toBe(false);
    expect(lines.filter((line) => line.msg === 'compacted the heap')).toHaveLength(1);
  }, 30_000);
});
