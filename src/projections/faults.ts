import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';

/**
 * What the read models could not make of the log, kept beside them so that a rebuild makes the
 * same records (docs/read-models.md "When the log holds what a read model cannot"):
 * - a **conflict**: two documents hold one value of a key the write side keeps unique (a shortcode,
 *   an e-mail); both are stored, the first holder in log order wins lookups;
 * - a **failure**: a projection threw on an event; the event is skipped for that projection.
 * Every field comes from the log (positions, ids, the error's message), never from the clock.
 */
export const PROJECTION_FAULTS = 'projection_faults_v1';

interface FaultOf<Kind extends string> extends Doc {
  kind: Kind;
  projection: string;
  /** The event that made the record as it stands. */
  position: number;
  eventId: string;
  eventType: string;
  occurredAt: string;
}

export interface ConflictFault extends FaultOf<'conflict'> {
  collection: string;
  field: string;
  value: string;
  /** The documents holding the value, the one lookups find first. */
  holders: string[];
}

export interface FailureFault extends FaultOf<'failure'> {
  streamId: string;
  error: string;
}

export type ProjectionFault = ConflictFault | FailureFault;

export const faults = (store: ReadStore) => store.collection<ProjectionFault>(PROJECTION_FAULTS);

/** What a record keeps of the event that made it. */
export type EventRef = Pick<RecordedEvent, 'id' | 'position' | 'type' | 'metadata'>;

const eventFields = (event: EventRef) => ({ position: event.position, eventId: event.id, eventType: event.type, occurredAt: event.metadata.occurredAt });

/** Records that `projection` threw on `event` (and skips it): the same record however often the event is met. */
export async function recordFailure(store: ReadStore, projection: string, event: RecordedEvent, error: unknown): Promise<FailureFault> {
  const failure: FailureFault = {
    _id: `${projection}:failure:${event.position}`,
    kind: 'failure',
    projection,
    ...eventFields(event),
    streamId: event.streamId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  };
  await faults(store).replaceOne({ _id: failure._id }, failure, { upsert: true });
  return failure;
}

/** Sets or clears the conflict record of one key value, given the documents holding it in lookup order. */
export async function recordConflict(
  store: ReadStore,
  key: { projection: string; collection: string; field: string; value: string },
  holders: string[],
  event: EventRef,
): Promise<void> {
  const _id = `${key.projection}:conflict:${key.field}:${key.value}`;
  if (holders.length < 2) {
    await faults(store).deleteOne({ _id });
    return;
  }
  const existing = await faults(store).findOne({ _id });
  if (existing?.kind === 'conflict' && existing.holders.join() === holders.join()) return;
  await faults(store).replaceOne({ _id }, { _id, kind: 'conflict', ...key, holders, ...eventFields(event) }, { upsert: true });
}

export interface FaultSummary {
  conflicts: number;
  failures: number;
  /** Records held, by projection, kind and (for conflicts) key field: every group with at least one. */
  byProjection: Array<{ projection: string; kind: ProjectionFault['kind']; field: string | null; count: number }>;
}

/** Counts of what the read models hold against the log, for health and metrics (never the values: health is public). */
export async function faultSummary(store: ReadStore): Promise<FaultSummary> {
  const rows = await faults(store).aggregate<{ _id: { projection: string; kind: ProjectionFault['kind']; field?: string | null }; count: number }>([
    { $group: { _id: { projection: '$projection', kind: '$kind', field: '$field' }, count: { $sum: 1 } } },
  ]);
  const byProjection = rows
    .map(({ _id, count }) => ({ projection: _id.projection, kind: _id.kind, field: _id.field ?? null, count }))
    .sort((a, b) => a.projection.localeCompare(b.projection) || a.kind.localeCompare(b.kind) || (a.field ?? '').localeCompare(b.field ?? ''));
  const total = (kind: ProjectionFault['kind']) => byProjection.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.count, 0);
  return { conflicts: total('conflict'), failures: total('failure'), byProjection };
}
