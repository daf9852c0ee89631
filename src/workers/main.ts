import pino from 'pino';
import { createAdapters } from '../platform/adapters';
import { ConfigError, loadConfig } from '../platform/config';
import { startWorkers } from './channels';

/** `npm run workers`: the notification workers as their own process (the compose stack's `workers`). */
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL });
  if (!config.REDIS_URL) logger.warn('REDIS_URL is not set: this process only sees jobs it adds itself');
  const adapters = await createAdapters(config);
  const { events, readStore, queue } = adapters;
  const stopWorkers = await startWorkers({ config, events, readStore, queue, logger });
  logger.info('workers running');
  const shutdown = async () => {
    await stopWorkers();
    await adapters.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
