import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import type { EventStore } from '../platform/eventstore/port';
import type { Keyring } from '../platform/keyring';
import type { Metrics } from '../platform/metrics';
import type { Queue } from '../platform/queue/port';
import type { RateLimiterFactory } from '../platform/ratelimit';
import type { ReadStore } from '../platform/readstore/port';
import type { ProjectionRunner } from '../projections/runner';
import type { ProjectionThread } from '../projections/thread';
import type { Startup } from './startup';

/**
 * What the application layer, the routes, the live channel and the workers use: built once a process
 * by src/runtime.ts, from which both the app (src/server.ts) and the workers' process start.
 */
export interface AppDeps {
  config: Config;
  events: EventStore;
  readStore: ReadStore;
  queue: Queue;
  limiters: RateLimiterFactory;
  projections: ProjectionRunner;
  /** The thread that applies the log into readstore.db for this process (null: the runner applies it on this thread, or follows another process). */
  projectionThread?: ProjectionThread | null;
  /** Whether the read models have caught up at start (see startup.ts). */
  startup: Startup;
  logger: Logger;
  /** Prometheus metrics of the process (/metrics). */
  metrics: Metrics;
  jwtSecret: string;
  /** The keys that are not JWT_SECRET's: webhook secrets' seals, rating links (src/platform/keyring.ts). */
  keyring: Keyring;
  clock: () => Date;
  newId: () => string;
}
