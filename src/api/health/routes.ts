import { Router } from 'express';
import { failedDeliveryCount } from '../../app/deliveries/service';
import { countEventsAfter } from '../../platform/eventstore/paging';
import type { AppDeps } from '../../app/deps';
import { STARTING_RETRY_AFTER_SECONDS } from '../../app/startup';

/**
 * `ok`: serving; `starting`: listening while the read models catch up (503, so a load balancer keeps
 * traffic away; the container health check counts it as alive); `degraded`: serving with a fault.
 */
export type HealthStatus = 'ok' | 'starting' | 'degraded';

/** Lag is counted event by event (log positions are bytes on EventStoreDB); beyond this it is a lower bound. */
const LAG_COUNTED_UP_TO = 1000;

export const healthRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/health', async (_req, res) => {
    // One moment's figures: the catch-up goes on while the awaits below run.
    const { position: reached, eventsProcessed: applied, isLive: live } = deps.projections;
    const head = await deps.events.headPosition();
    const position = Math.min(reached, head);
    const lag = await countEventsAfter(deps.events, position, LAG_COUNTED_UP_TO);
    // Failed deliveries wait for an admin (the Deliveries view): the desk works, but someone was not told something.
    const failedDeliveries = await failedDeliveryCount(deps);
    const status: HealthStatus = !deps.startup.ready ? 'starting' : failedDeliveries > 0 ? 'degraded' : 'ok';
    if (status === 'starting') res.status(503).setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
    res.json({
      status,
      eventStore: deps.events.kind,
      readStore: deps.readStore.kind,
      queue: deps.queue.kind === 'bullmq' ? 'bullmq' : 'inline',
      projections: {
        state: live ? 'live' : 'catching up',
        position,
        lag: lag.count,
        ...(lag.exact ? {} : { lagAtLeast: true }),
        // Progress of the catch-up: events applied since this process started, and how far into the log.
        applied,
        percent: head === 0 ? 100 : Math.floor((position / head) * 1000) / 10,
      },
      deliveries: { failed: failedDeliveries },
    });
  });
};
