import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventStore } from './eventstore/port';

/**
 * The process's Prometheus metrics (served at /metrics, see docs/operations.md "Metrics (Prometheus)"). One registry per
 * runtime, not prom-client's global one, so several desks in one process (the tests) keep apart.
 */
export interface Metrics {
  registry: Registry;
  /** Every HTTP answer, by method, route pattern (never the raw URL) and status. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Events appended to the log by this process, by event type. */
  eventsAppended: Counter<'type'>;
  /** Reads of the read store by the request caches of src/app/caches.ts: `cold` (not held, or changed by an event) or `behind` (not following the log live). */
  requestCacheReads: Counter<'cache' | 'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'desk_http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to finishing its answer, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    eventsAppended: new Counter({
      name: 'desk_events_appended_total',
      help: 'Events appended to the event log by this process, by event type',
      labelNames: ['type'],
      registers: [registry],
    }),
    requestCacheReads: new Counter({
      name: 'desk_request_cache_reads_total',
      help: 'Reads of the read store on the request path (settings, the signed-in user and session, names), by cache and reason: cold (not held yet, or dropped by an event) or behind (the process does not follow the log live, the cache is not trusted)',
      labelNames: ['cache', 'reason'],
      registers: [registry],
    }),
  };
}

/**
 * The event log with its appends counted: every command of the process appends through it, so this
 * is the one place appends are counted whatever adapter sits below. Everything else passes through.
 */
export function countAppends(store: EventStore, counter: Metrics['eventsAppended']): EventStore {
  const append: EventStore['append'] = async (streamId, events, expected) => {
    const result = await store.append(streamId, events, expected);
    for (const event of events) counter.inc({ type: event.type });
    return result;
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') return append;
      const value: unknown = Reflect.get(target, property, receiver);
      // Methods run on the adapter itself (its private fields are not on the proxy).
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
