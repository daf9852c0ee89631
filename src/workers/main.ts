import { createLogger } from '../platform/logger';
import { ConfigError, loadConfig } from '../platform/config';
import { startRuntime } from '../runtime';
import { exitOnSignals } from '../platform/shutdown';
import { startWorkers } from './channels';

/**
 * `npm run workers`: the notification channels (Telegram, e-mail) and the notifications reactor as a
 * process of their own (the compose stack's `workers` service, with WORKERS_IN_PROCESS=false on the
 * app). It takes queued jobs; the reactor and the Telegram poller run only while it holds the workers'
 * lease in Redis (src/workers/channels.ts). Its read models are fed by the same log, so its messages
 * read the state the app does: its own in-memory ones with the embedded read store, or the shared
 * MongoDB ones, whose projection lease this process may hold and then apply the log for every process.
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
  let stage: string | null = null;
  exitOnSignals(
    logger,
    async () => {
      stage = 'stopping the workers';
      await stopWorkers();
      stage = 'closing the stores';
      await runtime.close();
    },
    () => stage,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
