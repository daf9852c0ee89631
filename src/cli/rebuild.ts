import { Presets, SingleBar } from 'cli-progress';
import path from 'node:path';
import { READSTORE_LOCK_FILE, createAdapters } from '../platform/adapters';
import { type Config, loadConfig } from '../platform/config';
import type { ReadStore } from '../platform/readstore/port';
import { allProjections } from '../projections/all';
import { MemoryReadStore } from '../platform/readstore/memory';
import { type ProjectionCheck, checkProjections, describeCheck, replayInto } from '../projections/check';
import { CHECKPOINTS, PROJECTIONS_LEASE, ProjectionRunner, type ReplayProgress } from '../projections/runner';
import { FileLease, LEASES, StoreLease } from '../platform/lease';
import type { EventStore } from '../platform/eventstore/port';
import { Generations } from '../projections/generations';
import pino from 'pino';

/**
 * `npm run projections:rebuild`: replays the whole log from zero into fresh read models, with a
 * progress bar, and checks that they equal the live ones.
 * - With MONGO_URL the live read models are the shared collections: they are compared at their
 *   checkpoint; `-- --write` then rebuilds them in place as the leader of the read models: it takes
 *   their lease (refusing while a running app holds it: stop the apps first) and writes under the
 *   lease's epoch, so that a stalled old leader cannot write among its writes, nor it among a later
 *   leader's (docs/read-models.md "Fenced writes").
 * - With the embedded SQLite file (DATA_DIR/readstore.db) the same, the file's lock standing for the lease.
 * - With READSTORE=memory the live models exist only inside the running app: the rebuild
 *   runs here, and the app is asked to compare its own (GET /api/audit/projections, signing in as
 *   ADMIN_EMAIL / ADMIN_PASSWORD at APP_URL, default http://127.0.0.1:PORT).
 * Exit code 1 when they differ.
 */

const progressBar = (label: string) => {
  const bar = new SingleBar({ format: ` ${label} {bar} {percentage}% | position {value}/{total} | {events} events`, hideCursor: true }, Presets.shades_classic);
  return {
    start: (total: number) => bar.start(Math.max(total, 1), 0, { events: 0 }),
    update: (progress: ReplayProgress) => bar.update(Math.min(progress.position, Math.max(progress.head, 1)), { events: progress.events }),
    stop: () => bar.stop(),
  };
};

async function livePosition(readStore: ReadStore, generations: Generations | null): Promise<number | null> {
  const checkpoints = await readStore.collection<{ _id: string; version: number; position: number }>(CHECKPOINTS).find({});
  const idOf = (name: string) => generations?.checkpointId(name) ?? name;
  const current = allProjections.map((projection) => checkpoints.find((c) => c._id === idOf(projection.name) && c.version === projection.version));
  if (current.some((checkpoint) => !checkpoint)) return null;
  return Math.min(...current.map((checkpoint) => checkpoint!.position));
}

function report(check: ProjectionCheck, where: string): number {
  console.log(`Compared with ${where} at position ${check.position} (${check.events} events):`);
  for (const line of describeCheck(check)) console.log(line);
  if (check.ok) {
    console.log('The rebuilt read models equal the live ones.');
    return 0;
  }
  console.log(
    check.liveMovedOn
      ? 'They differ, but the live models moved on during the check: run it again when the desk is quiet.'
      : 'They DIFFER: the live read models do not match the log.',
  );
  return 1;
}

