import type { ReadStore } from '../../src/platform/readstore/port';
import { handledBy } from '../../src/projections/events';
import type { Projection } from '../../src/projections/runner';

/** Events each projection applied in one process, by projection name. */
export type Applied = Map<string, number>;

const NAMES = 'lineage_names_v1';
const LABELS = 'lineage_labels_v1';
const COUNTS = 'lineage_counts_v1';

/**
 * Three projections of the categories created, to watch which a version bump rebuilds: `names` (a
 * category's name), `labels` (reads `names` while applying, as the tickets model reads the directory)
 * and `counts` (reads nothing). Each counts in `applied` the events it applied.
 */
export function lineageProjections(applied: Applied, versions: { names?: number; labels?: number; counts?: number } = {}): Projection[] {
  const counted = (name: string) => applied.set(name, (applied.get(name) ?? 0) + 1);
  return [
    {
      name: 'names',
      version: versions.names ?? 1,
      collections: [NAMES],
      ...handledBy({
        async CategoryCreated(event, store) {
          counted('names');
          await store.collection(NAMES).updateOne({ _id: event.data.categoryId }, { $set: { name: event.data.name } }, { upsert: true });
        },
      }),
    },
    {
      name: 'labels',
      version: versions.labels ?? 1,
      reads: ['names'],
      collections: [LABELS],
      ...handledBy({
        async CategoryCreated(event, store) {
          counted('labels');
          const named = await store.collection<{ _id: string; name: string }>(NAMES).findOne({ _id: event.data.categoryId });
          await store
            .collection(LABELS)
            .updateOne({ _id: event.data.categoryId }, { $set: { label: `v${versions.labels ?? 1}:${named?.name ?? 'MISSING'}` } }, { upsert: true });
        },
      }),
    },
    {
      name: 'counts',
      version: versions.counts ?? 1,
      collections: [COUNTS],
      ...handledBy({
        async CategoryCreated(event, store) {
          counted('counts');
          await store.collection(COUNTS).updateOne({ _id: event.data.categoryId }, { $set: { seen: true } }, { upsert: true });
        },
      }),
    },
  ];
}

/** The labels as a process of `labelsVersion` reads them, in category order. */
export async function labelsOf(store: ReadStore): Promise<string[]> {
  return (await store.collection<{ _id: string; label: string }>(LABELS).find({}, { sort: { _id: 1 } })).map(({ label }) => label);
}

export const LINEAGE_COLLECTIONS = [NAMES, LABELS, COUNTS];
