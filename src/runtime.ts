import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { AppDeps } from './api/deps';
import { type Adapters, createAdapters } from './platform/adapters';
import type { Config } from './platform/config';
import { loadJwtSecret } from './platform/secrets';
import { allProjections } from './projections/all';
import { ProjectionRunner } from './projections/runner';

export interface RuntimeOptions {
  logger?: Logger;
  clock?: () => Date;
}

export interface Runtime {
  deps: AppDeps;
  adapters: Adapters;
  /** Stops the projections and releases every adapter. */
  close(): Promise<void>;
}

/**
 * What every process of the desk needs, the app and `npm run workers` alike: the adapters the
 * configuration picks and read models caught up with the log.
 */
export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL });
  const adapters = await createAdapters(config, logger);
  const { events, readStore, queue, limiters } = adapters;
  const projections = new ProjectionRunner(events, readStore, allProjections, {
    onError: (error, event) => logger.error({ err: error, position: event?.position }, 'projection failed; retrying'),
  });
  const started = Date.now();
  await projections.start();
  logger.info({ events: projections.eventsProcessed, ms: Date.now() - started }, 'read models caught up');
  const deps: AppDeps = {
    config,
    events,
    readStore,
    queue,
    limiters,
    projections,
    logger,
    jwtSecret: loadJwtSecret(config.DATA_DIR, config.JWT_SECRET),
    clock: options.clock ?? (() => new Date()),
    newId: randomUUID,
  };
  return {
    deps,
    adapters,
    async close() {
      await projections.stop();
      await adapters.close();
    },
  };
}
