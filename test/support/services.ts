import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * What the test tiers need from the machine, found or started by their global set-ups: a Redis (the
 * int, contract, mongo and e2e tiers), Chromium (e2e) and Dovecot (the e-mail channel's int and e2e suites). A Redis is REDIS_URL's, else the one that
 * answers on 127.0.0.1:6379, else one started from `redis-server` on PATH on a free port for the run
 * and stopped after. What cannot be found fails the run at once, in one line naming what to install.
 */

/** The Debian packages that provide what a tier needs. */
const PACKAGES = { redis: 'redis-server', chromium: 'chromium', dovecot: 'dovecot-imapd' } as const;
type Need = keyof typeof PACKAGES;

const LOCAL_REDIS = { host: '127.0.0.1', port: 6379 };
const START_TIMEOUT_MS = 10_000;

export const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The IMAP server the e-mail channel's suites run against (test/support/dovecot.ts). */
export const dovecotPath = () => process.env.DOVECOT_PATH ?? '/usr/sbin/dovecot';

/** Whether the file exists and may be run. */
export const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', command);
    if (executable(file)) return file;
  }
  return null;
}

/** True when a Redis answers PING at host:port within a short wait. */
function redisAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Whether a Redis is given: REDIS_URL, or the one on 6379 that the suites use without it (unless
 * DESK_TEST_OWN_REDIS asks for one of the run's own, to keep a run apart or to try this set-up).
 */
async function redisGiven(): Promise<boolean> {
  if (process.env.REDIS_URL) return true;
  if (process.env.DESK_TEST_OWN_REDIS) return false;
  return redisAnswers(LOCAL_REDIS.host, LOCAL_REDIS.port);
}

async function missingTools(needs: readonly Need[]): Promise<Need[]> {
  const missing: Need[] = [];
  if (needs.includes('redis') && !onPath('redis-server') && !(await redisGiven())) missing.push('redis');
  if (needs.includes('chromium') && !executable(chromiumPath())) missing.push('chromium');
  if (needs.includes('dovecot') && !executable(dovecotPath())) missing.push('dovecot');
  return missing;
}

/** One line saying what is missing and the command that installs it; the stack is the line alone, so the runner prints it instead of a trace. */
function missingLine(missing: readonly Need[], install: string): Error {
  const packages = missing.map((need) => PACKAGES[need]).join(' ');
  const line = `The tests need ${missing.join(' and ')}, not found (Redis on REDIS_URL or 127.0.0.1:6379, Chromium at ${chromiumPath()}, Dovecot at ${dovecotPath()}): ${install} ${packages}`;
  return Object.assign(new Error(line), { stack: line });
}

/** Fails at once, in one line, when the machine lacks what `needs` name and nothing stands in for it. */
export async function requireTools(needs: readonly Need[]): Promise<void> {
  const missing = await missingTools(needs);
  if (missing.length > 0) throw missingLine(missing, 'apt-get install');
}

/**
 * The first step of the test command on a fresh machine: installs with apt-get what `needs` name and the
 * machine lacks, as root or through `sudo -n` (which never asks for a password), saying so in one line;
 * when it may not, fails in one line with the command to run.
 */
export async function installTools(
  needs: readonly Need[],
  {
    root = process.getuid?.() === 0,
    say = (line: string): void => void process.stdout.write(`${line}\n`),
  }: { root?: boolean; say?: (line: string) => void } = {},
): Promise<void> {
  const missing = await missingTools(needs);
  if (missing.length === 0) return;
  const allowed = root || (onPath('sudo') !== null && spawnSync('sudo', ['-n', 'true'], { env: process.env, stdio: 'ignore' }).status === 0);
  const aptGet = root ? 'apt-get' : 'sudo apt-get';
  if (!allowed || !onPath('apt-get')) throw missingLine(missing, `${aptGet} install`);
  const packages = missing.map((need) => PACKAGES[need]);
  say(`Installing ${packages.join(' ')} with ${aptGet}: the tests need ${missing.join(' and ')}`);
  // sudo resets the environment; a variable named on its command line passes.
  const command = root ? ['apt-get'] : ['sudo', '-n', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...packages],
  ]) {
    const [file, ...rest] = [...command, ...args];
    const run = spawnSync(file!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`${aptGet} ${args.join(' ')} failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`);
  }
  await requireTools(needs);
}

/** A loopback port nobody listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOCAL_REDIS.host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A Redis started for a run: stopped (and its REDIS_URL taken back) by `stop`. */
export interface StartedRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * The Redis the tier's global set-up started, for its teardown; Jest runs both in one process. Kept
 * apart from what `startRedis` hands a suite: run in band (one worker, as on a 2-core machine), a
 * suite shares this process, and one trying the set-up must not stop or replace the tier's own.
 */
const tierRedis: { started?: StartedRedis } = ((globalThis as { __deskTestRedis?: object }).__deskTestRedis ??= {});

/** The tier's global set-up: starts a Redis when none is given, and keeps it for `stopRedis`. */
export async function provideRedis(): Promise<void> {
  const started = await startRedis();
  if (started) tierRedis.started = started;
}

/** Stops the Redis the tier's set-up started, if it started one (a given one is never touched). */
export async function stopRedis(): Promise<void> {
  const { started } = tierRedis;
  delete tierRedis.started;
  await started?.stop();
}

/**
 * Starts a Redis when none is given: on 6379, or on a free port named in REDIS_URL for the test workers
 * (which inherit it). Null when one is given.
 */
export async function startRedis(): Promise<StartedRedis | null> {
  if (await redisGiven()) return null;
  const binary = onPath('redis-server');
  if (!binary) {
    await requireTools(['redis']);
    return null;
  }
  // On 6379 when it is free, where the suites look without REDIS_URL: a REDIS_URL set here would be
  // inherited by every app process a suite spawns and turn its embedded queue into BullMQ.
  const own = Boolean(process.env.DESK_TEST_OWN_REDIS) || !(await portFree(LOCAL_REDIS.port));
  const port = own ? await freePort() : LOCAL_REDIS.port;
  const url = `redis://${LOCAL_REDIS.host}:${port}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'desk-redis-'));
  const child = spawn(binary, ['--port', String(port), '--bind', LOCAL_REDIS.host, '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async () => {
    if (own && process.env.REDIS_URL === url) delete process.env.REDIS_URL;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    child.stderr?.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await redisAnswers(LOCAL_REDIS.host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server (${binary}) did not answer on port ${port}: ${errors.trim() || `exit ${child.exitCode}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (own) process.env.REDIS_URL = url;
  return { url, stop };
}

/** Whether nothing listens on the loopback port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, LOCAL_REDIS.host, () => probe.close(() => resolve(true)));
  });
}
