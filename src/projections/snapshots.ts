import type { Logger } from 'pino';
import type { EventStore } from '../platform/eventstore/port';
import type { MemoryReadStore } from '../platform/readstore/memory';
import { type LogIdentity, logIdentityAt, readSnapshot, removeTornWrites, writeSnapshot } from '../platform/readstore/snapshot';
import type { ProjectionRunner } from './runner';

/** A start that replayed at least this many events writes a snapshot at once, not only on its period. */
const SNAPSHOT_AFTER_CATCH_UP_EVENTS = 10_000;

const sameIdentity = (a: LogIdentity | null, b: LogIdentity) => a !== null && a.position === b.position && a.eventId === b.eventId && a.link === b.link;

/**
 * Keeps the embedded read models across restarts: `restore` before the runner starts (the runner
 * then replays only the log after the snapshot's checkpoints), a snapshot every `everyMs` while the
 * models changed, and one on a clean stop. A snapshot is frozen at a quiescent point of the runner
 * (`exclusive`), so it is always the models of one log position; a crash falls back to the last
 * complete one and replays the rest.
 */
export class ReadStoreSnapshots {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  /** Position of the newest snapshot on disk (or restored from). */
  private savedAt = -1;

  constructor(
    private readonly dataDir: string,
    private readonly store: MemoryReadStore,
    private readonly events: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly logger: Logger,
    private readonly everyMs: number,
  ) {}

  /** Loads the snapshot into the store if it is sound and of this log; otherwise leaves the store empty. */
  async restore(): Promise<boolean> {
    const started = Date.now();
    const torn = await removeTornWrites(this.dataDir);
    if (torn.length > 0) this.logger.warn({ files: torn }, 'removed snapshot writes a stopped process left unfinished');
    const loaded = await readSnapshot(this.dataDir);
    if (!loaded.ok) {
      if (loaded.reason === 'no snapshot') this.logger.info('no read store snapshot: read models are built from the log');
      else this.logger.warn({ reason: loaded.reason }, 'read store snapshot refused: read models are rebuilt from the log');
      return false;
    }
    const current = await logIdentityAt(this.events, loaded.identity.position);
    if (!sameIdentity(current, loaded.identity)) {
      this.logger.warn(
        { snapshot: loaded.identity, log: current },
        'read store snapshot is of another event log (or a longer one): read models are rebuilt from the log',
      );
      return false;
    }
    try {
      await this.store.restore(loaded.collections);
    } catch (error) {
      await this.store.restore([]);
      this.logger.warn({ err: error }, 'read store snapshot could not be restored: read models are rebuilt from the log');
      return false;
    }
    this.savedAt = loaded.identity.position;
    this.logger.info({ position: loaded.identity.position, bytes: loaded.bytes, ms: Date.now() - started }, 'read models restored from snapshot');
    return true;
  }

  /**
   * After the catch-up: a snapshot now if the start replayed much (in the background: the desk is
   * ready meanwhile), then one per period while the models change.
   */
  started(): void {
    if (this.runner.eventsProcessed >= SNAPSHOT_AFTER_CATCH_UP_EVENTS) void this.save();
    this.timer = setInterval(() => void this.save(), this.everyMs);
    this.timer.unref();
  }

  /** Writes a snapshot if the models moved since the last one; one at a time, failures only logged. */
  save(): Promise<void> {
    this.writing ??= this.saveNow().finally(() => (this.writing = null));
    return this.writing;
  }

  /**
   * The models are frozen between two event applications (a few milliseconds), then written while
   * the projections go on: a write meanwhile changes a copy of the document, not the frozen one.
   */
  private async saveNow(): Promise<void> {
    try {
      const frozen = await this.runner.exclusive(async () => {
        const position = this.runner.position;
        if (position === this.savedAt) return null;
        const identity = await logIdentityAt(this.events, position);
        return identity ? { identity, collections: this.store.freeze() } : null;
      });
      if (!frozen) return;
      const started = Date.now();
      try {
        const { bytes, docs } = await writeSnapshot(this.dataDir, frozen.collections, frozen.identity);
        this.savedAt = frozen.identity.position;
        this.logger.info({ position: frozen.identity.position, docs, bytes, ms: Date.now() - started }, 'read store snapshot written');
      } finally {
        this.store.thaw();
      }
    } catch (error) {
      this.logger.error({ err: error }, 'read store snapshot failed; the previous one stays');
    }
  }

  /** On a clean stop, once the runner stopped: the last snapshot, so the next start replays nothing. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writing;
    await this.save();
  }
}
