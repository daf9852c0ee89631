interface Waiter {
  position: number;
  names: readonly string[] | undefined;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout | null;
}

/**
 * Read-your-writes: callers waiting for the read models (all, or the named ones) to reach a log
 * position. The runner calls `release` whenever a position moves; who moved it (this process
 * applying, or the lease holder's checkpoints read back) is none of their business.
 */
export class Waiters {
  private waiting: Waiter[] = [];

  /** `positionOf(names)`: the least position of the named projections (all when undefined). */
  constructor(private readonly positionOf: (names: readonly string[] | undefined) => number) {}

  /** Resolves true once `position` is reached, false if the timeout or an abort of `signal` came first. */
  waitFor(position: number, timeoutMs: number, names?: readonly string[], signal?: AbortSignal): Promise<boolean> {
    if (this.positionOf(names) >= position) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const giveUp = () => {
        if (waiter.timer) clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', giveUp);
        this.waiting = this.waiting.filter((w) => w !== waiter);
        resolve(false);
      };
      const waiter: Waiter = {
        position,
        names,
        resolve: (reached) => {
          signal?.removeEventListener('abort', giveUp);
          resolve(reached);
        },
        timer: null,
      };
      waiter.timer = setTimeout(giveUp, timeoutMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Ends every wait now with false (the runner stopped: nothing will move the positions). Waits asked for later wait as usual. */
  wake(): void {
    for (const waiter of this.waiting.splice(0)) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
  }

  /** Someone is waiting for a position not reached yet. */
  get pending(): boolean {
    return this.waiting.length > 0;
  }

  release(): void {
    if (this.waiting.length === 0) return;
    // Callers wait on a few constant sets of names: each set's position is worked out once per release.
    const reached = new Map<readonly string[] | undefined, number>();
    const positionOf = (names: readonly string[] | undefined) => {
      let position = reached.get(names);
      if (position === undefined) reached.set(names, (position = this.positionOf(names)));
      return position;
    };
    this.waiting = this.waiting.filter((waiter) => {
      if (waiter.position > positionOf(waiter.names)) return true;
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
  }
}
