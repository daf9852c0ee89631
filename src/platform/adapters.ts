import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { EventStoreDbEventStore } from './eventstore/eventstoredb';
import type { EventStore } from './eventstore/port';
import { SqliteEventStore } from './eventstore/sqlite';
import { BullMqQueue } from './queue/bullmq';
import { InlineQueue } from './queue/inline';
import type { Queue, QueueLogger } from './queue/port';
import { type RateLimiterFactory, memoryRateLimiters, redisRateLimiters } from './ratelimit';
import { PRIVATE_DIR_MODE } from './files';
import { MemoryReadStore } from './readstore/memory';
import { MongoReadStore } from './readstore/mongodb';
import type { ReadStore } from './readstore/port';
import { SqliteReadStore } from './readstore/sqlite';

export interface Adapters {
  events: EventStore;
  readStore: ReadStore;
  queue: Queue;
  limiters: RateLimiterFactory;
  close(): Promise<void>;
}

/** The embedded event log's file in DATA_DIR. */
export const EVENTS_FILE = 'events.db';

/** The event log alone (the audit commands need nothing else). */
export function createEventStore(config: Config, logger?: QueueLogger): EventStore {
  mkdirSync(config.DATA_DIR, { recursive: true, mode: PRIVATE_DIR_MODE });
  return config.EVENTSTORE_URL
    ? new EventStoreDbEventStore(config.EVENTSTORE_URL)
    : new SqliteEventStore({
        filename: path.join(config.DATA_DIR, EVENTS_FILE),
        ...(logger
          ? { onCheckpointError: (error: string) => logger.warn({ error }, 'background WAL checkpoint failed; commits past the mark checkpoint themselves') }
          : {}),
      });
}

/** The embedded read store's file in DATA_DIR (with its `-wal` and `-shm`). */
export const READSTORE_FILE = 'readstore.db';
/** Beside it: the lock whose holder applies the log into it (`FileLease`); the other processes on the DATA_DIR follow. */
export const READSTORE_LOCK_FILE = 'readstore.lock';

/** The read store without MONGO_URL: in DATA_DIR/readstore.db, or (READSTORE=memory) on the heap, rebuilt at every start. */
function embeddedReadStore(config: Config, logger: QueueLogger | undefined): ReadStore {
  if (config.READSTORE === 'memory') return new MemoryReadStore();
  return new SqliteReadStore({ filename: path.join(config.DATA_DIR, READSTORE_FILE), ...(logger ? { logger } : {}) });
}

/** Picks each port's adapter from the configuration: the production one when its URL is set. */
export async function createAdapters(config: Config, { events, logger }: { events?: EventStore; logger?: QueueLogger } = {}): Promise<Adapters> {
  // The queue's file and the uploads live here even when the caller brought its own event log.
  mkdirSync(config.DATA_DIR, { recursive: true, mode: PRIVATE_DIR_MODE });
  events ??= createEventStore(config, logger);
  const readStore = config.MONGO_URL ? await MongoReadStore.connect(config.MONGO_URL) : embeddedReadStore(config, logger);
  const queueOptions = {
    retry: { windowMs: config.DELIVERY_RETRY_WINDOW_MS, capMs: config.DELIVERY_BACKOFF_CAP_MS },
    keepFailed: { count: config.FAILED_JOBS_KEEP_COUNT, ageMs: config.FAILED_JOBS_KEEP_MS },
    ...(logger ? { logger } : {}),
  };
  const queue = config.REDIS_URL
    ? new BullMqQueue({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX, ...queueOptions })
    : new InlineQueue({ filename: path.join(config.DATA_DIR, 'queue.db'), ...queueOptions });
  const limiters = config.REDIS_URL ? redisRateLimiters(config.REDIS_URL, `${config.REDIS_PREFIX}:ratelimit`) : memoryRateLimiters();
  const close = async () => {
    await queue.close();
    await events.close();
    await readStore.close();
    await limiters.close();
  };
  return { events, readStore, queue, limiters, close };
}
