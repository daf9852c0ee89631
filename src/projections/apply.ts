import type { RecordedEvent } from '../platform/eventstore/port';
import type { ReadStore } from '../platform/readstore/port';
import { isTransient } from '../platform/readstore/transient';
import { type FailureFault, recordFailure } from './faults';
import type { Projection } from './runner';

/**
 * Applies a page to each projection in turn (a projection sees the page after those before it in
 * the list), skipping for each the events its checkpoint already covers. `positions` moves as each
 * projection finishes; `stopping` is asked between projections.
 */
export async function applyToProjections(
  projections: Projection[],
  page: RecordedEvent[],
  store: ReadStore,
  positions: Map<string, number> = new Map(),
  stopping: () => boolean = () => false,
  onProjected: () => void = () => undefined,
  onFailure?: (failure: FailureFault) => void,
): Promise<void> {
  const last = page.at(-1)?.position ?? 0;
  for (const projection of projections) {
    if (stopping()) return;
    const from = positions.get(projection.name) ?? 0;
    if (from >= last) continue;
    const types = projection.types;
    const fresh = page.filter((event) => event.position > from && (!types || types.has(event.type)));
    if (fresh.length > 0) await applyFresh(projection, fresh, store, onFailure);
    positions.set(projection.name, last);
    onProjected();
  }
}

/**
 * One projection's share of a page. The log is the truth: an event a projection throws on is
 * recorded (PROJECTION_FAULTS) and skipped for that projection, never retried forever, so one event
 * cannot stop the read models and a rebuild meets and records the same. Only a store that is away
 * (`isTransient`: network, failover, timeout) fails the page, to be tried again, never skipping the event.
 */
async function applyFresh(projection: Projection, events: RecordedEvent[], store: ReadStore, onFailure?: (failure: FailureFault) => void): Promise<void> {
  if (projection.applyPage) {
    try {
      await projection.applyPage(events, store);
      return;
    } catch (error) {
      if (isTransient(error)) throw error;
      // Some event of the page threw: event by event (each write is guarded, so the ones applied stay as they are) to skip exactly that one.
    }
  }
  for (const event of events) {
    try {
      await projection.apply(event, store);
    } catch (error) {
      if (isTransient(error)) throw error;
      const failure = await recordFailure(store, projection.name, event, error);
      onFailure?.(failure);
    }
  }
}
