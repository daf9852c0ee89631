import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../src/platform/paths';
import { urlOfStarted } from './server';

/** A JSON answer of an app process: status and parsed body (null when not JSON). */
export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper reads arbitrary JSON
}

/**
 * Real app processes (`src/main.ts` under tsx, one node process each, so a signal reaches the app
 * itself) started with `env`, for the tests that kill or stop them: `start` resolves with the URL the
 * process prints once ready; `killAll` (for afterAll) SIGKILLs what is still running.
 */
export function appProcesses(env: Record<string, string>) {
  const children: ChildProcess[] = [];
  /** Starts one, with `own` beside the shared `env`. */
  const start = async (own: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot(),
      env: { ...process.env, ...env, ...own },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return { child, url: await urlOfStarted(child) };
  };
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // A stopped (SIGSTOP) process is let go first, so it can hear the SIGTERM.
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
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
