import { setImmediate as yieldToIo } from 'node:timers/promises';

/**
 * For work that runs many synchronous steps in a row (SQLite queries, a replay of pushes): gives the
 * event loop back (to I/O and timers, not only to promises, which awaiting a settled step yields to)
 * when more than `ms` passed since it last did, so no request or push waits behind the whole run.
 */
export function ioYielder(ms: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since <= ms) return;
    await yieldToIo();
    since = performance.now();
  };
}
