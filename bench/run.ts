import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { appendFigures } from './append';
import { clientStatistics } from './clientStats';
import { type FastMongo, measuredChat, startFastMongo } from './fastMongo';
import {
  type Conversation,
  PASSWORD,
  api,
  appEnv,
  chatLoad,
  cpuSecondsOf,
  deliveryRun,
  log,
  login,
  ms,
  percentile,
  pool,
  root,
  sleep,
  startProcess,
  stopProcess,
  thousands,
  watchViews,
} from './harness';
import { type SeededDesk, seedDesk } from './seed';
import { ONE_WORD_QUERIES, TWO_WORD_QUERIES } from './text';

/**
 * `npm run bench`: the figures of the benchmark, each beside its baseline from the same run,
 * written to bench/results.json and bench/results.md. Sizes are options; `--size smoke` is what
 * CI runs (it checks that every figure is produced, never how fast).
 */
/** How long after a start its resident size is read. */
const START_SETTLE_MS = 10_000;
/**
 * How long the app is left alone after the loads before its resident size at rest is read: long enough for
 * the collections and WAL checkpoints after them, so the figure is the size the process settles at. Its size is read each second meanwhile, and the highest reading reported.
 */
const REST_MS = 60_000;

const SIZES = {
  smoke: {
    tickets: 300,
    events: 3000,
    appendEvents: 2000,
    conversations: 8,
    messages: 3,
    connections: 10,
    seconds: 1,
    statsRequests: 50,
    baselineRequests: 5,
    longMessages: 60,
    searchRounds: 2,
    // CI's check that every figure is produced: the memory readings' waits are not worth 80 s there.
    settleMs: 1_000,
    restMs: 2_000,
  },
  small: {
    tickets: 10_000,
    events: 100_000,
    appendEvents: 20_000,
    conversations: 50,
    messages: 10,
    connections: 50,
    seconds: 5,
    statsRequests: 300,
    baselineRequests: 20,
    longMessages: 1000,
    searchRounds: 10,
    settleMs: START_SETTLE_MS,
    restMs: REST_MS,
  },
  full: {
    tickets: 100_000,
    events: 1_000_000,
    appendEvents: 100_000,
    conversations: 200,
    messages: 10,
    connections: 50,
    seconds: 10,
    statsRequests: 1000,
    baselineRequests: 50,
    longMessages: 3000,
    searchRounds: 20,
    settleMs: START_SETTLE_MS,
    restMs: REST_MS,
  },
} as const;
type Size = { -readonly [K in keyof (typeof SIZES)['full']]: number };

interface Timing {
  p50: number;
  p99: number;
}

interface ReplayResult {
  events: number;
  ms: number;
  rate: number;
  rssMb: number;
  search?: {
    oneWord: Timing;
    twoWords: Timing;
    regexOneWord: Timing;
    regexTwoWords: Timing;
    sampleTotal: number;
    firstQueryMs: number;
    postings: number;
    indexDocs: number;
  };
}

interface Figure {
  id: string;
  figure: string;
  result: string;
  baseline: string;
  target: string;
  holds: boolean | null;
  values: Record<string, number>;
}

/** Resident and peak resident memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rssMb: Math.round(field('VmRSS')), peakMb: Math.round(field('VmHWM')) };
}

/** Sequential timings of one call, after a short warm-up. */
async function timeSequential(count: number, call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(5, count); i++) await call();
  const timings: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await call();
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return timings;
}

/**
 * Figure 7: a conversation grown to `count` messages, posted one after another, against a short one.
 * A command's cost must not grow with the conversation it adds to. The last rounds alternate between
 * the long ticket (its messages around `count`) and a short one (its messages around 10), so both are
 * timed at the same moments and whatever else the machine is doing weighs on both alike. The admin
 * posts (staff may write on any ticket): admins are the one role the API rate limit leaves alone.
 */
/**
 * Message `count` of one long conversation against message 10 of short ones, posted alternately by
 * one client. Each short conversation gets messages 1 to 5 first; then, round by round, message 6 to
 * 16 of every short conversation is each followed by a post on the long one, whose posts land around
 * message `count`: 11 rounds of `shortTicketIds.length` pairs, so a pause (a collection, a WAL
 * checkpoint) moves a median of many samples rather than of 11.
 */
