import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { searchQuery } from '#contract/search';
import { searchTickets } from '../src/app/search/service';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { SqliteReadStore } from '../src/platform/readstore/sqlite';
import { allProjections } from '../src/projections/all';
import { ProjectionRunner } from '../src/projections/runner';
import { type TicketView, TICKETS } from '../src/projections/tickets';
import { ONE_WORD_QUERIES, TWO_WORD_QUERIES } from './text';

/**
 * The search figure's queries (bench/run.ts, figure 9) timed on a read store kept between runs, so a
 * change of the search engine is measured against the same desk without rebuilding everything:
 *   tsx --conditions=source bench/searchQueries.ts <events.db> <directory> [--rounds 20]
 * The first run builds `<directory>/readstore.db` from the log (a changed search projection rebuilds
 * that model alone); each run then times the service as an agent and as a customer, one and two words,
 * with the event loop's longest delay while they run, and prints them as JSON.
 */
const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '20' } } });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const round = (ms: number) => Math.round(ms * 10) / 10;

async function timed(rounds: number, queries: string[], run: (q: string) => Promise<unknown>) {
  const times: number[] = [];
  const cpu: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  for (let at = 0; at < rounds; at++)
    for (const q of queries) {
      const started = process.hrtime.bigint();
      const used = process.cpuUsage();
      await run(q);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      const { user, system } = process.cpuUsage(used);
      cpu.push((user + system) / 1000);
      // A turn of the loop between queries, as between requests, so the monitor sees each query's block alone.
      await new Promise((resolve) => setImmediate(resolve));
    }
  delay.disable();
  // The CPU time a query takes is the time it holds the event loop when it has the CPU: steadier than the wall clock on a shared machine.
  return {
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    cpuP50: round(percentile(cpu, 50)),
    cpuP99: round(percentile(cpu, 99)),
    cpuMax: round(Math.max(...cpu)),
    loopMaxMs: round(delay.max / 1e6),
  };
}

async function main() {
  const [events, directory] = positionals as [string, string];
  const rounds = Number(values.rounds);
  mkdirSync(directory, { recursive: true });
  const log = new SqliteEventStore({ filename: events });
  const store = new SqliteReadStore({ filename: path.join(directory, 'readstore.db') });
  const runner = new ProjectionRunner(log, store, allProjections);
  const started = Date.now();
  await runner.start();
  const catchUpMs = Date.now() - started;
  await runner.stop();
  // A customer with many tickets: the one of the newest ticket.
  const newest = await store.collection<TicketView>(TICKETS).find({}, { sort: { updatedAt: -1, ticketId: -1 }, limit: 1 });
  const customer = { id: newest[0]!.customer._id, role: 'customer' as const };
  const staff = { id: 'bench-agent', role: 'agent' as const };
  const as = (searcher: typeof staff | typeof customer) => (q: string) => searchTickets(store, searcher, searchQuery.parse({ q }));
  const first = process.hrtime.bigint();
  await as(staff)(ONE_WORD_QUERIES[0]!);
  const result = {
    catchUpMs,
    firstQueryMs: round(Number(process.hrtime.bigint() - first) / 1e6),
    staffOneWord: await timed(rounds, ONE_WORD_QUERIES, as(staff)),
    staffTwoWords: await timed(rounds, TWO_WORD_QUERIES, as(staff)),
    customerOneWord: await timed(rounds, ONE_WORD_QUERIES, as(customer)),
    customerTwoWords: await timed(rounds, TWO_WORD_QUERIES, as(customer)),
    perQuery: {} as Record<string, { p50: number; cpuP50: number; total: number }>,
  };
  // Each query alone, sequentially: which ones are slow, and how many tickets each matches.
  for (const q of [...ONE_WORD_QUERIES, ...TWO_WORD_QUERIES]) {
    const timing = await timed(Math.max(1, Math.floor(rounds / 4)), [q], as(staff));
    result.perQuery[q] = { p50: timing.p50, cpuP50: timing.cpuP50, total: (await as(staff)(q)).pagination.total };
  }
  process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  await store.close();
  await log.close();
}

void main();
