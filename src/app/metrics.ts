import { Counter, Gauge } from 'prom-client';
import { deliveryQueueDepth } from './deliveries/service';
import type { AppDeps } from './deps';
import { projectionStatus } from './status';

/**
 * The desk's own figures, read when Prometheus scrapes (not kept up to date in between): how far
 * the read models are behind the log, and the notices waiting or failed. Registered once per runtime.
 */
export function registerDeskMetrics(deps: Pick<AppDeps, 'metrics' | 'projections' | 'events' | 'queue'>): void {
  const registers = [deps.metrics.registry];
  // One read of the projections serves the four figures of a scrape.
  let pending: Promise<Awaited<ReturnType<typeof projectionStatus>>> | null = null;
  const status = () => (pending ??= projectionStatus(deps).finally(() => setImmediate(() => (pending = null))));
  new Gauge({
    name: 'desk_projection_lag_events',
    help: 'Events of the log the read models have not applied yet (counted up to 1000)',
    registers,
    async collect() {
      this.set((await status()).lag);
    },
  });
  new Gauge({
    name: 'desk_projection_position',
    help: 'Log position every read model has applied',
    registers,
    async collect() {
      this.set((await status()).position);
    },
  });
  new Gauge({
    name: 'desk_event_store_head_position',
    help: 'Log position of the last event in the event store',
    registers,
    async collect() {
      this.set((await status()).head);
    },
  });
  new Counter({
    name: 'desk_projection_events_processed_total',
    help: 'Events applied to the read models by this process since it started',
    registers,
    async collect() {
      this.reset();
      this.inc((await status()).applied);
    },
  });
  let deliveries: ReturnType<typeof deliveryQueueDepth> | null = null;
  const depth = () => (deliveries ??= deliveryQueueDepth(deps).finally(() => setImmediate(() => (deliveries = null))));
  new Gauge({
    name: 'desk_delivery_queue_depth',
    help: 'Notices (Telegram messages, mails) not yet delivered, by channel and state (waiting, active, retrying)',
    labelNames: ['channel', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const row of await depth()) if (row.state !== 'failed') this.set({ channel: row.channel, state: row.state }, row.count);
    },
  });
  new Gauge({
    name: 'desk_deliveries_failed',
    help: 'Notices that failed for good and wait for an admin in Deliveries, by channel (health says degraded while any do)',
    labelNames: ['channel'],
    registers,
    async collect() {
      this.reset();
      for (const row of await depth()) if (row.state === 'failed') this.set({ channel: row.channel }, row.count);
    },
  });
}
