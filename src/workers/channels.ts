import type { AppDeps } from '../api/deps';
import { emailChannel } from './email';
import { type Reaction, Reactor } from './reactor';
import { telegramChannel } from './telegram';

/** A notification channel (src/workers/<channel>/): its reaction to the log and its queue processors. */
export interface WorkerChannel {
  name: string;
  /** Plans this channel's jobs for an event of the log. */
  reaction: Reaction;
  /** Registers the processors and starts what the channel runs; resolves to its stop function. */
  start(deps: AppDeps): Promise<() => Promise<void>>;
}

export const workerChannels: WorkerChannel[] = [telegramChannel, emailChannel];

/**
 * Starts every channel and the notifications reactor that feeds them. The same list runs inside the
 * app (WORKERS_IN_PROCESS=true) or alone in `npm run workers`.
 */
export async function startWorkers(deps: AppDeps): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  for (const channel of workerChannels) {
    stops.push(await channel.start(deps));
    deps.logger.info({ channel: channel.name }, 'worker started');
  }
  const reactor = new Reactor(
    'notifications',
    deps,
    workerChannels.map((channel) => channel.reaction),
  );
  await reactor.start();
  return async () => {
    await reactor.stop();
    for (const stop of stops.reverse()) await stop();
  };
}
