import type { Collection, Doc, ReadStore } from '../platform/readstore/port';
import { type EventRef, recordConflict } from './faults';

/**
 * Keys the write side keeps unique (reservations), seen from the read side. The log is the truth: a
 * read model stores every document the log describes, even two that hold one value, and never
 * refuses an event for it (docs/read-models.md). Each document keeps the log position at which it
 * took its current value of each such key (`_since`); a lookup by the key finds the earliest, so the
 * first holder in log order keeps the key, and the next one takes it over once the first lets go.
 */
export interface HoldsKeys {
  _since: Record<string, number>;
}

export interface UniqueKey {
  projection: string;
  collection: string;
  field: string;
}

const lookupOrder = (field: string) => ({ [`_since.${field}`]: 1, _id: 1 }) as const;

/** The document a lookup by `field` = `value` answers with: the first to hold it in log order. */
export async function holderOf<T extends Doc & HoldsKeys>(collection: Collection<T>, field: string, value: string): Promise<T | null> {
  const [holder] = await collection.find({ [field]: value }, { sort: lookupOrder(field), limit: 1 });
  return holder ?? null;
}

/** After `event` changed who holds these values of the key, records (or clears) a conflict for each. */
export async function settleKey(store: ReadStore, key: UniqueKey, values: ReadonlyArray<string | null | undefined>, event: EventRef): Promise<void> {
  for (const value of new Set(values)) {
    if (typeof value !== 'string') continue;
    const holders = await store.collection(key.collection).find({ [key.field]: value }, { sort: lookupOrder(key.field), projection: { _id: 1 } });
    await recordConflict(
      store,
      { ...key, value },
      holders.map((holder) => holder._id),
      event,
    );
  }
}