async function longConversation(
  base: string,
  longTicketId: string,
  shortTicketIds: string[],
  adminToken: string,
  count: number,
): Promise<{ short: number[]; long: number[] }> {
  const post = async (ticketId: string, content: string) => {
    const started = process.hrtime.bigint();
    await api(base, 'POST', `/api/tickets/${ticketId}/messages`, adminToken, { content });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const ROUNDS = 11;
  const measured = ROUNDS * shortTicketIds.length;
  const first = count - Math.floor(measured / 2);
  for (let m = 1; m < first; m++) await post(longTicketId, `long conversation message ${m}`);
  for (const ticketId of shortTicketIds) for (let m = 1; m <= 5; m++) await post(ticketId, `short conversation message ${m}`);
  const short: number[] = [];
  const long: number[] = [];
  let next = first;
  for (let round = 0; round < ROUNDS; round++) {
    for (const ticketId of shortTicketIds) {
      short.push(await post(ticketId, `short conversation message ${6 + round}`));
      long.push(await post(longTicketId, `long conversation message ${next++}`));
    }
  }
  return { short, long };
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

/**
 * `--mongo URL|fast` (or BENCH_MONGO_URL): the same desk's app with its read models on that MongoDB (a
 * database of its own, dropped after), on the same log. Its first start rebuilds them there (the
 * replay figure), then the delivery and chat loads run against it; each figure's baseline is the
 * embedded store's figure of this run.
 */
async function mongoFigures(run: {
  url: string;
  /** The fast in-memory wire server, when `--mongo fast` started it: it counts the commands. */
  fast?: FastMongo;
  env: NodeJS.ProcessEnv;
  serverCommand: (string | string[])[];
  conversations: Conversation[];
  agentTokens: string[];
  size: Size;
  figures: Figure[];
}): Promise<Figure[]> {
  const url = new URL(run.url);
  url.pathname = `/bench_${randomUUID().slice(0, 8)}`;
  const embedded = (id: string) => run.figures.find((figure) => figure.id === id)!;
  const client = new MongoClient(url.toString());
  const figures: Figure[] = [];
  let child: ChildProcess | null = null;
  try {
    log('replay on MongoDB (the first start of the app rebuilds its read models there) ...');
    const app = await startProcess(
      run.serverCommand[0] as string,
      run.serverCommand[1] as string[],
      { ...run.env, MONGO_URL: url.toString() },
      /running at (http:\/\/\S+)/,
    );
    child = app.child;
    const events = embedded('replay').values.events!;
    const rate = events / (app.startedMs / 1000);
    figures.push({
      id: 'replay-mongo',
      figure: `Replay on MongoDB: the app's first start on ${thousands(events)} events rebuilds every read model into ${url.host}`,
      result: `${thousands(rate)} events/s (${(app.startedMs / 1000).toFixed(1)} s to ready)`,
      baseline: `embedded store: first start without stored read models ${(embedded('replay').values.firstStartMs! / 1000).toFixed(1)} s; replay ${thousands(embedded('replay').values.rate!)} events/s`,
      target: '–',
      holds: null,
      values: { events, rate, startMs: Math.round(app.startedMs) },
    });
    log('delivery on MongoDB ...');
    const delivered = await deliveryRun(app.url, run.conversations, run.agentTokens, run.size);
    const delivery = embedded('delivery').values;
    figures.push({
      id: 'delivery-mongo',
      figure: `Delivery on MongoDB: customer POST → agent socket \`new_message\`, ${run.conversations.length} conversations at once`,
      result: `p50 ${ms(percentile(delivered, 50))}, p99 ${ms(percentile(delivered, 99))} (${delivered.length} messages)`,
      baseline: `embedded store: p50 ${ms(delivery.p50!)}, p99 ${ms(delivery.p99!)}`,
      target: '–',
      holds: null,
      values: { p50: percentile(delivered, 50), p99: percentile(delivered, 99), messages: delivered.length },
    });
    log('chat on MongoDB ...');
    // At least 10 s, whatever the size: a shorter load is mostly the first pages.
    const measured = await measuredChat(app.url, child.pid!, run.conversations, { ...run.size, seconds: Math.max(10, run.size.seconds) }, run.fast);
    const chat = measured.result;
    const embeddedChat = embedded('chat').values;
    const commands =
      measured.commandsPerMessage === undefined
        ? ''
        : `; ${measured.commandsPerMessage.toFixed(2)} commands per message (${measured.readsPerMessage!.toFixed(2)} reads)`;
    figures.push({
      id: 'chat-mongo',
      figure: `Chat on MongoDB: POST /api/tickets/:id/messages, ${run.size.connections} connections (autocannon, ${chat.duration.toFixed(0)} s)`,
      result: `${thousands(chat.requests.average)} req/s, p50 ${ms(chat.latency.p50)}, p99 ${ms(chat.latency.p99)}${chat.non2xx ? ` (${chat.non2xx} not 2xx)` : ''}; app CPU ${ms(measured.cpuMsPerMessage)} per message${commands}`,
      baseline: `embedded store: ${thousands(embeddedChat.rps!)} req/s, p50 ${ms(embeddedChat.p50!)}, p99 ${ms(embeddedChat.p99!)} (npm run bench:mongo times both in one run, with CPU per message beside each)`,
      target: '–',
      holds: null,
      values: {
        rps: chat.requests.average,
        p50: chat.latency.p50,
        p99: chat.latency.p99,
        non2xx: chat.non2xx,
        cpuMsPerMessage: measured.cpuMsPerMessage,
        ...(measured.commandsPerMessage === undefined ? {} : { commandsPerMessage: measured.commandsPerMessage, readsPerMessage: measured.readsPerMessage! }),
      },
    });
    return figures;
  } finally {
    if (child) await stopProcess(child);
    await client
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
}

interface Results {
  date: string;
  options: { events: number };
  figures: Figure[];
}

/**
 * The figures that must not grow with the log, at `small` (100k events) beside `full` (1M): resident
 * size after a start and at rest, cold start after a clean stop and after a kill -9; each at most 1.3x.
 */
function growthFigure(small: Results, figures: Figure[], startedAt: Date): Figure {
  const value = (results: Figure[], id: string, key: string) => Number(results.find((figure) => figure.id === id)?.values[key] ?? NaN);
  const rows = [
    { name: 'RSS after a start', id: 'memory', key: 'startRssMb', unit: 'MB' },
    { name: 'RSS at rest', id: 'memory', key: 'restRssMb', unit: 'MB' },
    { name: 'cold start', id: 'replay', key: 'coldStartMs', unit: 'ms' },
    { name: 'restart after kill -9', id: 'restart', key: 'restartMs', unit: 'ms' },
  ].map((row) => ({ ...row, small: value(small.figures, row.id, row.key), full: value(figures, row.id, row.key) }));
  const sameDay = small.date.slice(0, 10) === startedAt.toISOString().slice(0, 10);
  const fullEvents = Number(figures.find((figure) => figure.id === 'replay')?.values.events ?? NaN);
  return {
    id: 'growth',
    figure: `Growth with the log: ${thousands(small.options.events)} events (\`small\`, run of ${small.date.slice(0, 16).replace('T', ' ')}) beside ${thousands(fullEvents)} (this run)`,
    result: rows.map((row) => `${row.name} ${thousands(row.full)} ${row.unit} (${(row.full / row.small).toFixed(2)}x)`).join('; '),
    baseline: rows.map((row) => `${row.name} ${thousands(row.small)} ${row.unit}`).join('; '),
    target: 'each ≤ 1.3x the small size’s, runs of the same day',
    holds: sameDay ? rows.every((row) => row.full <= 1.3 * row.small) : null,
    values: Object.fromEntries(
      rows.flatMap((row) => [
        [`${row.key}Small`, row.small],
        [`${row.key}Full`, row.full],
      ]),
    ),
  };
}

function table(figures: Figure[]): string {
  const lines = ['| # | Figure | Result | Baseline (same run) | Target | Holds |', '|---|---|---|---|---|---|'];
  figures.forEach((figure, index) => {
    const holds = figure.holds === null ? '–' : figure.holds ? 'yes' : 'no';
    lines.push(`| ${index + 1} | ${figure.figure} | ${figure.result} | ${figure.baseline} | ${figure.target} | ${holds} |`);
  });
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: 'full' },
      tickets: { type: 'string' },
      events: { type: 'string' },
      conversations: { type: 'string' },
      seconds: { type: 'string' },
      long: { type: 'string' },
      out: { type: 'string', default: path.join(root, 'bench') },
      server: { type: 'string', default: 'dist' },
      // The read models on MongoDB too: chat, delivery and replay again with the app on this server
      // (`fast`: the in-memory wire server of bench/mongo-java-server, for timing).
      mongo: { type: 'string', default: process.env.BENCH_MONGO_URL },
      // Some figures only (`--only chat,delivery`): the desk is seeded and the app started as always, the
      // other figures are skipped, and bench/results.* are left as they are (the table is printed).
      only: { type: 'string' },
      // The desk's directory, kept after the run and used again by the next (seeded only when it holds
      // no `desk.json`): a full desk takes minutes to seed. Its log grows with every run's posts.
      data: { type: 'string' },
    },
  });
  const FIGURES = ['append', 'replay', 'dashboard', 'list', 'search', 'long', 'delivery', 'chat', 'memory', 'restart'];
  const only = values.only?.split(',');
  const unknown = only?.filter((id) => !FIGURES.includes(id)) ?? [];
  if (unknown.length > 0) throw new Error(`--only takes figures among ${FIGURES.join(', ')}, not ${unknown.join(', ')}`);
  const wanted = (...ids: string[]) => !only || ids.some((id) => only.includes(id));
  const preset = SIZES[values.size as keyof typeof SIZES];
  if (!preset) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  const size: Size = { ...preset };
  if (values.tickets) size.tickets = Number(values.tickets);
  if (values.events) size.events = Number(values.events);
  if (values.conversations) size.conversations = Number(values.conversations);
  if (values.seconds) size.seconds = Number(values.seconds);
  if (values.long) size.longMessages = Number(values.long);
  // BENCH_PROFILE=<dir>: the app writes a V8 CPU profile there when it stops (to find where time goes).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE)}`] : [];
  // BENCH_NODE_FLAGS="--trace-gc ...": more Node flags for the app (with BENCH_APP_LOG=<file> to keep what they print).
  const nodeFlags = [...profile, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const serverCommand =
    values.server === 'tsx'
      ? [process.execPath, [...nodeFlags, '--conditions=source', '--import', 'tsx', 'src/main.ts']]
      : [process.execPath, [...nodeFlags, 'dist/src/main.js']];
  if (values.server !== 'tsx' && !existsSync(path.join(root, 'dist/src/main.js')))
    throw new Error('dist/src/main.js is missing: run `npm run build:server` (npm run bench does), or pass --server tsx');
  // The targets are stated for the full size; other sizes report the figures without a verdict.
  const judged = values.size === 'full';
  const verdict = (holds: boolean) => (judged ? holds : null);
  const figures: Figure[] = [];
  const dataDir = values.data ? path.resolve(values.data) : mkdtempSync(path.join(os.tmpdir(), 'bench-desk-'));
  mkdirSync(dataDir, { recursive: true });
  const deskFile = path.join(dataDir, 'desk.json');
  const children: ChildProcess[] = [];
  const startedAt = new Date();
  // The desk every other figure works on, written through the port by the domain's deciders.
  const seed = async () => {
    log(`seeding ${thousands(size.tickets)} tickets ...`);
    const store = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    const seedStarted = Date.now();
    let lastReport = 0;
    const desk: SeededDesk = await seedDesk(store, {
      tickets: size.tickets,
      events: size.events,
      password: PASSWORD,
      onProgress: (done, total) => {
        if (Date.now() - lastReport > 5000) {
          lastReport = Date.now();
          log(`  ${thousands(done)} / ${thousands(total)} tickets`);
        }
      },
    });
    await store.close();
    const seedMs = Date.now() - seedStarted;
    log(`  ${thousands(desk.events)} events in ${(seedMs / 1000).toFixed(1)} s`);
    if (values.data) writeFileSync(deskFile, JSON.stringify({ desk, seedMs }));
    return { desk, seedMs };
  };
  log(`benchmark, size ${values.size}: ${thousands(size.tickets)} tickets, ${thousands(size.events)} events, data in ${dataDir}`);

  try {
    // 1. append
    const append = wanted('append') ? (log('1/8 append ...'), await appendFigures(size.appendEvents, 100)) : undefined;
    if (append)
      figures.push({
        id: 'append',
        figure: `Append through the EventStore port (SQLite), ${append.batched.batch} events per append`,
        result: `${thousands(append.batched.port)} events/s (1 per append: ${thousands(append.single.port)}, group commit off ${thousands(append.single.portUngrouped)}; ${append.concurrent.writers} concurrent 1-event appends: ${thousands(append.concurrent.port)}, group commit off ${thousands(append.concurrent.portUngrouped)})`,
        baseline: `raw better-sqlite3: ${thousands(append.batched.raw)} rows/s (1 per transaction: ${thousands(append.single.raw)})`,
        target: '≥ 80% of raw, batched and single',
        holds: verdict(append.batched.port >= append.batched.raw * 0.8 && append.single.port >= append.single.raw * 0.8),
        values: {
          portBatched: append.batched.port,
          rawBatched: append.batched.raw,
          portSingle: append.single.port,
          portSingleUngrouped: append.single.portUngrouped,
          rawSingle: append.single.raw,
          portConcurrent: append.concurrent.port,
          portConcurrentUngrouped: append.concurrent.portUngrouped,
        },
      });

    const seeded = existsSync(deskFile) ? (JSON.parse(readFileSync(deskFile, 'utf8')) as { desk: SeededDesk; seedMs: number }) : await seed();
    const { desk, seedMs } = seeded;
    const seedRate = desk.events / (seedMs / 1000);

    // 4. replay, in a process of its own
    if (wanted('replay', 'search', 'memory')) log('4/8 replay ...');
    const replayRun = (...extra: string[]) =>
      JSON.parse(
        execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', 'bench/replay.ts', path.join(dataDir, 'events.db'), ...extra], {
          cwd: root,
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as ReplayResult;
    // Twice each, alternating, and the faster of each kept: on a shared machine one run's rate moves by
    // a tenth, more than the search index's share the pair is there to show.
    const faster = (a: ReplayResult, b: ReplayResult) => (a.rate >= b.rate ? a : b);
    const replays = () => {
      const replayFirst = replayRun('--queries', String(size.searchRounds));
      log('replay without the search index ...');
      const bareFirst = replayRun('--without-search');
      log('both replays again ...');
      return { replay: { ...faster(replayFirst, replayRun()), search: replayFirst.search }, bareReplay: faster(bareFirst, replayRun('--without-search')) };
    };
    const { replay, bareReplay } = wanted('replay', 'search', 'memory') ? replays() : { replay: undefined, bareReplay: undefined };

    // Cold starts of the real app on that log: the first has no read models stored and rebuilds them
    // from the log into DATA_DIR/readstore.db; the second, after a clean stop, opens that file.
    log('cold start without stored read models ...');
    const env = appEnv(dataDir, desk.admin.email);
    const first = await startProcess(serverCommand[0] as string, serverCommand[1] as string[], env, /running at (http:\/\/\S+)/);
    children.push(first.child);
    await sleep(size.settleMs);
    const firstMemory = memoryOf(first.child.pid!);
    await stopProcess(first.child);
    log('cold start with the read models stored ...');
    const app = await startProcess(serverCommand[0] as string, serverCommand[1] as string[], env, /running at (http:\/\/\S+)/);
    children.push(app.child);
    const base = app.url;
    await sleep(size.settleMs);
    const startMemory = memoryOf(app.child.pid!);
    if (replay && wanted('replay'))
      figures.push({
        id: 'replay',
        figure: `Replay: full projection rebuild over ${thousands(replay.events)} events; cold start of the app after a clean stop (read models in readstore.db)`,
        result: `${thousands(replay.rate)} events/s (${(replay.ms / 1000).toFixed(1)} s); cold start ${(app.startedMs / 1000).toFixed(2)} s with the models stored`,
        baseline: `seeding the same log through the port: ${thousands(seedRate)} events/s (replay ${(replay.rate / seedRate).toFixed(2)}x); first start, no models stored (rebuild from the log): ${(first.startedMs / 1000).toFixed(1)} s`,
        target: '≥ 3.5x the seeding rate; cold start < 1 s (after a kill -9: figure "restart")',
        holds: verdict(replay.rate >= 3.5 * seedRate && app.startedMs < 1_000),
        values: {
          events: replay.events,
          rate: replay.rate,
          replayMs: replay.ms,
          coldStartMs: Math.round(app.startedMs),
          firstStartMs: Math.round(first.startedMs),
          seedMs,
        },
      });

    const admin = await login(base, desk.admin.email);
    await api(base, 'PUT', '/api/settings', admin, { rateLimitMaxRequests: 1000, rateLimitWindowMs: 60_000 });

    // The API allows a user at most 1,000 requests a minute (the settings' ceiling): sequential
    // requests that answer in milliseconds go round the seeded agents to stay under it.
    const agentTokens = await pool(desk.agents, 4, (agent) => login(base, agent.email));
    let turn = 0;
    const nextAgent = () => agentTokens[turn++ % agentTokens.length]!;

    // 5. dashboard statistics
    if (wanted('dashboard', 'list')) {
      log('5/8 dashboard ...');
      // The bare route of figures 5 and 8: a fixed page of 50 tickets from a bare Express process.
      const listBare = await startProcess(process.execPath, ['--conditions=source', '--import', 'tsx', 'bench/bare.ts'], {}, /running at (http:\/\/\S+)/);
      children.push(listBare.child);
      const bareListed = await timeSequential(size.statsRequests, () => api(listBare.url, 'GET', '/api/tickets', nextAgent()));
      await stopProcess(listBare.child);
      const bareP99 = percentile(bareListed, 99);
      if (wanted('dashboard')) {
        const stats = await timeSequential(size.statsRequests, () => api(base, 'GET', '/api/tickets/stats', nextAgent()));
        const client = await timeSequential(size.baselineRequests, async () => {
          const agentToken = nextAgent();
          const [list, categories] = await Promise.all([
            api<{ tickets: Parameters<typeof clientStatistics>[0] }>(base, 'GET', '/api/tickets?limit=1000', agentToken),
            api<{ categories: Parameters<typeof clientStatistics>[1] }>(base, 'GET', '/api/categories?limit=1000', agentToken),
          ]);
          return clientStatistics(list.tickets, categories.categories);
        });
        figures.push({
          id: 'dashboard',
          figure: `Dashboard: GET /api/tickets/stats at ${thousands(size.tickets)} tickets`,
          result: `p50 ${ms(percentile(stats, 50))}, p99 ${ms(percentile(stats, 99))}`,
          baseline: `bare Express route answering a fixed page of 50 tickets: p50 ${ms(percentile(bareListed, 50))}, p99 ${ms(bareP99)} (${(percentile(stats, 99) / bareP99).toFixed(2)}x); client-side statistics (fetch 1,000 tickets, compute in browser code): p50 ${ms(percentile(client, 50))}, p99 ${ms(percentile(client, 99))}`,
          target: 'p99 < 1.5x the bare route',
          holds: verdict(percentile(stats, 99) < 1.5 * bareP99),
          values: {
            p50: percentile(stats, 50),
            p99: percentile(stats, 99),
            bareP99,
            clientP50: percentile(client, 50),
            clientP99: percentile(client, 99),
          },
        });
      }

      // 8. the Live Tickets screen's list: a status filter, a sort, 50 rows, as an agent
      if (wanted('list')) {
        log('8/8 live tickets list ...');
        const LIST = '/api/tickets?status=open&sort=priority&limit=50';
        const listed = await timeSequential(size.statsRequests, () => api(base, 'GET', LIST, nextAgent()));
        figures.push({
          id: 'list',
          figure: `Live Tickets list: GET ${LIST} as an agent at ${thousands(size.tickets)} tickets`,
          result: `p50 ${ms(percentile(listed, 50))}, p99 ${ms(percentile(listed, 99))}`,
          baseline: `bare Express route answering a fixed page of 50 tickets: p50 ${ms(percentile(bareListed, 50))}, p99 ${ms(bareP99)} (${(percentile(listed, 99) / bareP99).toFixed(2)}x)`,
          target: 'p99 < 1.5x the bare route',
          holds: verdict(percentile(listed, 99) < 1.5 * bareP99),
          values: {
            p50: percentile(listed, 50),
            p99: percentile(listed, 99),
            baselineP50: percentile(bareListed, 50),
            baselineP99: percentile(bareListed, 99),
          },
        });
      }
    }

    // 9. full-text search: in the replay process (the service alone) and through the app's HTTP API
    if (wanted('search') && replay && bareReplay) {
      log('9/9 search ...');
      const found = replay.search!;
      const httpSearch = (queries: readonly string[]) => {
        let next = 0;
        return timeSequential(size.searchRounds * queries.length, () =>
          api(base, 'GET', `/api/search?q=${encodeURIComponent(queries[next++ % queries.length]!)}`, nextAgent()),
        );
      };
      const firstSearch = await timeSequential(1, () => api(base, 'GET', `/api/search?q=${ONE_WORD_QUERIES[0]}`, nextAgent()));
      // The event loop held by a query, seen from outside: GET /api/health every 5 ms while the queries run;
      // its slowest answer bounds the longest time the app answered nothing else.
      let searching = true;
      let healthSlowest = 0;
      const healthProbe = (async () => {
        while (searching) {
          const sent = performance.now();
          await fetch(`${base}/api/health`).then((answer) => answer.arrayBuffer());
          healthSlowest = Math.max(healthSlowest, performance.now() - sent);
          await sleep(5);
        }
      })();
      const httpOne = await httpSearch(ONE_WORD_QUERIES);
      const httpTwo = await httpSearch(TWO_WORD_QUERIES);
      searching = false;
      await healthProbe;
      const replayDrop = 1 - replay.rate / bareReplay.rate;
      figures.push({
        id: 'search',
        figure: `Search: GET /api/search as an agent at ${thousands(size.tickets)} tickets (${thousands(found.postings)} FTS5 rows), ${ONE_WORD_QUERIES.length} one-word and ${TWO_WORD_QUERIES.length} two-word queries; the index built inside replay; memory with it`,
        result: `HTTP one word p50 ${ms(percentile(httpOne, 50))}, p99 ${ms(percentile(httpOne, 99))}; two words p50 ${ms(percentile(httpTwo, 50))}, p99 ${ms(percentile(httpTwo, 99))} (service alone: one word p99 ${ms(found.oneWord.p99)}, two words p99 ${ms(found.twoWords.p99)}); replay ${thousands(replay.rate)} events/s with the index (${(replayDrop * 100).toFixed(0)}% slower); replay RSS ${thousands(replay.rssMb)} MB with it; the first query after a start builds the embedded store's word index: ${ms(firstSearch[0]!)} (in the replay process ${ms(found.firstQueryMs)}); meanwhile GET /api/health every 5 ms answered within ${ms(healthSlowest)}`,
        baseline: `regex substring scan of the titles and descriptions (the list's search before): one word p50 ${ms(found.regexOneWord.p50)}, p99 ${ms(found.regexOneWord.p99)}; two words p99 ${ms(found.regexTwoWords.p99)}; replay without the index ${thousands(bareReplay.rate)} events/s, RSS ${thousands(bareReplay.rssMb)} MB (index share ${thousands(replay.rssMb - bareReplay.rssMb)} MB)`,
        target: 'p99 < 25 ms, one word and two; health answered within 50 ms meanwhile',
        holds: verdict(percentile(httpOne, 99) < 25 && percentile(httpTwo, 99) < 25 && healthSlowest < 50),
        values: {
          httpOneP50: percentile(httpOne, 50),
          httpOneP99: percentile(httpOne, 99),
          httpTwoP50: percentile(httpTwo, 50),
          httpTwoP99: percentile(httpTwo, 99),
          serviceOneP99: found.oneWord.p99,
          serviceTwoP99: found.twoWords.p99,
          regexOneP50: found.regexOneWord.p50,
          regexOneP99: found.regexOneWord.p99,
          regexTwoP99: found.regexTwoWords.p99,
          replayRate: replay.rate,
          replayRateWithoutIndex: bareReplay.rate,
          replayRssMb: replay.rssMb,
          replayRssMbWithoutIndex: bareReplay.rssMb,
          postings: found.postings,
          firstQueryMs: firstSearch[0]!,
          healthSlowestMs: healthSlowest,
        },
      });
    }

    // The conversations of figures 2 and 3: open tickets of seeded customers, each signed in.
    log(`signing in ${size.conversations} customers and ${desk.agents.length} agents ...`);
    const [long, ...open] = desk.openTickets.slice(0, size.conversations + 1);
    if (open.length < size.conversations)
      throw new Error(`only ${open.length + 1} open tickets for ${size.conversations} conversations and a long one: raise --tickets`);
    const conversations: Conversation[] = await pool(open, 4, async ({ ticketId, customer }) => ({
      ticketId,
      customerToken: await login(base, customer.email),
    }));

    // 7. one long conversation, before the loads (so nothing else runs beside it)
    if (wanted('long')) {
      log(`7/8 long conversation (${size.longMessages} messages) ...`);
      const shortTickets = conversations.slice(0, 5).map((conversation) => conversation.ticketId);
      const { short, long: longPosts } = await longConversation(base, long!.ticketId, shortTickets, admin, size.longMessages);
      // Medians of every pair: the short tickets' messages 6 to 16, the long one's around `longMessages`.
      const early = percentile(short, 50);
      const late = percentile(longPosts, 50);
      figures.push({
        id: 'long',
        figure: `Long conversation: POST /api/tickets/:id/messages as message ${thousands(size.longMessages)} of one ticket, one client`,
        result: `median ${ms(late)} (${(late / early).toFixed(2)}x message 10)`,
        baseline: `messages 6 to 16 of ${shortTickets.length} short conversations, posted alternately with it: median ${ms(early)}`,
        target: '≤ 1.3x message 10',
        holds: verdict(late <= early * 1.3),
        values: { early, late, ratio: late / early, messages: size.longMessages },
      });
    }

    // 3. delivery (before the chat load, which makes conversations long)
    const bare = await startProcess(process.execPath, ['--conditions=source', '--import', 'tsx', 'bench/bare.ts'], {}, /running at (http:\/\/\S+)/);
    children.push(bare.child);
    if (wanted('delivery')) {
      log('3/8 delivery ...');
      const settled: number[] = [];
      const delivered = await deliveryRun(base, conversations, agentTokens, size, settled);
      const bareSettled: number[] = [];
      const bareDelivered = await deliveryRun(bare.url, conversations, agentTokens, size, bareSettled);
      figures.push({
        id: 'delivery',
        figure: `Delivery: customer POST → agent socket \`new_message\`, ${conversations.length} conversations at once`,
        result: `p50 ${ms(percentile(delivered, 50))}, p99 ${ms(percentile(delivered, 99))} (${delivered.length} messages); of the messages sent after the load's first second: p99 ${ms(percentile(settled, 99))}`,
        baseline: `bare Express + socket.io room push: p50 ${ms(percentile(bareDelivered, 50))}, p99 ${ms(percentile(bareDelivered, 99))} (${(percentile(delivered, 99) / percentile(bareDelivered, 99)).toFixed(2)}x); after the first second: p99 ${ms(percentile(bareSettled, 99))}`,
        target: 'p99 < 2x the bare push',
        holds: verdict(percentile(delivered, 99) < 2 * percentile(bareDelivered, 99)),
        values: {
          p50: percentile(delivered, 50),
          p99: percentile(delivered, 99),
          messages: delivered.length,
          baselineP50: percentile(bareDelivered, 50),
          baselineP99: percentile(bareDelivered, 99),
          p99AfterFirstSecond: percentile(settled, 99),
          baselineP99AfterFirstSecond: percentile(bareSettled, 99),
        },
      });
    }

    // 2. chat under load
    if (wanted('chat')) {
      log('2/8 chat ...');
      // The app's CPU a message (worker threads included): steadier than the rate on a shared machine.
      const cpuBefore = cpuSecondsOf(app.child.pid!);
      const chat = await chatLoad(base, conversations, size);
      const cpuMsPerMessage = ((cpuSecondsOf(app.child.pid!) - cpuBefore) * 1000) / chat.requests.total;
      const bareChat = await chatLoad(bare.url, conversations, size);
      // The same load with every agent on Live Tickets, watching the views' live counts (docs/views.md).
      const watchers = await watchViews(base, agentTokens);
      const watchedCpuBefore = cpuSecondsOf(app.child.pid!);
      const watched = await chatLoad(base, conversations, size);
      const watchedCpuMsPerMessage = ((cpuSecondsOf(app.child.pid!) - watchedCpuBefore) * 1000) / watched.requests.total;
      const countPushes = watchers.pushes();
      watchers.close();
      figures.push({
        id: 'chat',
        figure: `Chat: POST /api/tickets/:id/messages, ${size.connections} connections (autocannon, ${size.seconds} s)`,
        result: `${thousands(chat.requests.average)} req/s, p50 ${ms(chat.latency.p50)}, p99 ${ms(chat.latency.p99)}; app CPU ${ms(cpuMsPerMessage)} per message; with ${agentTokens.length} agents watching the views' live counts: ${thousands(watched.requests.average)} req/s, p99 ${ms(watched.latency.p99)}, app CPU ${ms(watchedCpuMsPerMessage)} per message, ${thousands(countPushes)} count pushes`,
        baseline: `bare Express route: ${thousands(bareChat.requests.average)} req/s, p50 ${ms(bareChat.latency.p50)}, p99 ${ms(bareChat.latency.p99)} (chat ${Math.round((100 * chat.requests.average) / bareChat.requests.average)}% of it, p99 ${(chat.latency.p99 / bareChat.latency.p99).toFixed(2)}x)`,
        target: "≥ 30% of the bare route's req/s, p99 < 2x the bare route's",
        holds: verdict(chat.requests.average >= bareChat.requests.average * 0.3 && chat.latency.p99 < 2 * bareChat.latency.p99 && chat.non2xx === 0),
        values: {
          rps: chat.requests.average,
          p50: chat.latency.p50,
          p99: chat.latency.p99,
          non2xx: chat.non2xx,
          cpuMsPerMessage,
          watchedRps: watched.requests.average,
          watchedP99: watched.latency.p99,
          watchedCpuMsPerMessage,
          countPushes,
          baselineRps: bareChat.requests.average,
          baselineP50: bareChat.latency.p50,
          baselineP99: bareChat.latency.p99,
        },
      });
    }

    // 6. memory of the app process
    if (wanted('memory') && replay) {
      const endMemory = memoryOf(app.child.pid!);
      let restHighestMb = 0;
      for (let waited = 0; waited < size.restMs; waited += 1000) {
        await sleep(1000);
        restHighestMb = Math.max(restHighestMb, memoryOf(app.child.pid!).rssMb);
      }
      const restMemory = memoryOf(app.child.pid!);
      figures.push({
        id: 'memory',
        figure: `Memory: resident size of the app at ${thousands(size.tickets)} tickets, ${thousands(desk.events)} events, with every figure's load before it (search index included)`,
        result: `${thousands(startMemory.rssMb)} MB ${size.settleMs / 1000} s after a start with the models stored (its peak while starting: ${thousands(startMemory.peakMb)} MB); ${thousands(restMemory.rssMb)} MB after ${size.restMs / 1000} s at rest after the loads (the highest reading in that time ${thousands(restHighestMb)} MB); ${thousands(endMemory.rssMb)} MB at the loads' end (peak ${thousands(endMemory.peakMb)} MB)`,
        baseline: `replay alone into the embedded store: ${thousands(replay.rssMb)} MB; first start, rebuilt from the log: ${thousands(firstMemory.rssMb)} MB (peak ${thousands(firstMemory.peakMb)} MB)`,
        target: '≤ 400 MB after a start and at rest; < 600 MB peak while starting',
        holds: verdict(Math.max(startMemory.rssMb, restMemory.rssMb) <= 400 && startMemory.peakMb < 600),
        values: {
          startRssMb: startMemory.rssMb,
          startPeakMb: startMemory.peakMb,
          restRssMb: restMemory.rssMb,
          restHighestRssMb: restHighestMb,
          endRssMb: endMemory.rssMb,
          peakRssMb: endMemory.peakMb,
          replayRssMb: replay.rssMb,
          firstStartRssMb: firstMemory.rssMb,
          firstStartPeakMb: firstMemory.peakMb,
        },
      });
    }

    // 10. a restart after a kill -9 once the loads are over: the WAL recovered, the tail after the last
    // checkpoint applied (live pages store their checkpoints with them, so the tail is short).
    if (wanted('restart')) {
      log('restart after kill -9 ...');
      const killed = new Promise((resolve) => app.child.once('exit', resolve));
      app.child.kill('SIGKILL');
      await killed;
      const restarted = await startProcess(serverCommand[0] as string, serverCommand[1] as string[], env, /running at (http:\/\/\S+)/);
      children.push(restarted.child);
      figures.push({
        id: 'restart',
        figure: `Restart: the app SIGKILLed after the loads (${thousands(desk.events)} events and the loads' posts), started again on its files`,
        result: `ready in ${(restarted.startedMs / 1000).toFixed(2)} s`,
        baseline: `cold start after a clean stop: ${(app.startedMs / 1000).toFixed(2)} s`,
        target: '< 3 s',
        holds: verdict(restarted.startedMs < 3_000),
        values: { restartMs: Math.round(restarted.startedMs), coldStartMs: Math.round(app.startedMs) },
      });
    }

    if (values.mongo) {
      for (const child of children) await stopProcess(child);
      await stopProcess(bare.child);
      const fast = values.mongo === 'fast' ? await startFastMongo() : undefined;
      try {
        figures.push(...(await mongoFigures({ url: fast?.url ?? values.mongo, fast, env, serverCommand, conversations, agentTokens, size, figures })));
      } finally {
        await fast?.stop();
      }
    }
  } finally {
    for (const child of children) await stopProcess(child);
    if (!values.data) rmSync(dataDir, { recursive: true, force: true });
  }

  // Memory and starts at 100k events beside 1M: from the `small` run of the same day, when there is one.
  const smallFile = path.join(values.out!, 'results-small.json');
  if (values.size === 'full' && !only && existsSync(smallFile))
    figures.push(growthFigure(JSON.parse(readFileSync(smallFile, 'utf8')) as Results, figures, startedAt));
  const order = [
    'append',
    'chat',
    'chat-mongo',
    'delivery',
    'delivery-mongo',
    'long',
    'replay',
    'restart',
    'replay-mongo',
    'dashboard',
    'memory',
    'growth',
    'list',
    'search',
  ];
  figures.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const results = { date: startedAt.toISOString(), size: values.size, options: size, machine: machine(), figures };
  const markdown = `Benchmark of ${startedAt.toISOString().slice(0, 10)}, size \`${values.size}\`, on ${results.machine.cores} × ${results.machine.cpu}, ${results.machine.memoryGb} GB, ${results.machine.node}.\n\n${table(figures)}\n`;
  if (only) {
    // A run of some figures prints them and leaves the full run's files alone.
    process.stdout.write(markdown);
    process.exit(0);
  }
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(path.join(values.out!, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(values.out!, `results-${values.size}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(values.out!, 'results.md'), markdown);
  process.stdout.write(markdown);
  // Sockets and keep-alive agents of the load generator must not hold the process open.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
