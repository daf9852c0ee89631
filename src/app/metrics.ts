import { Counter, Gauge } from 'prom-client';
import { QueueUnavailableError } from '#contract/errors';
import { deliveryQueueDepth } from './deliveries/service';
import type { AppDeps } from './deps';
import { countEventsAfter } from '../platform/eventstore/paging';
import { projectionStatus, readModelHealth } from './status';

/**
 * The desk's own figures, read when Prometheus scrapes (not kept up to date in between): how far
 * the read models are behind the log, and the notices waiting or failed. Registered once per runtime.
 */
export function registerDeskMetrics(deps: Pick<AppDeps, 'metrics' | 'projections' | 'events' | 'queue' | 'readStore'>): void {
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
  registerReadModelMetrics(deps);
  // While the job queue (Redis) does not answer, the scrape still answers: no delivery figures, and desk_queue_up 0.
  type Depth = { up: boolean; rows: Awaited<ReturnType<typeof deliveryQueueDepth>> };
  let deliveries: Promise<Depth> | null = null;
  const depth = () =>
    (deliveries ??= deliveryQueueDepth(deps)
      .then(
        (rows): Depth => ({ up: true, rows }),
        (error: unknown): Depth => {
          if (error instanceof QueueUnavailableError) return { up: false, rows: [] };
          throw error;
        },
      )
      .finally(() => setImmediate(() => (deliveries = null))));
  new Gauge({
    name: 'desk_queue_up',
    help: 'Whether the job queue (Redis, or the embedded queue) answered the scrape: 1, or 0 while it cannot be reached',
    registers,
    async collect() {
      this.set((await depth()).up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'desk_delivery_queue_depth',
    help: 'Notices (Telegram messages, mails) not yet delivered, by channel and state (waiting, active, retrying)',
    labelNames: ['channel', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await depth()).rows) if (row.state !== 'failed') this.set({ channel: row.channel, state: row.state }, row.count);
    },
  });
  new Gauge({
    name: 'desk_deliveries_failed',
    help: 'Notices that failed for good and wait for an admin in Deliveries, by channel (health says degraded while any do)',
    labelNames: ['channel'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await depth()).rows) if (row.state === 'failed') this.set({ channel: row.channel }, row.count);
    },
  });
}

/** Per projection: how far behind, whether stalled, and the conflicts and failures its models hold (health's `problems` as figures). */
function registerReadModelMetrics(deps: Pick<AppDeps, 'metrics' | 'projections' | 'events' | 'readStore'>): void {
  const registers = [deps.metrics.registry];
  let pending: ReturnType<typeof readModelHealth> | null = null;
  const health = () =>
    (pending ??= projectionStatus(deps)
      .then(() => readModelHealth(deps))
      .finally(() => setImmediate(() => (pending = null))));
  new Gauge({
    name: 'desk_projection_faults',
    help: 'Conflicts (a value two documents hold where the write side keeps it unique, by key field) and failures (events skipped) each projection holds',
    labelNames: ['projection', 'kind', 'field'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await health()).byProjection) this.set({ projection: row.projection, kind: row.kind, field: row.field ?? '' }, row.count);
    },
  });
  new Gauge({
    name: 'desk_projection_stalled',
    help: 'Per projection: 1 while it is behind the log and has not moved for PROJECTION_STALL_MS, else 0',
    labelNames: ['projection'],
    registers,
    async collect() {
      const stalled = new Set((await health()).stalled.map(({ name }) => name));
      for (const { name } of deps.projections.positionsByName) this.set({ projection: name }, stalled.has(name) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'desk_projection_catchup_retrying',
    help: '1 while the catch-up of the read models fails (the read store is away) and is being retried',
    registers,
    async collect() {
      this.set((await health()).retrying ? 1 : 0);
    },
  });
  new Gauge({
    name: 'desk_projection_behind_events',
    help: 'Per projection: events of the log it has not applied yet (counted up to 1000)',
    labelNames: ['projection'],
    registers,
    async collect() {
      const head = await deps.events.headPosition();
      const counted = new Map<number, number>();
      for (const { name, position } of deps.projections.positionsByName) {
        if (!counted.has(position)) counted.set(position, position >= head ? 0 : (await countEventsAfter(deps.events, position, 1000)).count);
        this.set({ projection: name }, counted.get(position)!);
      }
    },
  });
}
