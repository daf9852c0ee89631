import { Router } from 'express';
import type { AppDeps } from '../deps';

export const healthRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/health', async (_req, res) => {
    const head = await deps.events.headPosition();
    const position = Math.min(deps.projections.position, head);
    res.json({
      status: 'ok',
      eventStore: deps.events.kind,
      readStore: deps.readStore.kind,
      queue: deps.queue.kind === 'bullmq' ? 'bullmq' : 'inline',
      projections: { position, lag: head - position },
    });
  });
};
