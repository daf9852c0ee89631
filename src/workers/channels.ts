import type { AppDeps } from '../app/deps';
import { type Lease, LocalLease, RedisLease } from '../platform/lease';
import { availabilityChannel } from './availability';
import { completionChannel } from './completion';
import { emailChannel } from './email';
import { rulesChannel } from './rules';
import { satisfactionChannel } from './satisfaction';
import { slaChannel } from './sla';
import { type Reaction, Reactor } from './reactor';
import { WebhookDispatcher } from './webhooks';
import { telegramChannel } from './telegram';

/** A notification channel (src/workers/<channel>/): its reaction to the log and its queue processors. */
export interface WorkerChannel {
  name: string;
  /** Plans this channel's jobs for an event of the log. */
  reaction: Reaction;
  /** The event types `reaction` may plan jobs for: the reactor passes the others over. */
  types: readonly string[];
  /** The projections whose read models `reaction` reads: the reactor waits for these only. */
  reads: readonly string[];
  /**
   * Registers the processors (every process takes jobs) and starts what the channel runs; what must
   * run once per deployment follows `lease`. Resolves to its stop function.
   */
  start(deps: AppDeps, lease: Lease): Promise<() => Promise<void>>;
}

const workerChannels: WorkerChannel[] = [telegramChannel, emailChannel, satisfactionChannel, slaChannel, completionChannel, rulesChannel, availabilityChannel];

/** The lease for the work that runs once per deployment: in Redis when several processes may run it. */
function workersLease(deps: AppDeps): Lease {
  const { REDIS_URL, REDIS_PREFIX, WORKERS_LEASE_TTL_MS } = deps.config;
  return REDIS_URL
    ? new RedisLease({ url: REDIS_URL, key: `${REDIS_PREFIX}:lease:notifications`, ttlMs: WORKERS_LEASE_TTL_MS, logger: deps.logger })
    : new LocalLease(deps.logger);
}

/**
 * Starts every channel and the notifications reactor that feeds them. The same list runs inside the
 * app (WORKERS_IN_PROCESS=true) or alone in `npm run workers`, in as many processes as wanted: each
 * takes queued jobs, and only the holder of the lease runs the reactor and the Telegram poller, so a
 * notification is planned once and updates are fetched once.
 */
export async function startWorkers(deps: AppDeps, lease: Lease = workersLease(deps)): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  for (const channel of workerChannels) {
    stops.push(await channel.start(deps, lease));
    deps.logger.info({ channel: channel.name }, 'worker started');
  }
  const reactor = new Reactor(
    'notifications',
    deps,
    workerChannels.map((channel) => channel.reaction),
    {
      types: new Set(workerChannels.flatMap((channel) => channel.types)),
      reads: [...new Set(workerChannels.flatMap((channel) => channel.reads))],
    },
  );
  lease.onChange((held) => (held ? reactor.start() : reactor.stop()));
  // Webhooks are sent by the same one process (docs/integrations.md).
  const webhooks = new WebhookDispatcher(deps);
  lease.onChange((held) => (held ? webhooks.start() : webhooks.stop()));
  await lease.start();
  return async () => {
    await lease.stop();
    await webhooks.stop();
    for (const stop of stops.reverse()) await stop();
  };
}
