import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../platform/logger';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import { FileLease } from '../platform/lease';
import { allProjections } from './all';
import { PROJECTIONS_LEASE, ProjectionRunner } from './runner';
import { runnerReports } from './reports';
import type { HostMessage, ThreadMessage, ThreadSettings } from './thread';

/**
 * The projection thread (thread.ts): the writer of the read models, on connections of its own to
 * events.db (read only here) and readstore.db, holding the file lock as a process on the DATA_DIR does.
 */
const settings = workerData as ThreadSettings;
const port = parentPort!;
const say = (message: ThreadMessage) => port.postMessage(message);
const logger = createLogger({ level: settings.logLevel as 'info', format: settings.logFormat as 'auto' }).child({ thread: 'projections' });

/** The lock, telling the app's thread how its first try went (it starts its own runner after that). */
class ThreadFileLease extends FileLease {
  override async start(): Promise<void> {
    await super.start();
    say({ type: 'lease', held: this.held });
  }
}

/** Catch-up progress is logged at most this often. */
const PROGRESS_LOG_EVERY_MS = 10_000;

/** How often the thread says what it applied while nothing commits (a catch-up being retried shows in health). */
const TELL_EVERY_MS = 1000;

async function main() {
  // The app's connection appends and runs the log's background checkpoints; this one only reads.
  const events = new SqliteEventStore({ filename: settings.eventsFile, backgroundCheckpoints: false });
  const store = new SqliteReadStore({ filename: settings.readStoreFile, logger, backgroundCheckpoints: false });
  const lease = new ThreadFileLease({ filename: settings.lockFile, key: PROJECTIONS_LEASE, logger });
  const tell = () => say({ type: 'moved', processed: runner.eventsProcessed, pages: runner.pagesApplied, retrying: runner.trouble().retrying });
  // Right after a commit the positions are the ones it stored (the next page starts after this); the timer's word, which may come in the middle of a page's transaction, carries none.
  const committed = () =>
    say({
      type: 'moved',
      processed: runner.eventsProcessed,
      pages: runner.pagesApplied,
      retrying: runner.trouble().retrying,
      positions: Object.fromEntries(runner.positionsByName.map(({ name, position }) => [name, position])),
    });
  const runner: ProjectionRunner = new ProjectionRunner(events, store, allProjections, {
    lease,
    ...runnerReports(logger),
    stallAfterMs: settings.stallAfterMs,
    onCommitted: committed,
  });
  const timer = setInterval(tell, TELL_EVERY_MS);
  let stopping: Promise<void> | null = null;
  port.on('message', (message: HostMessage) => {
    if (message.type === 'appended') events.appendedElsewhere();
    else if (message.type === 'stop')
      stopping ??= (async () => {
        clearInterval(timer);
        await runner.stop();
        await events.close();
        await store.close();
        port.close();
      })().catch((error: unknown) => {
        logger.error({ err: error }, 'the projection thread could not stop cleanly');
        process.exit(1);
      });
  });
  const started = Date.now();
  let logged = started;
  await runner.start((progress) => {
    if (Date.now() - logged < PROGRESS_LOG_EVERY_MS) return;
    logged = Date.now();
    logger.info({ events: progress.events, position: progress.position, head: progress.head }, 'read models catching up');
  });
  logger.info({ events: runner.eventsProcessed, ms: Date.now() - started }, 'projection thread caught up');
  say({ type: 'live' });
}

main().catch((error: unknown) => {
  say({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
