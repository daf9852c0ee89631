/**
 * `npx tsx --conditions=source bench/afterRebuild.ts [--tickets 10000] [--events 100000] [--posts 400] [--clients 10] [--data <dir>] [--profile <file>] [--upgrade]`:
 * what the first live messages after a rebuild of the read models pay for it (docs/search.md, "Segments").
 * Seeds a desk in `--data` (kept and used again while it holds `desk.json`), removes its
 * `readstore.db` so the app rebuilds every read model from the log (as a first start does), starts a
 * test server on it and, once it serves, posts `--posts` messages as the seeded admin from
 * `--clients` clients over the open tickets. Prints how long the start took, the event loop's delay
 * during the posts (`monitorEventLoopDelay`: max and p99), the posts' latency, the slowest search
 * index statements (every better-sqlite3 statement naming a `search_fts` table, and the commits, timed
 * one by one) and the FTS5 tables' segments before and after the posts.
 * `--profile <file>` writes a CPU profile of the posts alone. `--upgrade`: the models are built first, then the search model's checkpoint is set back a
 * version, and the start that upgrades it is timed (its reset empties the old version's index).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { startTestServer } from '../test/support/server';
import { type SeededDesk, seedDesk } from './seed';

const PASSWORD = 'bench-password-1';
const FTS_TABLES = ['search_fts', 'search_fts_notes', 'search_fts_words', 'search_fts_words_more'];

/** Times every statement on every connection of this process, by its SQL, while `timing` is on. */
const timings = new Map<string, { calls: number; ms: number; max: number }>();
let timing = false;
function timeStatements(): void {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all']) {
    const original = proto[method]!;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (!timing || !/search_fts|^COMMIT|^BEGIN/i.test(this.source)) return original.apply(this, args);
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - started;
        const key = this.source.replace(/\s+/g, ' ').slice(0, 90);
        const entry = timings.get(key) ?? { calls: 0, ms: 0, max: 0 };
        timings.set(key, { calls: entry.calls + 1, ms: entry.ms + ms, max: Math.max(entry.max, ms) });
      }
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (this: Database.Database, sql: string) {
    if (!timing) return exec.call(this, sql);
    const started = performance.now();
    try {
      return exec.call(this, sql);
    } finally {
      const ms = performance.now() - started;
      const key = `exec ${sql.replace(/\s+/g, ' ').slice(0, 60)}`;
      const entry = timings.get(key) ?? { calls: 0, ms: 0, max: 0 };
      timings.set(key, { calls: entry.calls + 1, ms: entry.ms + ms, max: Math.max(entry.max, ms) });
    }
  };
  probe.close();
}

