import { type ChildProcess, execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/platform/paths';
import { eventually } from './eventually';
import { dropDatabase } from './mongo';
import { appProcesses, call, login } from './appProcesses';
import { ADMIN } from './server';
import { type Tally, tally } from './tally';

/**
 * Real app processes (`src/main.ts`) of one deployment for the mongo tier's fault tests: one log (a
 * shared DATA_DIR: the SQLite log, its secrets) and one MongoDB for their read models, a load of posts
 * in lanes, a watch on their health, and the count of what each lists.
 */
interface DeskProcess {
  child: ChildProcess;
  url: string;
}

/** Starts and stops app processes with `env` (plus each start's own); kills what is left at `killAll`. */
function deskProcesses(env: Record<string, string>) {
  const apps = appProcesses({ PORT: '0', REDIS_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn', ...env });
  return {
    env,
    start: apps.start as (own?: Record<string, string>) => Promise<DeskProcess>,
    stop: apps.stop,
    killAll: apps.killAll,
    /** `npm run projections:rebuild` over the shared models (the processes stopped): its report. */
    async rebuildCheck(): Promise<string> {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/cli/rebuild.ts'], {
          cwd: projectRoot(),
          env: { ...process.env, REDIS_URL: '', ...env },
          timeout: 60_000,
        });
        return stdout;
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        throw new Error(`the rebuild check failed: ${(error as Error).message}\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
      }
    },
  };
}

/** A customer with a ticket to post on, made through `base`. */
async function customerTicket(base: string): Promise<{ customer: string; ticket: string }> {
  const admin = await login(base, ADMIN.email, ADMIN.password);
  const category = (await call(base, 'POST', '/api/categories', admin, { name: `Faults ${randomUUID().slice(0, 6)}` })).body.category._id as string;
  const email = `carla_${randomUUID().slice(0, 6)}@example.com`;
  const created = await call(base, 'POST', '/api/users', admin, {
    username: email.split('@')[0],
    email,
    password: 'password-123',
    firstName: 'Carla',
    lastName: 'Tester',
    role: 'customer',
  });
  if (created.status !== 201) throw new Error(`the customer was not created: ${created.status}`);
  // The load posts several hundred messages as one customer: at the default 100 per 15 minutes (one every 9 s once
  // spent) the answers after a fault would measure the rate limit, not the deployment (a takeover's first 201 came 3.9 s late).
  const limited = await call(base, 'PUT', '/api/settings', admin, { rateLimitMaxRequests: 1000 });
  if (limited.status !== 200) throw new Error(`the rate limit was not raised: ${limited.status}`);
  const customer = await login(base, email, 'password-123');
  const opened = await call(base, 'POST', '/api/tickets', customer, { title: 'Faults', description: 'Posts while the deployment fails', category });
  if (opened.status !== 201) throw new Error(`the ticket was not opened: ${opened.status} ${JSON.stringify(opened.body)}`);
  return { customer, ticket: opened.body.ticket._id as string };
}

/** One post of the load: which lane sent it, when, and how it was answered (null: no answer). */
export interface Post {
  content: string;
  lane: number;
  /** The process it was sent to. */
  url: string;
  sentAt: number;
  answeredAt: number;
  status: number | null;
}

/** Posts answered 201, or 202 (appended; the read models not there within the wait). */
const acknowledged = (post: Post) => post.status === 201 || post.status === 202;

/**
 * A load of posts on one ticket: `lanes` senders, each posting its next message once the last was
 * answered (or gave up after `timeoutMs`), to the processes in turn, until `stop`.
 */
function postLoad(targets: () => string[], customer: string, ticket: string, { lanes = 4, timeoutMs = 8000 } = {}) {
  const posts: Post[] = [];
  let stopping = false;
  let turn = 0;
  const lane = async (index: number) => {
    for (let n = 0; !stopping; n++) {
      const bases = targets();
      const base = bases[turn++ % bases.length]!;
      const post: Post = { content: `lane ${index} post ${n}`, lane: index, url: base, sentAt: Date.now(), answeredAt: 0, status: null };
      try {
        post.status = (await call(base, 'POST', `/api/tickets/${ticket}/messages`, customer, { content: post.content }, timeoutMs)).status;
      } catch {
        // The process died, stopped or did not answer in time: not acknowledged.
      }
      post.answeredAt = Date.now();
      posts.push(post);
      // Not acknowledged (no answer, refused, rate-limited): a pause before the next.
      if (post.status !== 201 && post.status !== 202) await sleep(250);
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  return {
    posts,
    async stop(): Promise<Post[]> {
      stopping = true;
      await running;
      return posts;
    },
  };
}

/** The content of every message of the ticket one process lists, oldest first (page 1 holds the newest, each page oldest first). */
async function listed(base: string, token: string, ticket: string): Promise<string[]> {
  const pages: string[][] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await call(base, 'GET', `/api/tickets/${ticket}/messages?page=${page}&limit=100`, token);
    if (status !== 200) throw new Error(`listing answered ${status}`);
    pages.unshift(body.messages.map((message: { content: string }) => message.content));
    if (page >= body.pagination.pages) return pages.flat();
  }
}

/**
 * What one process lists of the acknowledged posts: lost, duplicated, and reordered within a lane
 * (each lane sent a post only after the one before was answered, so the log holds them in that order).
 */
function countListed(posts: Post[], contents: string[]): Tally & { acknowledged: number; listed: number } {
  const acked = posts.filter(acknowledged).sort((a, b) => a.sentAt - b.sentAt);
  const loaded = contents.filter((content) => content.startsWith('lane '));
  const all = tally(
    acked.map((post) => post.content),
    loaded,
  );
  const lanes = new Set(acked.map((post) => post.lane));
  const reordered = [...lanes].reduce(
    (sum, lane) =>
      sum +
      tally(
        acked.filter((post) => post.lane === lane).map((post) => post.content),
        loaded,
      ).reordered,
    0,
  );
  return { ...all, sent: posts.length, acknowledged: acked.length, listed: loaded.length, reordered };
}

/** One look at a process's health: its status (null: no answer within the wait) and how far its read models are. */
export interface HealthSample {
  url: string;
  /** When it was asked and answered (or given up on). */
  at: number;
  answeredAt: number;
  status: string | null;
  position: number | null;
  problems: string[];
}

/** Asks each process's detailed health every `everyMs` until `stop`. */
function watchHealth(targets: () => string[], admin: string, everyMs = 250) {
  const samples: HealthSample[] = [];
  let stopping = false;
  const look = async (url: string) => {
    const sample: HealthSample = { url, at: Date.now(), answeredAt: 0, status: null, position: null, problems: [] };
    try {
      const { body } = await call(url, 'GET', '/api/health', admin, undefined, 2000);
      sample.status = body.status;
      sample.position = body.projections?.position ?? null;
      sample.problems = body.projections?.problems ?? [];
    } catch {
      // No answer within the wait.
    }
    sample.answeredAt = Date.now();
    samples.push(sample);
  };
  const running = (async () => {
    while (!stopping) {
      await Promise.all([...targets().map(look), new Promise((resolve) => setTimeout(resolve, everyMs))]);
    }
  })();
  return {
    samples,
    async stop(): Promise<HealthSample[]> {
      stopping = true;
      await running;
      return samples;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A database of its own on the MongoDB `base` names. */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}_${randomUUID().slice(0, 8)}`;
  return url.toString();
}

/** App processes on one log (a DATA_DIR of their own) and the read models at `mongoUrl`; `dispose` kills them, removes the log and drops the database. */
export function deployment(mongoUrl: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-faults-'));
  const processes = deskProcesses({ DATA_DIR: dataDir, MONGO_URL: mongoUrl, ...env });
  return {
    ...processes,
    async dispose() {
      processes.killAll();
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(mongoUrl);
    },
  };
}

type Desk = ReturnType<typeof deployment>;

/**
 * Two processes (the first to start takes the read models' lease), a customer's ticket, and a load of
 * posts and a watch on health going on for 2 s. `urls` is what the load and the watch go to: a test
 * that starts a process again puts its new address there.
 */
export async function underLoad(desk: Desk, firstEnv: Record<string, string> = {}) {
  const first = await desk.start(firstEnv);
  const second = await desk.start();
  const urls = [first.url, second.url];
  const { customer, ticket } = await customerTicket(first.url);
  const admin = await login(first.url, ADMIN.email, ADMIN.password);
  const load = postLoad(() => urls, customer, ticket);
  const health = watchHealth(() => urls, admin);
  await sleep(2000);
  return { processes: [first, second], urls, admin, customer, ticket, load, health };
}

type Run = Awaited<ReturnType<typeof underLoad>>;

/** When the desk applied again: the first post sent at or after `from` that answered 201 (its read models included it). */
export const applyingAgainAt = (posts: Post[], from: number) =>
  Math.min(...posts.filter((post) => post.status === 201 && post.sentAt >= from).map((post) => post.answeredAt));

/**
 * When `url`'s health first showed its read models past the furthest position it had shown by `from`
 * (once they stood still): a process that has just caught up may say `ok` honestly before the load's
 * next post is answered.
 */
export const movingAgainAt = (samples: HealthSample[], url: string, from: number) => {
  const mine = samples.filter((sample) => sample.url === url && sample.position !== null);
  const stood = Math.max(0, ...mine.filter((sample) => sample.answeredAt <= from).map((sample) => sample.position!));
  return Math.min(...mine.filter((sample) => sample.at >= from && sample.position! > stood).map((sample) => sample.answeredAt));
};

/** The health answers of `urls` asked from `from` and answered before `to` that said `ok` or nothing. */
export const dishonest = (samples: HealthSample[], urls: string[], from: number, to: number) =>
  samples.filter((sample) => urls.includes(sample.url) && sample.at >= from && sample.answeredAt < to && (sample.status === 'ok' || sample.status === null));

/** Posts by how they were answered (`none`: no answer). */
export const statuses = (posts: Post[]) =>
  posts.reduce<Record<string, number>>((sum, post) => ({ ...sum, [post.status ?? 'none']: (sum[post.status ?? 'none'] ?? 0) + 1 }), {});

/**
 * Every acknowledged post listed exactly once, in its lane's order, by each running process (the
 * figures printed); then the processes stopped and the shared models compared with a rebuild.
 */
export async function expectConsistent(test: string, desk: Desk, run: Run, posts: Post[]): Promise<void> {
  const acked = countListed(posts, []).acknowledged;
  let since = Date.now();
  const took = (phase: string) => {
    process.stderr.write(`[fault tally] ${test}: ${phase} in ${Date.now() - since} ms\n`);
    since = Date.now();
  };
  await eventually(
    async () => {
      for (const { url } of run.processes) if (countListed(posts, await listed(url, run.customer, run.ticket)).lost > 0) return false;
      return true;
    },
    { timeoutMs: 30_000, describe: `every process lists the ${acked} acknowledged posts` },
  );
  for (const [index, { url }] of run.processes.entries()) {
    const counts = countListed(posts, await listed(url, run.customer, run.ticket));
    process.stderr.write(`[fault tally] ${test}, process ${index + 1}: ${JSON.stringify({ ...counts, statuses: statuses(posts) })}\n`);
    expect(counts).toMatchObject({ lost: 0, duplicated: 0, reordered: 0 });
  }
  // The log may end with posts never answered (appended as a process died or its store went away):
  // the processes are stopped once the models reached the head, so no stop lands in a page or a
  // catch-up, and the rebuild compares models and checkpoints that both stand at the head.
  await eventually(
    async () => {
      for (const { url } of run.processes) if ((await call(url, 'GET', '/api/health', run.admin)).body?.projections?.lag !== 0) return false;
      return true;
    },
    { timeoutMs: 30_000, describe: 'every process at the head of the log' },
  );
  took('listed and at the head');
  for (const { child } of [...run.processes].reverse()) {
    // A stop the app gave up on (its stop is bounded: src/main.ts) is said, not failed: the models are crash-safe, and the rebuild below judges them.
    const { ended, output } = await desk.stop(child);
    if (ended !== '0') process.stderr.write(`[fault tally] ${test}: a process ended ${ended} on SIGTERM; the end of its output:\n${output.slice(-2000)}\n`);
  }
  took('stopped');
  expect(await desk.rebuildCheck()).toContain('The rebuilt read models equal the live ones.');
  took('rebuilt and compared');
}
