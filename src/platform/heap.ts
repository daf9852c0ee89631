import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/**
 * The embedded read store keeps every read model on the JavaScript heap, and V8 leaves that heap's
 * pages about half empty after the allocations of a replay or a busy hour: its mark-compact moves
 * only a few megabytes of objects per collection out of pages that are mostly free, so a heap of
 * 650 MB of live objects sat in 1,200 MB of pages after a replay at 100,000 tickets and never gave
 * them back. A compacting collection moves every live object together and returns the rest of
 * the pages to the system. It pauses the process for about 1 s at that size, so it runs when the
 * read models are first caught up (before the process serves anyone), once after a snapshot's ids
 * are shared, and later only while the process is at rest.
 */

const MB = 1024 * 1024;

let collect: (() => void) | null = null;

/** V8's full collection, which Node exposes to code only behind `--expose-gc`: set here, and read from a fresh context that sees it. */
function fullCollection(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

/** The heap's pages, in MB: what the process holds for its JavaScript objects, live or not yet collected. */
export function heapSizeMb(): number {
  return Math.round(getHeapStatistics().total_heap_size / MB);
}

/**
 * How far the old generation may grow past its live size after a compaction before V8 marks it all again.
 * V8 sizes that room from how fast the program allocated lately, and a process at rest allocates next to
 * nothing: left to itself it allowed 28 MB past 638 MB at full size, which two seconds of chat filled,
 * and a full mark of the read models (half a second of a third of the throughput) then landed in that
 * load. With half the live size the first full mark after a compaction came at 904 MB instead.
 */
const GROWTH_AFTER_COMPACTION_PERCENT = 50;

/** One full collection that evacuates every page of the old generation, then V8's usual collections again. */
export function compactHeap(): { beforeMb: number; afterMb: number; ms: number } {
  const started = performance.now();
  const beforeMb = heapSizeMb();
  setFlagsFromString('--compact-on-every-full-gc');
  setFlagsFromString(`--heap-growing-percent=${GROWTH_AFTER_COMPACTION_PERCENT}`);
  try {
    fullCollection()();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
    setFlagsFromString('--heap-growing-percent=0');
  }
  return { beforeMb, afterMb: heapSizeMb(), ms: Math.round(performance.now() - started) };
}

export type HeapCompactorOptions = {
  logger: Logger;
  /** How often the process's load and heap are looked at. */
  checkEveryMs?: number;
  /** At rest: the event loop busy for less than this share of the last check's interval. */
  restingBelow?: number;
  /**
   * Compact only once the heap's pages grew by this many MB and this share since the last
   * compaction (or since the compactor was made). How much of them is free cannot be known without
   * a full collection, which costs most of what a compaction does: their growth stands in for it.
   */
  minGrowthMb?: number;
  minGrowthShare?: number;
  /** At most one compaction in this long, however quiet the process. */
  atMostEveryMs?: number;
};

/** Compacts the heap when it has grown, once the read models are caught up and then whenever the process rests. */
export class HeapCompactor {
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  /** The heap's size after the last compaction. */
  private settledMb = heapSizeMb();

  constructor(private readonly options: HeapCompactorOptions) {}

  /** Compacts now if the heap grew enough since the last compaction; says whether it did. */
  compactIfGrown(reason: string): boolean {
    const { minGrowthMb = 128, minGrowthShare = 0.2 } = this.options;
    const sizeMb = heapSizeMb();
    if (sizeMb - this.settledMb < minGrowthMb || sizeMb < this.settledMb * (1 + minGrowthShare)) return false;
    this.compact(reason);
    return true;
  }

  /** Compacts now, whatever the heap's size (after work that left copies behind without growing it). */
  compact(reason: string): void {
    this.last = Date.now();
    const { beforeMb, afterMb, ms } = compactHeap();
    this.settledMb = afterMb;
    this.options.logger.info({ reason, heapMb: { before: beforeMb, after: afterMb }, ms }, 'compacted the heap');
  }

  start(): void {
    const { checkEveryMs = 5_000, restingBelow = 0.05, atMostEveryMs = 30_000 } = this.options;
    let previous = performance.eventLoopUtilization();
    this.timer = setInterval(() => {
      const current = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(current, previous).utilization;
      previous = current;
      this.options.logger.debug({ busy: Number(busy.toFixed(3)), heapMb: heapSizeMb(), settledMb: this.settledMb }, 'heap check');
      if (busy >= restingBelow || Date.now() - this.last < atMostEveryMs) return;
      // The pause itself is not load: the next interval starts after it.
      if (this.compactIfGrown('at rest')) previous = performance.eventLoopUtilization();
    }, checkEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
