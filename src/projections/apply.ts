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
 * A live page applied to the projections at once, each starting as soon as those it names in `after`
 * (whose read models it reads while applying: the directory's names for the tickets) are done, so a
 * page costs the round trips of its longest chain rather than their sum on MongoDB, and `onProjected`
 * tells the callers waiting on one projection as soon as it is done. A projection that fails fails the
 * page once every other has settled (no write of this page is in flight when it is applied again);
 * those done keep their positions, as those before the failing one do when applied in turn.
 */
export async function applyTogether(
  projections: Projection[],
  page: RecordedEvent[],
  store: ReadStore,
  positions: Map<string, number>,
  stopping: () => boolean,
  onProjected: () => void,
  onFailure?: (failure: FailureFault) => void,
): Promise<void> {
  const last = page.at(-1)?.position ?? 0;
  const applying = new Map<string, Promise<void>>();
  for (const projection of projections) {
    // A projection another version of the desk writes is not in the list: the runner waited for it before the page.
    const first = (projection.reads ?? [])
      .filter((name) => projections.some((other) => other.name === name))
      .map((name) => {
        const before = applying.get(name);
        if (!before) throw new Error(`projection ${projection.name} reads ${name}, which must come before it in the list`);
        return before;
      });
    const apply = async () => {
      await Promise.all(first);
      const from = positions.get(projection.name) ?? 0;
      if (stopping() || from >= last) return;
      const types = projection.types;
      const fresh = page.filter((event) => event.position > from && (!types || types.has(event.type)));
      if (fresh.length > 0) await applyFresh(projection, fresh, store, onFailure);
      positions.set(projection.name, last);
      onProjected();
    };
    applying.set(projection.name, apply());
  }
  const failed = (await Promise.allSettled(applying.values())).find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
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
