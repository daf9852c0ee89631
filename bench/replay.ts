import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { MongoReadStore } from '../src/platform/readstore/mongodb';
import type { ReadStore } from '../src/platform/readstore/port';
import { SqliteReadStore } from '../src/platform/readstore/sqlite';
import { escapeRegex } from '../src/platform/readstore/port';
import { searchTickets } from '../src/app/search/service';
import { searchQuery } from '#contract/search';
import { allProjections } from '../src/projections/all';
import { StoreLease } from '../src/platform/lease';
import { PROJECTIONS_LEASE, ProjectionRunner } from '../src/projections/runner';
import { SEARCH_PEOPLE, SEARCH_TICKETS, searchProjection } from '../src/projections/search';
import { TICKETS } from '../src/projections/tickets';
import { type FastMongo, startFastMongo } from './fastMongo';
import { ONE_WORD_QUERIES, TWO_WORD_QUERIES } from './text';

/**
 * Figure 4, in a process of its own: every projection rebuilt from zero over the whole log into a
 * fresh embedded read store (a SQLite file in a temporary directory), as a first start of the embedded app does.
 *   tsx --conditions=source bench/replay.ts <events.db> [--without-search] [--queries <rounds>] [--mongo fast|URL [--lease] [--batch <events>]]
 * prints { events, ms, rate, cpuMs, rssMb, heapMb, peakRssMb } as JSON (rss and heap a second after the replay;
 * peakRssMb at its end); `--without-search` leaves the search projection out
 * (the replay rate and memory without the index); `--queries` then times the search figure on the
 * rebuilt store: GET /api/search's service for one- and two-word queries beside the substring
 * regex scan of the tickets' titles and descriptions that the Live Tickets list used before it.
 * `--mongo` replays into MongoDB instead (`fast`: the in-memory wire server of bench/fastMongo.ts) and
 * adds the commands the server was sent, its milliseconds by command, the documents written (per event) and its CPU per
 * document (its JVM's start included; docs/benchmark.md "The MongoDB path");
 * `--lease` writes as the app's leader does there, through the lease's fenced store; `--batch <events>` sets the
 * replay's batches there (docs/read-models.md "Replay in batches"; 0 applies it page by page).
 */
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function timed(rounds: number, queries: string[], run: (q: string) => Promise<unknown>) {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++)
    for (const q of queries) {
      const started = process.hrtime.bigint();
      await run(q);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main() {
  const args = process.argv.slice(2);
  const withoutSearch = args.includes('--without-search');
  const roundsAt = args.indexOf('--queries');
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 0;
  const mongoAt = args.indexOf('--mongo');
  const store = new SqliteEventStore({ filename: args[0]! });
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-replay-'));
  const fast: FastMongo | undefined = mongoAt >= 0 && args[mongoAt + 1] === 'fast' ? await startFastMongo() : undefined;
  const readStore: ReadStore =
    mongoAt >= 0 ? await MongoReadStore.connect(fast?.url ?? args[mongoAt + 1]!) : new SqliteReadStore({ filename: path.join(directory, 'readstore.db') });
  const projections = withoutSearch ? allProjections.filter((projection) => projection !== searchProjection) : allProjections;
  // As the app does on MongoDB: the holder of the lease writes, every write fenced by its epoch.
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const lease = args.includes('--lease') ? new StoreLease({ store: readStore, key: PROJECTIONS_LEASE, logger: silent }) : undefined;
  const batchAt = args.indexOf('--batch');
  const runner = new ProjectionRunner(store, readStore, projections, {
    ...(lease ? { lease } : {}),
    ...(batchAt >= 0 ? { batchEvents: Number(args[batchAt + 1]) } : {}),
  });
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  await runner.start();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  const events = runner.eventsProcessed;
  const peakRssMb = Math.round(process.memoryUsage().rss / 1048576);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const { rss, heapUsed } = process.memoryUsage();
  const result: Record<string, unknown> = {
    events,
    ms: Math.round(ms),
    rate: Math.round(events / (ms / 1000)),
    // The process's CPU (its threads' included) during the replay: steadier than the rate on a shared machine.
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssMb: Math.round(rss / 1048576),
    heapMb: Math.round(heapUsed / 1048576),
    peakRssMb,
  };
  if (fast) {
    const writes = await fast.writes();
    const cpuMs = Math.round(fast.cpuSeconds() * 1000);
    // The documents the replay wrote, per event, and the server's CPU per document: the server's share of the rate's budget.
    result.server = {
      commands: await fast.counters(),
      millis: await fast.millis(),
      cpuMs,
      writes,
      writesPerEvent: writes / events,
      cpuUsPerWrite: (cpuMs * 1000) / writes,
    };
  }
  if (rounds > 0 && !withoutSearch && readStore instanceof SqliteReadStore) {
    const staff = { id: 'bench-agent', role: 'agent' as const };
    const search = (q: string) => searchTickets(readStore, staff, searchQuery.parse({ q }));
    // The list route before: a case-insensitive substring regex over every ticket's title and description, first page of 20 and a count.
    const tickets = readStore.collection(TICKETS);
    const regex = async (q: string) => {
      const pattern = { $regex: escapeRegex(q), $options: 'i' };
      const filter = { $or: [{ title: pattern }, { description: pattern }] };
      await Promise.all([tickets.find(filter, { sort: { createdAt: -1, ticketId: -1 }, limit: 20 }), tickets.count(filter)]);
    };
    // The embedded store builds its ordered index of words at the first range query: timed apart.
    const first = process.hrtime.bigint();
    const sample = await search(ONE_WORD_QUERIES[0]!);
    const firstQueryMs = Number(process.hrtime.bigint() - first) / 1e6;
    result.search = {
      oneWord: await timed(rounds, ONE_WORD_QUERIES, search),
      twoWords: await timed(rounds, TWO_WORD_QUERIES, search),
      regexOneWord: await timed(rounds, ONE_WORD_QUERIES, regex),
      regexTwoWords: await timed(rounds, TWO_WORD_QUERIES, regex),
      sampleTotal: sample.pagination.total,
      firstQueryMs,
      // Entries of the word index: FTS5's rows (one per message and ticket field, docs/search.md), counted by the search projection.
      postings: (readStore.database.prepare('SELECT rows FROM search_fts_stats').get() as { rows: number }).rows,
      indexDocs: (await readStore.collection(SEARCH_TICKETS).count()) + (await readStore.collection(SEARCH_PEOPLE).count()),
    };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await runner.stop();
  await readStore.close();
  await fast?.stop();
  rmSync(directory, { recursive: true, force: true });
  await store.close();
}

void main();
