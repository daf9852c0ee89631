import { createHook } from 'node:async_hooks';

/**
 * The hang guard of the test tiers (README.md, "Test it"): Jest runs without `forceExit`, so a handle a
 * suite leaves open (a server, a socket, a Redis connection, a worker thread, a timer) keeps the
 * process up after the last result. A tier's global teardown arms `reportOpenHandles`: if the process
 * is still up a while later, it prints what holds it (type and origin) and ends it with a failure, so
 * a leak shows in the run instead of holding CI until its time limit.
 *
 * Origins: with DESK_TEST_HANDLE_STACKS=1 the global set-up records where each handle was made (an
 * async hook, too slow to leave on); without it a handle is described by what it says of itself.
 */

const GRACE_MS = 10_000;

interface Traced {
  type: string;
  stack: string;
  resource: object;
}

/** Handles made since `traceHandles` began, by async id, until destroyed; kept across set-up and teardown (one process). */
const traced: Map<number, Traced> = ((globalThis as { __deskTracedHandles?: Map<number, Traced> }).__deskTracedHandles ??= new Map());

/** Records where each handle is made (DESK_TEST_HANDLE_STACKS=1): called by a tier's global set-up. */
export function traceHandles(): void {
  if (!process.env.DESK_TEST_HANDLE_STACKS) return;
  Error.stackTraceLimit = 30;
  createHook({
    init(asyncId, type, _trigger, resource) {
      if (type === 'PROMISE') return;
      const stack = (new Error().stack ?? '')
        .split('\n')
        .slice(2)
        .filter((line) => !line.includes('node:internal') && !line.includes('async_hooks'))
        .join('\n');
      traced.set(asyncId, { type, stack, resource });
    },
    destroy(asyncId) {
      // A timer that fired may be armed again by `refresh()` (sockets' idle timers are) without a new init.
      if (traced.get(asyncId)?.type !== 'Timeout') traced.delete(asyncId);
    },
  }).enable();
}

type Handle = {
  constructor?: { name?: string };
  _handle?: object;
  hasRef?: () => boolean;
  remoteAddress?: string;
  remotePort?: number;
  localPort?: number;
  address?: () => unknown;
  pid?: number;
  spawnargs?: string[];
  threadId?: number;
  fd?: number;
  connecting?: boolean;
};

function describe(handle: Handle): string {
  const kind = handle.constructor?.name ?? typeof handle;
  if (handle.spawnargs) return `${kind} pid ${handle.pid}: ${handle.spawnargs.join(' ')}`;
  if (handle.threadId !== undefined) return `${kind} thread ${handle.threadId}`;
  if (handle.remotePort !== undefined) return `${kind} ${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  if (handle.connecting) return `${kind} connecting`;
  if (typeof handle.address === 'function') return `${kind} listening on ${JSON.stringify(handle.address())}`;
  if (handle.fd !== undefined) return `${kind} fd ${handle.fd}`;
  return kind;
}

function originOf(handle: object): string | undefined {
  const inner = (handle as Handle)._handle;
  for (const { resource, stack } of traced.values()) if (resource === handle || (inner && resource === inner)) return stack;
  return undefined;
}

/** What keeps the process up now, one entry per handle, with where it was made when traced. */
export function openHandles(): string[] {
  const getActiveHandles = (process as unknown as { _getActiveHandles: () => Handle[] })._getActiveHandles;
  const handles = getActiveHandles().filter((handle) => handle !== process.stdin && handle !== process.stdout && handle !== process.stderr);
  const lines = handles.map((handle) => {
    const origin = originOf(handle);
    return origin ? `${describe(handle)}\n${origin}` : describe(handle);
  });
  // Timers are no handles to `_getActiveHandles`: traced, each pending one is listed with its origin; else they are counted.
  if (traced.size > 0) {
    for (const { type, stack, resource } of traced.values()) {
      const timer = resource as Handle & { _idleNext?: unknown };
      if (type === 'Timeout' && timer._idleNext && timer.hasRef?.()) lines.push(`Timeout\n${stack}`);
    }
  } else {
    lines.push(...process.getActiveResourcesInfo().filter((type) => type === 'Timeout'));
  }
  return lines;
}

/** What a global set-up or teardown is told of its Jest project. */
export interface TierConfig {
  displayName?: { name: string };
}

/**
 * Arms the guard: if the process has not ended GRACE_MS after the tier's teardown, prints what holds
 * it and exits with a failure. The timer itself never keeps the process up.
 */
export function reportOpenHandles(project: TierConfig): void {
  const tier = project.displayName?.name ?? 'test';
  setTimeout(() => {
    const open = openHandles();
    process.stderr.write(
      `\nThe ${tier} tier stayed up ${GRACE_MS / 1000} s after its last test, held by ${open.length} open handle(s) a suite did not close:\n` +
        `${open.map((line) => `- ${line}`).join('\n')}\n` +
        'Close them where they are made (DESK_TEST_HANDLE_STACKS=1 records where); ending the run with a failure.\n',
    );
    process.exit(1);
  }, GRACE_MS).unref();
}

/** The global teardown of a tier that needs no other: arms the guard alone. */
export default function teardown(_global: unknown, project: TierConfig): void {
  reportOpenHandles(project);
}
