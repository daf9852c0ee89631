import type { Router } from 'express';
import { listDeliveriesQuery } from '#contract/deliveries';
import { NotFoundError } from '#contract/errors';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { DELIVERY_CHANNELS, type DeliveryChannel, failedDeliveriesPage, isDeliveryChannel, listDeliveries, retryDelivery } from '../../app/deliveries/service';
import { scope } from '../http/scopes';

const plural = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

/** The Deliveries view's API (admins): undelivered notices (retried or discarded one by one or all failed at once) and incoming Telegram messages not yet applied (shown only). */
export const deliveryRoutes = (deps: AppDeps) => (router: Router) => {
  const admin = requireRole('admin');
  const channelOf = (channel: string): DeliveryChannel => {
    if (!isDeliveryChannel(channel)) throw new NotFoundError('Delivery');
    return channel;
  };
  const failedOfAll = async () => {
    const rows: Array<{ channel: DeliveryChannel; id: string }> = [];
    for (const channel of Object.keys(DELIVERY_CHANNELS) as DeliveryChannel[]) {
      for (const job of await deps.queue.failed(DELIVERY_CHANNELS[channel])) rows.push({ channel, id: job.id });
    }
    return rows;
  };

  // Messages on their way are all listed; notices failed for good (up to FAILED_JOBS_KEEP_COUNT a channel) one page at a time.
  router.get('/deliveries', scope('admin'), admin, async (req, res) => {
    const { page, limit } = parse(listDeliveriesQuery, req.query);
    const onTheirWay = await listDeliveries(deps);
    const failed = await failedDeliveriesPage(deps, { page, limit });
    const count = (state: string) => onTheirWay.filter((delivery) => delivery.state === state).length;
    const inbound = onTheirWay.filter((delivery) => delivery.direction === 'inbound').length;
    res.json({
      deliveries: [...onTheirWay, ...failed.deliveries],
      counts: { waiting: count('waiting') + count('active'), retrying: count('retrying'), failed: failed.total, inbound },
      failedPagination: { page, limit, total: failed.total, pages: Math.ceil(failed.total / limit) },
    });
  });

  router.post('/deliveries/failed/retry', scope('admin'), admin, async (req, res) => {
    let retried = 0;
    for (const row of await failedOfAll()) if (await retryDelivery(deps, row.channel, row.id, commandContext(deps, req))) retried++;
    deps.logger.info({ by: currentUser(req).id, count: retried }, 'failed deliveries retried');
    res.json({ message: `Retrying ${plural(retried)}`, count: retried });
  });

  router.post('/deliveries/failed/discard', scope('admin'), admin, async (req, res) => {
    let discarded = 0;
    for (const row of await failedOfAll()) if (await deps.queue.discard(DELIVERY_CHANNELS[row.channel], row.id)) discarded++;
    deps.logger.info({ by: currentUser(req).id, count: discarded }, 'failed deliveries discarded');
    res.json({ message: `Discarded ${plural(discarded)}`, count: discarded });
  });

  router.post('/deliveries/:channel/:id/retry', scope('admin'), admin, async (req, res) => {
    const { channel, id } = req.params as { channel: string; id: string };
    if (!(await retryDelivery(deps, channelOf(channel), id, commandContext(deps, req)))) throw new NotFoundError('Failed or retrying delivery');
    deps.logger.info({ by: currentUser(req).id, channel, jobId: id }, 'delivery retried by an admin');
    res.json({ message: 'Delivery queued again' });
  });

  router.delete('/deliveries/:channel/:id', scope('admin'), admin, async (req, res) => {
    const { channel, id } = req.params as { channel: string; id: string };
    if (!(await deps.queue.discard(DELIVERY_CHANNELS[channelOf(channel)], id))) throw new NotFoundError('Waiting or failed delivery');
    deps.logger.info({ by: currentUser(req).id, channel, jobId: id }, 'delivery discarded by an admin');
    res.status(204).end();
  });
};
