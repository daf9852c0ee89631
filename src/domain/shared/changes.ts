import { isDeepStrictEqual } from 'node:util';

export interface Changed<T> {
  changes: Partial<T>;
  previous: Partial<T>;
}

/**
 * The fields of `wanted` that differ from `current` (undefined means "not sent"), each with its
 * earlier value, so an update event tells an auditor before and after; null when nothing changes.
 */
export function changedFields<T extends object>(current: T, wanted: Partial<T>): Changed<T> | null {
  const changes: Partial<T> = {};
  const previous: Partial<T> = {};
  for (const key of Object.keys(wanted) as Array<keyof T>) {
    const value = wanted[key];
    if (value === undefined || isDeepStrictEqual(value, current[key])) continue;
    changes[key] = value;
    previous[key] = current[key];
  }
  return Object.keys(changes).length === 0 ? null : { changes, previous };
}
