import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from './platform/logger';
import { countAppends, createMetrics } from './platform/metrics';
import type { AppDeps } from './app/deps';
import { Startup } from './app/startup';
import { type Adapters, EVENTS_FILE, READSTORE_FILE, READSTORE_LOCK_FILE, createAdapters } from './platform/adapters';
import type { Config } from './platform/config';
import type { EventStore } from './platform/eventstore/port';
import { Keyring } from './platform/keyring';
import { loadJwtSecret } from './platform/secrets';
import { allProjections } from './projections/all';
import { PROJECTIONS_LEASE, ProjectionRunner, type WriterWord } from './projections/runner';
import { AfterThreadLease, ProjectionThread } from './projections/thread';
import { SqliteEventStore } from './platform/eventstore/sqlite';
import { runnerReports } from './projections/reports';
import { Generations } from './projections/generations';
import { FileLease, type Lease, StoreLease } from './platform/lease';

export interface RuntimeOptions {
  logger?: Logger;
  clock?: () => Date;
  /** An event log built by the caller instead of the one the configuration picks (tests wrap one). */
  events?: EventStore;
}

export interface Runtime {
  deps: AppDeps;
  adapters: Adapters;
  /** Brings the read models up to the head of the log and follows it live from there. */
  catchUp(): Promise<void>;
  /** Stops the projections and releases every adapter. */
  close(): Promise<void>;
}

/** Where the heap read store was saved before it moved to SQLite (docs/readstore.md, "Moving from the snapshot"). */
const OLD_SNAPSHOT_FILE = 'readstore.snapshot';

/** Catch-up progress is logged at most this often. */
const PROGRESS_LOG_EVERY_MS = 10_000;

/**
 * What every process of the desk needs, the app and `npm run workers` alike: the adapters the
 * configuration picks and a projection runner, not yet started (see `catchUp`).
 */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const adapters = await createAdapters(config, { logger, ...(options.events ? { events: options.events } : {}) });
  const { queue, limiters } = adapters;
  // On a shared (MongoDB) store each set of projection versions keeps its read models under names of its own.
  const generations = adapters.readStore.kind === 'mongodb' ? new Generations(adapters.readStore, allProjections) : null;
  const readStore = generations ? generations.store() : adapters.readStore;
  await generations?.register();
  const metrics = createMetrics();
  const events = countAppends(adapters.events, metrics.eventsAppended);
  // The writer of readstore.db on a thread of its own (thread.ts): the app's runner follows it.
  const thread =
    readStore.kind === 'sqlite' && config.PROJECTIONS_THREAD && adapters.events instanceof SqliteEventStore && !options.events && ProjectionThread.available
      ? new ProjectionThread(
          {
            eventsFile: path.join(config.DATA_DIR, EVENTS_FILE),
            readStoreFile: path.join(config.DATA_DIR, READSTORE_FILE),
            lockFile: path.join(config.DATA_DIR, READSTORE_LOCK_FILE),
            logLevel: config.LOG_LEVEL,
            logFormat: config.LOG_FORMAT,
            stallAfterMs: config.PROJECTION_STALL_MS,
          },
          adapters.events,
          logger,
        )
      : null;
  // A MongoDB read store is shared by every process of the deployment, the SQLite file by every process
  // on its DATA_DIR (the app, `npm run workers`, a second app): one of them, the holder of a lease (kept
  // in MongoDB, or a lock on a file beside the SQLite one), applies the log; the others follow its checkpoints.
  const lease =
    readStore.kind === 'mongodb'
      ? new StoreLease({
          store: readStore,
          key: PROJECTIONS_LEASE,
          ttlMs: config.PROJECTIONS_LEASE_TTL_MS,
          logger,
          ...(generations ? { epochs: generations.epochs() } : {}),
        })
      : readStore.kind === 'sqlite'
        ? afterThread(new FileLease({ filename: path.join(config.DATA_DIR, READSTORE_LOCK_FILE), key: PROJECTIONS_LEASE, logger }), thread)
        : undefined;
  const projections = new ProjectionRunner(events, readStore, allProjections, {
    ...(lease ? { lease } : {}),
    ...(thread ? { sharedMoved: (listener: (word: WriterWord) => void) => thread.onMoved(listener) } : {}),
    ...(generations ? { ownership: generations } : {}),
    ...runnerReports(logger),
    stallAfterMs: config.PROJECTION_STALL_MS,
  });
  // Before the read models moved to readstore.db, the embedded store was saved to this file: the first start on SQLite replays the log instead.
  if (readStore.kind === 'sqlite' && existsSync(path.join(config.DATA_DIR, OLD_SNAPSHOT_FILE)))
    logger.info(
      { file: path.join(config.DATA_DIR, OLD_SNAPSHOT_FILE) },
      'the read models are kept in readstore.db now: readstore.snapshot is no longer read and can be deleted',
    );
  const deps: AppDeps = {
    config,
    events,
    readStore,
    queue,
    limiters,
    projections,
    projectionThread: thread,
    startup: new Startup(),
    logger,
    metrics,
    jwtSecret: loadJwtSecret(config.DATA_DIR, config.JWT_SECRET),
    keyring: Keyring.open(config.DATA_DIR),
    clock: options.clock ?? (() => new Date()),
    newId: randomUUID,
  };
  let retire: NodeJS.Timeout | null = null;
  return {
    deps,
    adapters,
    async catchUp() {
      const started = Date.now();
      void thread?.ready.then((applying) => logger.info({ applying }, applying ? 'projection thread applying the log' : 'projection thread following'));
      let logged = started;
      await projections.start((progress) => {
        if (Date.now() - logged < PROGRESS_LOG_EVERY_MS) return;
        logged = Date.now();
        logger.info({ events: progress.events, position: progress.position, head: progress.head }, 'read models catching up');
      });
      // Its positions reached the head: the thread may still be doing what its catch-up leaves.
      await thread?.live;
      logger.info({ events: projections.eventsProcessed, ms: Date.now() - started }, 'read models caught up');
      if (generations) retire = retireOldGenerations(generations, projections, logger);
    },
    async close() {
      if (retire) clearInterval(retire);
      await projections.stop();
      await thread?.stop();
      await adapters.close();
    },
  };
}

/** With a projection thread, the app's runner tries the file lock only once the thread has ended. */
const afterThread = (lock: Lease, thread: ProjectionThread | null): Lease => (thread ? new AfterThreadLease(lock, thread) : lock);

/** Another generation's read models are dropped once its lease has been free this long (docs/read-models.md). */
const GENERATION_RETIRED_AFTER_MS = 5 * 60_000;

/** Now and every minute, the process that applies the log drops the read models of generations no process runs any more. */
function retireOldGenerations(generations: Generations, projections: ProjectionRunner, logger: Logger): NodeJS.Timeout {
  const sweep = () => {
    if (!projections.isWriter) return;
    generations
      .dropRetired(GENERATION_RETIRED_AFTER_MS)
      .then((dropped) => (dropped.length > 0 ? logger.info({ generations: dropped }, 'dropped the read models of retired generations') : undefined))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not drop retired read-model generations'));
  };
  sweep();
  const timer = setInterval(sweep, 60_000);
  timer.unref();
  return timer;
}

/** A runtime with its read models caught up (the workers process: it serves no HTTP while starting). */
export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const runtime = await createRuntime(config, options);
  await runtime.catchUp();
  runtime.deps.startup.markReady();
  return runtime;
}
