import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import type { EventStore } from '../platform/eventstore/port';
import type { Queue } from '../platform/queue/port';
import type { ReadStore } from '../platform/readstore/port';

export interface WorkerDeps {
  config: Config;
  events: EventStore;
  readStore: ReadStore;
  queue: Queue;
  logger: Logger;
}

/** A notification channel (src/workers/<channel>/): registers its processors on the queue. */
export interface WorkerChannel {
  name: string;
  start(deps: WorkerDeps): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The channels that consume jobs. Telegram and e-mail join this list with the notifications issue;
 * the same list runs inside the app (WORKERS_IN_PROCESS=true) or alone in `npm run workers`.
 */
export const workerChannels: WorkerChannel[] = [];

export async function startWorkers(deps: WorkerDeps): Promise<() => Promise<void>> {
  for (const channel of workerChannels) {
    await channel.start(deps);
    deps.logger.info({ channel: channel.name }, 'worker started');
  }
  return async () => {
    for (const channel of [...workerChannels].reverse()) await channel.stop();
  };
}