async function askRunningApp(config: Config): Promise<ProjectionCheck | string> {
  const base = process.env.APP_URL ?? `http://127.0.0.1:${config.PORT}`;
  if (!config.ADMIN_PASSWORD) return `set ADMIN_PASSWORD (and ADMIN_EMAIL) so this command can ask the app at ${base} to compare`;
  try {
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD }),
    });
    if (!login.ok) return `the app at ${base} refused the sign-in of ${config.ADMIN_EMAIL} (${login.status})`;
    const { accessToken } = (await login.json()) as { accessToken: string };
    const answer = await fetch(`${base}/api/audit/projections`, { headers: { authorization: `Bearer ${accessToken}` } });
    if (!answer.ok) return `the app at ${base} answered ${answer.status}`;
    return (await answer.json()) as ProjectionCheck;
  } catch (error) {
    return `no app answers at ${base} (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Rebuilds the models as their leader (a runner holding their lease: a running app holds it while it
 * applies the log, and then nothing is written): on MongoDB under the lease's epoch, raising the
 * fence, so every write is fenced like an app's. Answers the events applied, or null if refused.
 */
async function writeInPlace(events: EventStore, readStore: ReadStore, config: Config, generations: Generations | null, head: number): Promise<number | null> {
  const logger = pino({ level: 'silent' });
  const lease = generations
    ? new StoreLease({ store: readStore, key: PROJECTIONS_LEASE, ttlMs: config.PROJECTIONS_LEASE_TTL_MS, logger, epochs: generations.epochs() })
    : new FileLease({ filename: path.join(config.DATA_DIR, READSTORE_LOCK_FILE), key: PROJECTIONS_LEASE, logger });
  // Asked first without taking part: a process that does not win the lease would wait for the holder to catch up.
  if (generations && (await leaseHeldByOther(readStore))) return null;
  const runner = new ProjectionRunner(events, readStore, allProjections, { lease, ...(generations ? { ownership: generations } : {}) });
  try {
    await runner.start();
    if (!runner.isWriter) return null;
    const bar = progressBar('write  ');
    bar.start(head);
    await runner.rebuild(bar.update);
    bar.stop();
    return runner.eventsProcessed;
  } finally {
    await runner.stop();
  }
}

async function leaseHeldByOther(readStore: ReadStore): Promise<boolean> {
  const lease = await readStore.collection<{ _id: string; expiresAt: number }>(LEASES).findOne({ _id: PROJECTIONS_LEASE });
  return lease !== null && lease.expiresAt > Date.now();
}

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const adapters = await createAdapters(config);
  const { events } = adapters;
  // The models of this version's generations on a shared store (the ones this code's apps serve).
  const generations = adapters.readStore.kind === 'mongodb' ? new Generations(adapters.readStore, allProjections) : null;
  const readStore = generations?.store() ?? adapters.readStore;
  try {
    const head = await events.headPosition();
    console.log(`Rebuilding ${allProjections.length} projections (${allProjections.map((p) => p.name).join(', ')}) from ${events.kind}, ${head} positions.`);
    // Models on the heap are rebuilt apart and compared with the running app's; a store of its own (MongoDB, the SQLite file) is compared and written in place.
    if (readStore.kind === 'memory') {
      const bar = progressBar('rebuild');
      bar.start(head);
      const started = Date.now();
      const rebuilt = new MemoryReadStore();
      const count = await replayInto(events, allProjections, rebuilt, head, bar.update);
      bar.stop();
      let documents = 0;
      for (const name of allProjections.flatMap((p) => p.collections)) documents += await rebuilt.collection(name).count();
      const seconds = (Date.now() - started) / 1000;
      console.log(`Rebuilt ${documents} documents from ${count} events in ${seconds.toFixed(2)} s (${Math.round(count / Math.max(seconds, 0.001))} events/s).`);
      const answer = await askRunningApp(config);
      if (typeof answer === 'string') {
        console.log(`Not compared with live read models: the embedded ones live inside the running app, and ${answer}.`);
        return 0;
      }
      return report(answer, "the running app's read models (rebuilt again inside the app)");
    }

    const live = await livePosition(readStore, generations);
    let code = 0;
    if (live === null) {
      console.log('The live read models have no current checkpoints yet: nothing to compare.');
    } else {
      const bar = progressBar('rebuild');
      bar.start(live);
      const check = await checkProjections(events, allProjections, readStore, {
        livePosition: async () => (await livePosition(readStore, generations)) ?? live,
        onProgress: bar.update,
      });
      bar.stop();
      code = report(check, `the live ${readStore.kind} read models`);
    }
    if (args.includes('--write') || live === null) {
      if (generations) await generations.register();
      const written = await writeInPlace(events, readStore, config, generations, head);
      if (written === null) {
        console.log('A running app holds the read models (their lease): stop the apps first, then run this again.');
        return 1;
      }
      console.log(`Rebuilt the ${readStore.kind} read models in place from ${written} events.`);
    } else if (code !== 0) {
      console.log('Run again with `-- --write` to replace them with the rebuilt ones.');
    }
    return code;
  } finally {
    await adapters.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
