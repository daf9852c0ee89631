import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../src/platform/paths';
import { urlOfStarted } from './server';

/** A JSON answer of an app process: status and parsed body (null when not JSON). */
export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper reads arbitrary JSON
}

/** The app's own stop gives up after 8 s (src/main.ts); this leaves room for a loaded machine. */
const STOP_WITHIN_MS = 20_000;

/**
 * Real app processes (`src/main.ts` under tsx, one node process each, so a signal reaches the app
 * itself) started with `env`, for the tests that kill or stop them: `start` resolves with the URL the
 * process prints once ready; `stop` sends SIGTERM and answers how it ended; `killAll` (for afterAll)
 * SIGKILLs what is still running.
 */
export function appProcesses(env: Record<string, string>) {
  const children: ChildProcess[] = [];
  const output = new Map<ChildProcess, () => string>();
  /** Starts one, with `own` beside the shared `env`. */
  const start = async (own: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot(),
      env: { ...process.env, ...env, ...own },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let printed = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      printed = (printed + chunk.toString()).slice(-8_000);
    });
    output.set(child, () => printed);
    return { child, url: await urlOfStarted(child) };
  };
  /**
   * SIGTERM, then how the process ended: `'0'` (a clean stop), another exit code (the app's own stop
   * gave up: src/main.ts) or a signal; with the end of what it printed. A process still running after
   * STOP_WITHIN_MS is SIGKILLed and fails the test: its stop has no bound.
   */
  const stop = async (child: ChildProcess): Promise<{ ended: string; output: string }> => {
    const printedBy = () => output.get(child)?.() ?? '';
    if (child.exitCode !== null || child.signalCode !== null) return { ended: child.signalCode ?? String(child.exitCode), output: printedBy() };
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
    // A stopped (SIGSTOP) process is let go first, so it can hear the SIGTERM.
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), STOP_WITHIN_MS)));
    const ended = await Promise.race([exited, overran]).finally(() => clearTimeout(timer));
    if (ended !== null) return { ended, output: printedBy() };
    child.kill('SIGKILL');
    throw new Error(`the app process was still running ${STOP_WITHIN_MS} ms after SIGTERM; the end of its output:\n${printedBy()}`);
  };
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { start, stop, killAll };
}

/** One JSON call to an app at `base`, given up after `timeoutMs`. */
export async function call(base: string, method: string, route: string, token?: string, body?: unknown, timeoutMs = 30_000): Promise<Answer> {
  const response = await fetch(`${base}${route}`, {
    method,
    signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** Signs in at `base` and returns the access token. */
export async function login(base: string, email: string, password: string): Promise<string> {
  return (await call(base, 'POST', '/api/auth/login', undefined, { email, password })).body.accessToken as string;
}
