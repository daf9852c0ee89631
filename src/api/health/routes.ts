import { Router } from 'express';
import { failedDeliveryCount } from '../deliveries/service';
import type { AppDeps } from '../deps';

export const healthRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/health', async (_req, res) => {
    const head = await deps.events.headPosition();
    const position = Math.min(deps.projections.position, head);
    // Failed deliveries wait for an admin (the Deliveries view): the desk works, but someone was not told something.
    const failedDeliveries = await failedDeliveryCount(deps);
    res.json({
      status: failedDeliveries > 0 ? 'degraded' : 'ok',
      eventStore: deps.events.kind,
      readStore: deps.readStore.kind,
      queue: deps.queue.kind === 'bullmq' ? 'bullmq' : 'inline',
      projections: { position, lag: head - position },
      deliveries: { failed: failedDeliveries },
    });
  });
};
