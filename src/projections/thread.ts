import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { SqliteEventStore } from '../platform/eventstore/sqlite';
import type { Lease } from '../platform/lease';
import type { WriterWord } from './runner';

/** What the app's thread gives the projection thread (threadMain.ts). */
export interface ThreadSettings {
  eventsFile: string;
  readStoreFile: string;
  lockFile: string;
  logLevel: string;
  logFormat: string;
  stallAfterMs: number;
}

/** What the projection thread says. */
export type ThreadMessage = { type: 'lease'; held: boolean } | { type: 'live' } | ({ type: 'moved' } & WriterWord) | { type: 'failed'; error: string };

/** What the app's thread says to it. */
export type HostMessage = { type: 'appended' } | { type: 'stop' };

/**
 * The thread's entry beside this file: compiled (dist), or from source (`npm run dev`, the tests), where
 * the thread compiles what it loads with tsx as the app's thread does (Node's `--import` hooks do not
 * reach a worker thread) and resolves `#contract/*` to the sources.
 */
const COMPILED = path.extname(__filename) === '.js';
const ENTRY = path.join(__dirname, `threadMain${path.extname(__filename)}`);
const FROM_SOURCE = `require(require.resolve('tsx/cjs/api', { paths: [${JSON.stringify(__dirname)}] })).register(); require(${JSON.stringify(ENTRY)});`;

/** How long a stop waits for the thread to store its checkpoints and close before it is ended. */
const STOP_WAIT_MS = 10_000;

/**
 * The projection runner's writer on a thread of its own (docs/readstore.md, "The projection thread"):
 * it takes the read store's file lock and applies the log into readstore.db on connections of its
 * own, so the pages' work, their commits and their garbage leave the thread that answers requests
 * and pushes. The app's runner follows it as it follows another process on the DATA_DIR, told of
 * each commit at once (`onMoved`) rather than by reading the checkpoints every 50 ms; it tells the
 * thread of each append, which its log reader would otherwise see at its next poll. A thread that
 * ends unexpectedly frees the lock, and the app's runner, which does not try it while the thread
 * lives (`AfterThreadLease`), takes it and applies the log itself from then on.
 */
export class ProjectionThread {
  private readonly worker: Worker;
  private readonly listeners = new Set<(word: WriterWord) => void>();
  private readonly exited: Promise<void>;
  private readonly unlisten: () => void;
  private stopping = false;
  private ended = false;
  private readonly onEnd = new Set<() => void>();
  /** What the thread last told. */
  private word: WriterWord = { processed: 0, pages: 0, retrying: null };
  /** Resolves once the thread has tried the lock: whether it holds it (false: another process on the DATA_DIR applies the log). */
  readonly ready: Promise<boolean>;
  /**
   * Resolves once the thread's runner has caught up with the log and done what a catch-up leaves (the
   * search index's merge after a rebuild: seconds at a million events), or the thread ended: the app
   * serves after it, as it does after its own runner's catch-up.
   */
  readonly live: Promise<void>;

  /** Whether the thread's entry is there. */
  static get available(): boolean {
    return existsSync(ENTRY);
  }

  constructor(settings: ThreadSettings, events: SqliteEventStore, logger: Logger) {
    this.worker = COMPILED
      ? new Worker(ENTRY, { workerData: settings, name: 'projections' })
      : new Worker(FROM_SOURCE, { eval: true, workerData: settings, name: 'projections', execArgv: [...process.execArgv, '--conditions=source'] });
    let answer: (held: boolean) => void = () => undefined;
    this.ready = new Promise<boolean>((resolve) => (answer = resolve));
    let caughtUp: () => void = () => undefined;
    this.live = new Promise<void>((resolve) => (caughtUp = resolve));
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'lease') answer(message.held);
      else if (message.type === 'live') caughtUp();
      else if (message.type === 'moved') this.tell((this.word = message));
      else if (message.type === 'failed') {
        logger.error({ error: message.error }, 'the projection thread could not start: the app applies the log on its own thread');
        answer(false);
      }
    });
    this.worker.on('error', (error) => logger.error({ err: error }, 'the projection thread failed: the app applies the log on its own thread'));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        answer(false);
        caughtUp();
        this.ended = true;
        // What it applied still counts; a catch-up it was retrying is no longer anybody's trouble.
        this.tell({ processed: this.word.processed, pages: this.word.pages, retrying: null });
        for (const listener of this.onEnd) listener();
        if (!this.stopping) logger.error({ code }, 'the projection thread ended: the app applies the log on its own thread');
        resolve();
      }),
    );
    // Group commit tells once per transaction of appends.
    this.unlisten = events.onAppend(() => this.worker.postMessage({ type: 'appended' } satisfies HostMessage));
  }

  private tell(word: WriterWord): void {
    for (const listener of this.listeners) listener(word);
  }

  /** Whether the thread has ended (stopped, or ended abruptly). */
  get alive(): boolean {
    return !this.ended;
  }

  /** Calls `listener` once the thread has ended. */
  whenEnded(listener: () => void): void {
    if (this.ended) listener();
    else this.onEnd.add(listener);
  }

  /** Calls `listener` after each page the thread commits (the runner's `sharedMoved`). */
  onMoved(listener: (word: WriterWord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Ends the thread at once, as a fatal error in it would: SQLite closes its connections as the thread
   * goes, so the lock is free for the app's runner to take (the fault tests end it so).
   */
  async end(): Promise<void> {
    await this.worker.terminate();
  }

  /** Stops the thread's runner (its checkpoints stored, the lock released) and waits for the thread to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unlisten();
    this.worker.postMessage({ type: 'stop' } satisfies HostMessage);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WAIT_MS)));
    if ((await Promise.race([this.exited, late])) === 'late') await this.worker.terminate();
    clearTimeout(timer);
  }
}

/**
 * The app runner's lease while its process has a projection thread: not tried while the thread lives
 * (it holds the file lock, or waits for another process's as this runner would), the file lock as any
 * process's once the thread has ended. So the thread, not the app's thread, takes over from another
 * process on the DATA_DIR that stops.
 */
export class AfterThreadLease implements Lease {
  readonly exclusive = true;
  private started = false;

  constructor(
    private readonly lock: Lease,
    private readonly thread: ProjectionThread,
  ) {
    thread.whenEnded(() => {
      if (this.started) void this.lock.start();
    });
  }

  get held(): boolean {
    return this.lock.held;
  }

  get epoch(): number {
    return this.lock.epoch;
  }

  get surelyHeld(): boolean {
    return this.lock.surelyHeld;
  }

  onChange(listener: (held: boolean) => Promise<void> | void): () => void {
    return this.lock.onChange(listener);
  }

  async start(): Promise<void> {
    this.started = true;
    if (!this.thread.alive) await this.lock.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.lock.stop();
  }

  giveBack(pauseMs: number): Promise<void> {
    return this.lock.giveBack(pauseMs);
  }
}
