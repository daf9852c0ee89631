import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import type { EventStore } from '../platform/eventstore/port';
import type { Queue } from '../platform/queue/port';
import type { RateLimiterFactory } from '../platform/ratelimit';
import type { ReadStore } from '../platform/readstore/port';
import type { ProjectionRunner } from '../projections/runner';

/** Everything a route module may use; built once by the composition root (src/server.ts). */
export interface AppDeps {
  config: Config;
  events: EventStore;
  readStore: ReadStore;
  queue: Queue;
  limiters: RateLimiterFactory;
  projections: ProjectionRunner;
  logger: Logger;
  jwtSecret: string;
  clock: () => Date;
  newId: () => string;
}