/** Each FTS5 table's segments (their ids from the rowids of its `_data` table) and pages. */
function segments(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      FTS_TABLES.map((table) => {
        const rows = db.prepare(`SELECT rowid >> 37 AS segment, count(*) AS pages FROM ${table}_data WHERE rowid >= 1 << 37 GROUP BY segment`).all() as Array<{
          segment: number;
          pages: number;
        }>;
        return [table, `${rows.length} (${rows.map(({ pages }) => pages).join(' ')})`];
      }),
    );
  } finally {
    db.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      tickets: { type: 'string', default: '10000' },
      events: { type: 'string', default: '100000' },
      posts: { type: 'string', default: '400' },
      clients: { type: 'string', default: '10' },
      data: { type: 'string' },
      upgrade: { type: 'boolean', default: false },
      /** A CPU profile of the posts alone, written to this file (read it with bench/profile.ts). */
      profile: { type: 'string' },
    },
  });
  const dataDir = path.resolve(values.data ?? `/tmp/bench-after-rebuild-${values.tickets}`);
  const deskFile = path.join(dataDir, 'desk.json');
  if (!existsSync(deskFile)) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const events = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    const desk = await seedDesk(events, { tickets: Number(values.tickets), events: Number(values.events), password: PASSWORD });
    await events.close();
    writeFileSync(deskFile, JSON.stringify(desk));
  }
  const desk = JSON.parse(readFileSync(deskFile, 'utf8')) as SeededDesk;
  const readStore = path.join(dataDir, 'readstore.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${readStore}${suffix}`, { force: true });
  const env = { READSTORE: 'sqlite' };
  if (values.upgrade) {
    const built = await startTestServer({ dataDir, env, defaultRateLimit: true });
    await built.stop({ keepData: true });
    const db = new Database(readStore);
    db.prepare(`UPDATE "c:projection_checkpoints" SET doc = jsonb_set(doc, '$.version', 6) WHERE id = 'search'`).run();
    db.close();
  }
  timeStatements();
  timing = values.upgrade;
  const started = performance.now();
  const server = await startTestServer({ dataDir, env, defaultRateLimit: true });
  const startMs = performance.now() - started;
  try {
    if (values.upgrade) {
      const slowest = [...timings].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6);
      // What emptied the old version's index: its DELETEs, or its tables dropped and created again.
      const emptying = [...timings].filter(([sql]) => /^exec (DELETE FROM search_fts|DROP TABLE)/.test(sql)).reduce((sum, [, t]) => sum + t.ms, 0);
      const round = ([sql, t]: [string, { calls: number; ms: number; max: number }]) => ({ sql, calls: t.calls, ms: Math.round(t.ms), max: Math.round(t.max) });
      console.log(JSON.stringify({ upgrade: true, startMs: Math.round(startMs), emptyingMs: Math.round(emptying), slowest: slowest.map(round) }, null, 1));
      return;
    }
    const before = segments(readStore);
    const token = await server.login(desk.admin.email, PASSWORD);
    const raised = await server.request('PUT', '/api/settings', { token, body: { rateLimitMaxRequests: 1000, rateLimitWindowMs: 60_000 } });
    if (raised.status !== 200) throw new Error(`could not raise the rate limit: ${raised.status}`);
    const tickets = desk.openTickets.slice(0, 50);
    const posts = Number(values.posts);
    const clients = Number(values.clients);
    const latencies: number[] = [];
    const delay = monitorEventLoopDelay({ resolution: 5 });
    const session = values.profile ? new Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    timing = true;
    delay.enable();
    const cpu = process.cpuUsage();
    const loadStarted = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let sent = client; sent < posts; sent += clients) {
          const ticket = tickets[sent % tickets.length]!;
          const at = performance.now();
          const posted = await server.request('POST', `/api/tickets/${ticket.ticketId}/messages`, {
            token,
            body: { content: `after the rebuild, message ${sent}: refund of order ${100000 + sent} shipped` },
          });
          if (posted.status !== 201) throw new Error(`a post answered ${posted.status}: ${JSON.stringify(posted.body)}`);
          latencies.push(performance.now() - at);
        }
      }),
    );
    const loadMs = performance.now() - loadStarted;
    delay.disable();
    timing = false;
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(values.profile!, JSON.stringify(profile));
      session.disconnect();
    }
    const used = process.cpuUsage(cpu);
    latencies.sort((a, b) => a - b);
    const at = (share: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]! * 10) / 10;
    const slowest = [...timings].sort((a, b) => b[1].max - a[1].max).slice(0, 6);
    console.log(
      JSON.stringify(
        {
          startMs: Math.round(startMs),
          posts,
          seconds: Math.round(loadMs) / 1000,
          cpuMsPerPost: Math.round((used.user + used.system) / 10 / posts) / 100,
          loopDelayMs: { max: Math.round(delay.max / 1e5) / 10, p99: Math.round(delay.percentile(99) / 1e5) / 10 },
          postMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
          slowest: slowest.map(([sql, t]) => ({ sql, calls: t.calls, ms: Math.round(t.ms), max: Math.round(t.max * 10) / 10 })),
          segmentsBefore: before,
          segmentsAfter: segments(readStore),
        },
        null,
        1,
      ),
    );
  } finally {
    await server.stop({ keepData: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
