import { AsyncLocalStorage } from 'node:async_hooks';
import type { CommandStartedEvent } from 'mongodb';
import type { EventStore } from '../../src/platform/eventstore/port';
import type { MongoReadStore } from '../../src/platform/readstore/mongodb';

/**
 * Tells the projections' MongoDB commands apart from the HTTP layer's: an event log whose live
 * subscription hands each event over inside `projectionWork`, so whatever the projection runner
 * does with it (the page's reads and writes, the checkpoint timer it arms) runs in that context,
 * while requests run outside it. The driver's command monitoring then files each command under the
 * context it was sent from.
 */
const projectionWork = new AsyncLocalStorage<true>();

export function taggingProjectionWork(events: EventStore): EventStore {
  return new Proxy(events, {
    get(target, property) {
      if (property === 'subscribeToAll') {
        return (options: Parameters<EventStore['subscribeToAll']>[0]) =>
          target.subscribeToAll({ ...options, onEvent: (event) => projectionWork.run(true, () => options.onEvent(event)) });
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export interface CommandCounts {
  /** Commands sent while applying live events (and storing their checkpoints), by `command collection`. */
  projection: Map<string, number>;
  /** Every other command: the HTTP layer's reads, the lease's renewals. */
  other: Map<string, number>;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);

/** Counts the commands a read store's client sends (its URL needs `monitorCommands=true`). */
export function countCommands(store: MongoReadStore) {
  let counts: CommandCounts = { projection: new Map(), other: new Map() };
  const stop = store.onCommand((event: CommandStartedEvent) => {
    const target = event.command[event.commandName];
    const key = `${event.commandName} ${typeof target === 'string' ? target : ''}`.trim();
    const into = projectionWork.getStore() ? counts.projection : counts.other;
    into.set(key, (into.get(key) ?? 0) + 1);
  });
  return {
    reset: () => {
      counts = { projection: new Map(), other: new Map() };
    },
    get counts(): CommandCounts {
      return counts;
    },
    totals: () => ({ projection: total(counts.projection), other: total(counts.other) }),
    stop,
  };
}
