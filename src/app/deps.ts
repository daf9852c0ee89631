import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import type { EventStore } from '../platform/eventstore/port';
import type { Metrics } from '../platform/metrics';
import type { Queue } from '../platform/queue/port';
import type { RateLimiterFactory } from '../platform/ratelimit';
import type { ReadStore } from '../platform/readstore/port';
import type { ProjectionRunner } from '../projections/runner';
import type { Startup } from './startup';

/** Everything a route module may use; built once by the composition root (src/server.ts). */
export interface AppDeps {
  config: Config;
  events: EventStore;
  readStore: ReadStore;
  queue: Queue;
  limiters: RateLimiterFactory;
  projections: ProjectionRunner;
  /** Whether the read models have caught up at start (see startup.ts). */
  startup: Startup;
  logger: Logger;
  /** Prometheus metrics of the process (/metrics). */
  metrics: Metrics;
  jwtSecret: string;
  clock: () => Date;
  newId: () => string;
}
