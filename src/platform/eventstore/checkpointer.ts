import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * WAL checkpoints off the writer's thread. SQLite copies the write-ahead log back into the database
 * file when a commit finds the log past `wal_autocheckpoint` pages, inside that commit, on the thread
 * that committed: the event loop, stalled for the copy and two fsyncs (a chat load of 2,000 posts a
 * second crossed 1,000 pages several times a second, about 8 ms each).
 *
 * Here a worker thread with a connection of its own runs PASSIVE checkpoints every `intervalMs`:
 * they copy what is committed without blocking writers or readers, and sync in the worker. The
 * store's own connection keeps an automatic checkpoint at a higher mark, as the bound on the log's
 * size: SQLite only rewinds the log when a checkpoint finds nothing left to copy and no writer in
 * between, which a worker racing a steady stream of commits seldom sees, so the commit that crosses
 * the mark still checkpoints, but finds almost everything copied and synced already.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** How long a stop waits for the worker's last checkpoint before ending the thread. */
const STOP_WAIT_MS = 5000;

export interface CheckpointerOptions {
  filename: string;
  intervalMs: number;
  /** Told when a checkpoint fails (the file is busy or gone); the next one is tried all the same. */
  onError?: (message: string) => void;
}

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly onError: ((message: string) => void) | undefined;

  constructor(options: CheckpointerOptions) {
    this.onError = options.onError;
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { filename: options.filename, intervalMs: options.intervalMs, driver: require.resolve('better-sqlite3') },
    });
    // A process may end without closing its store: the worker does not keep it alive.
    this.worker.unref();
    this.worker.on('message', (message: { error?: string }) => {
      if (message.error) options.onError?.(message.error);
    });
    this.worker.on('error', (error) => options.onError?.(error.message));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /**
   * Runs a last checkpoint, closes the worker's connection and waits for the thread to end; a thread
   * that has not ended within STOP_WAIT_MS (stuck in a checkpoint a reader holds up) is terminated,
   * so closing a store never hangs the process (the log stays intact: a checkpoint only copies).
   */
  async stop(): Promise<void> {
    // Waited for: the process stays up until the thread has closed its connection.
    this.worker.ref();
    this.worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WAIT_MS)));
    const ended = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (ended === 'late') {
      this.onError?.(`the checkpoint worker did not stop within ${STOP_WAIT_MS} ms and was terminated`);
      await this.worker.terminate();
      await this.exited;
    }
  }
}

/**
 * Checkpoint interval of the worker, and the log size (pages) at which a commit checkpoints itself.
 * Not shorter: a checkpoint copies each page's last version, and under load the same pages (a
 * table's last leaf, the checkpoints' row) change in every commit; at 50 ms the two files' workers
 * spent 1.4 ms of CPU per posted message copying them (docs/benchmark.md), at 500 ms 0.3 ms.
 */
const CHECKPOINT_EVERY_MS = 500;
const CHECKPOINT_MARK_PAGES = 4000;

/**
 * Moves a file's WAL checkpoints to a worker (the event log's and the read store's alike): the
 * connection's own automatic checkpoint is raised to the mark, the log's size bounded at twice it.
 */
export function checkpointInBackground(db: Database.Database, filename: string, onError?: (message: string) => void): BackgroundCheckpointer {
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_MARK_PAGES}`);
  // A log that grew past the mark (a long read held the copy back) shrinks again at its next rewind.
  db.pragma(`journal_size_limit = ${2 * CHECKPOINT_MARK_PAGES * 4096}`);
  return new BackgroundCheckpointer({ filename, intervalMs: CHECKPOINT_EVERY_MS, ...(onError ? { onError } : {}) });
}
