import { SingleBar, Presets } from 'cli-progress';
import { createAdapters } from '../platform/adapters';
import { loadConfig } from '../platform/config';
import { allProjections } from '../projections/all';
import { ProjectionRunner } from '../projections/runner';

/**
 * `npm run projections:rebuild`: drops every read model and replays the whole log into it. With the
 * embedded read store (rebuilt in memory at every start anyway) this measures and checks a replay;
 * with MONGO_URL it rebuilds the shared collections in place.
 */
async function main() {
  const config = loadConfig();
  const adapters = await createAdapters(config);
  const { events, readStore } = adapters;
  const head = await events.headPosition();
  console.log(`Rebuilding ${allProjections.length} read models (${allProjections.map((p) => p.name).join(', ')}) into ${readStore.kind} from ${events.kind}`);
  const bar = new SingleBar({ format: ' {bar} {percentage}% | position {value}/{total} | {events} events', hideCursor: true }, Presets.shades_classic);
  bar.start(Math.max(head, 1), 0, { events: 0 });
  const runner = new ProjectionRunner(events, readStore, allProjections);
  const started = process.hrtime.bigint();
  await runner.rebuild((progress) => bar.update(Math.min(progress.position, head), { events: progress.events }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  bar.update(Math.max(head, 1), { events: runner.eventsProcessed });
  bar.stop();
  await runner.stop();
  const rate = seconds > 0 ? Math.round(runner.eventsProcessed / seconds) : runner.eventsProcessed;
  console.log(`Rebuilt from ${runner.eventsProcessed} events in ${seconds.toFixed(2)} s (${rate} events/s).`);
  for (const projection of allProjections) {
    for (const name of projection.collections) console.log(`  ${name}: ${await readStore.collection(name).count()} documents`);
  }
  await adapters.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
