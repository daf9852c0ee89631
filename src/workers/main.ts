import { createLogger } from '../platform/logger';
import { ConfigError, loadConfig } from '../platform/config';
import { startRuntime } from '../runtime';
import { startWorkers } from './channels';

/**
 * `npm run workers`: the reactors and notification workers as their own process (the compose
 * stack's `workers` service, with WORKERS_IN_PROCESS=false on the app). It keeps its own read
 * models, fed by the same log, so that its messages and links read the same state the app does.
 */
async function main() {
  const config = loadConfig();
  if (!config.REDIS_URL) {
    throw new ConfigError(
      'npm run workers needs REDIS_URL: without Redis the job queue lives inside the app process, which runs the workers itself (WORKERS_IN_PROCESS=true).',
    );
  }
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const runtime = await startRuntime(config, { logger });
  const stopWorkers = await startWorkers(runtime.deps);
  logger.info('workers running');
  const shutdown = async () => {
    await stopWorkers();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
