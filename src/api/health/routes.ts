import { Router } from 'express';
import { channelBacklogs, failedDeliveryCount } from '../../app/deliveries/service';
import type { AppDeps } from '../../app/deps';
import { STARTING_RETRY_AFTER_SECONDS } from '../../app/startup';
import { projectionStatus, readModelHealth } from '../../app/status';

/**
 * `ok`: serving; `starting`: listening while the read models catch up (503, so a load balancer keeps
 * traffic away; the container health check counts it as alive); `degraded`: serving with a fault
 * (failed notices waiting for an admin, read models with conflicts, skipped events or a stall, or
 * messages waiting for a channel that does not answer).
 */
export type HealthStatus = 'ok' | 'starting' | 'degraded';

export const healthRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/health', async (_req, res) => {
    const { live, position, head, lag, exact, applied } = await projectionStatus(deps);
    // Failed deliveries wait for an admin (the Deliveries view): the desk works, but someone was not told something.
    const failedDeliveries = await failedDeliveryCount(deps);
    // Read models that are not what the log says (conflicts, skipped events) or that stopped following it.
    const readModels = await readModelHealth(deps);
    // Messages waiting for a channel that does not answer (Telegram, SMTP), in or out: the desk works, but people wait.
    const channels = await channelBacklogs(deps);
    const channelsWaiting = Object.values(channels).some((channel) => channel.inbound + channel.outbound > 0);
    const faulty = failedDeliveries > 0 || readModels.problems.length > 0 || channelsWaiting;
    const status: HealthStatus = !deps.startup.ready ? 'starting' : faulty ? 'degraded' : 'ok';
    if (status === 'starting') res.status(503).setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
    res.json({
      status,
      eventStore: deps.events.kind,
      readStore: deps.readStore.kind,
      queue: deps.queue.kind === 'bullmq' ? 'bullmq' : 'inline',
      projections: {
        state: live ? 'live' : 'catching up',
        position,
        lag,
        ...(exact ? {} : { lagAtLeast: true }),
        // Progress of the catch-up: events applied since this process started, and how far into the log.
        applied,
        percent: head === 0 ? 100 : Math.floor((position / head) * 1000) / 10,
        conflicts: readModels.conflicts,
        failures: readModels.failures,
        stalled: readModels.stalled.map(({ name }) => name),
        problems: readModels.problems,
      },
      deliveries: { failed: failedDeliveries },
      channels,
    });
  });
};
