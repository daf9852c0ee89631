import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { MemoryReadStore } from '../src/platform/readstore/memory';
import { allProjections } from '../src/projections/all';
import { ProjectionRunner } from '../src/projections/runner';

/**
 * Figure 4, in a process of its own: every projection rebuilt from zero over the whole log into a
 * fresh embedded read store, as `npm run projections:rebuild` and a start of the embedded app without a snapshot do.
 *   tsx --conditions=source bench/replay.ts <events.db>   prints { events, ms, rate, rssMb } as JSON
 */
async function main() {
  const store = new SqliteEventStore({ filename: process.argv[2]! });
  const runner = new ProjectionRunner(store, new MemoryReadStore(), allProjections);
  const started = process.hrtime.bigint();
  await runner.start();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const events = runner.eventsProcessed;
  process.stdout.write(
    `${JSON.stringify({ events, ms: Math.round(ms), rate: Math.round(events / (ms / 1000)), rssMb: Math.round(process.memoryUsage().rss / 1048576) })}\n`,
  );
  await runner.stop();
  await store.close();
}

void main();
