import { type ComponentType, lazy } from 'react';

/** docs/product.md section 9: a page's script chunk gets 120 s to arrive. */
const CHUNK_TIMEOUT_MS = 120_000;

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A route's screen in its own chunk (under /static/js), loaded on first visit. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- React's own lazy() types props this way
export function lazyPage<M, P extends Record<string, any> = Record<string, never>>(load: () => Promise<M>, pick: (module: M) => ComponentType<P>) {
  return lazy(() => withTimeout(load(), CHUNK_TIMEOUT_MS, 'The page took too long to load').then((module) => ({ default: pick(module) })));
}
