import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type Modifier, update as applyModifier } from 'mingo/updater';
import type { Filter, FindOptions, Update } from './port';

/**
 * What both embedded stores do to documents, whichever holds them: copy them, apply MongoDB's update
 * operators to them, and build the document an upsert inserts.
 */

export type AnyObject = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is AnyObject => {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/**
 * Documents are copied in and out, so no caller can change a stored document behind the store's
 * back. Read models hold JSON-shaped data, which a hand-written copy handles several times faster
 * than structuredClone (this copy is the largest cost of a replay); anything else goes to it.
 */
export function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // Most arrays hold strings (a ticket's words, tags): one copy of the whole, then only objects replaced.
    const copy: unknown[] = value.slice();
    for (let index = 0; index < copy.length; index++) {
      const item = copy[index];
      if (item !== null && typeof item === 'object') copy[index] = clone(item);
    }
    return copy as T;
  }
  if (!isPlainObject(value)) return structuredClone(value);
  const copy: AnyObject = {};
  for (const key of Object.keys(value)) copy[key] = clone(value[key]);
  return copy as T;
}

const FAST_OPERATORS = new Set(['$set', '$inc', '$max', '$min', '$unset', '$push', '$addToSet']);

/** The items of a `$push` or `$addToSet`: one value, or `{ $each }` alone; null for other modifiers (`$slice`, `$sort`, `$position`). */
function itemsOf(value: unknown): unknown[] | null {
  if (!isPlainObject(value) || !Object.keys(value).some((key) => key.startsWith('$'))) return [value];
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$each' && Array.isArray(value.$each) ? value.$each : null;
}

/**
 * `$set`, `$inc`, `$max`, `$min`, `$unset`, `$push` and `$addToSet` (a value or `$each`) on paths
 * through plain objects, applied directly with MongoDB's semantics: the projections' everyday
 * writes, which mingo's general updater made the second cost of a replay. Answers null, changing nothing, for anything else (arrays or numeric
 * segments on the way, a type MongoDB would refuse, overlapping paths), which mingo then handles.
 */
function fastModify(doc: AnyObject, modifier: Update): string[] | null {
  const planned: Array<{ operator: string; path: string[]; value: unknown }> = [];
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(modifier)) {
    if (!FAST_OPERATORS.has(operator) || !isPlainObject(fields)) return null;
    for (const [dotted, value] of Object.entries(fields)) {
      const path = dotted.split('.');
      if (path.some((part) => part === '' || part.startsWith('$') || /^\d+$/.test(part))) return null;
      let parent: AnyObject | null = doc;
      for (const part of path.slice(0, -1)) {
        const next: unknown = parent?.[part];
        if (next === undefined || next === null) {
          if (next === null) return null;
          parent = null;
          break;
        }
        if (!isPlainObject(next)) return null;
        parent = next;
      }
      const current = parent?.[path.at(-1)!];
      if (operator === '$inc' && (typeof value !== 'number' || (current !== undefined && typeof current !== 'number'))) {
        throw new Error(`Cannot apply $inc to ${dotted}: it needs numbers, as in MongoDB`);
      }
      if (
        (operator === '$max' || operator === '$min') &&
        (!['number', 'string'].includes(typeof value) || (current !== undefined && current !== null && typeof current !== typeof value))
      )
        return null;
      if ((operator === '$push' || operator === '$addToSet') && (itemsOf(value) === null || (current !== undefined && !Array.isArray(current)))) return null;
      planned.push({ operator, path, value });
      paths.push(dotted);
    }
  }
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1] || sorted[i]!.startsWith(`${sorted[i - 1]}.`)) return null;

  const changed: string[] = [];
  for (const { operator, path, value } of planned) {
    const last = path.at(-1)!;
    if (operator === '$unset') {
      const parent = path.slice(0, -1).reduce<AnyObject | undefined>((node, part) => node?.[part] as AnyObject | undefined, doc);
      if (parent && last in parent) {
        delete parent[last];
        changed.push(path.join('.'));
      }
      continue;
    }
    let parent = doc;
    for (const part of path.slice(0, -1)) parent = (parent[part] ??= {}) as AnyObject;
    const current = parent[last];
    if (operator === '$push' || operator === '$addToSet') {
      const list = (current as unknown[] | undefined) ?? [];
      const before = list.length;
      for (const item of itemsOf(value)!) if (operator === '$push' || !list.some((element) => isDeepStrictEqual(element, item))) list.push(clone(item));
      if (current === undefined) parent[last] = list;
      if (current === undefined || list.length > before) changed.push(path.join('.'));
      continue;
    }
    let next: unknown;
    if (operator === '$set') next = clone(value);
    else if (operator === '$inc') next = ((current as number | undefined) ?? 0) + (value as number);
    else if (current === undefined || current === null) next = value;
    else next = (operator === '$max' ? (value as number) > (current as number) : (value as number) < (current as number)) ? value : current;
    if (current !== undefined && (current === next || isDeepStrictEqual(current, next))) continue;
    parent[last] = next;
    changed.push(path.join('.'));
  }
  return changed;
}

/** Applies an update's operators (not `$setOnInsert`) in place; answers the paths it changed. Throws, changing nothing, on an `$inc` of a non-number. */
export function applyUpdate(doc: AnyObject, modifier: Update): string[] {
  return fastModify(doc, modifier) ?? applyModifier(doc, modifier as Modifier<AnyObject>);
}

/**
 * The document an upsert inserts: the filter's top-level equalities, then the update with its
 * `$setOnInsert` applied as a `$set`. Ids are strings everywhere: a filter naming none gets a new one.
 */
export function upsertDocument(filter: Filter, update: Update): AnyObject {
  const seed: AnyObject = {};
  for (const [key, value] of Object.entries(filter)) {
    if (!key.startsWith('$') && !key.includes('.') && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      seed[key] = clone(value);
    }
  }
  // Built by assignment, not spread: V8 gives an object spread from another a map that shares no
  // transitions, so each property added to it later makes a map of its own (some 350 bytes a document).
  seed._id = typeof seed._id === 'string' ? seed._id : randomUUID();
  const { $setOnInsert, ...modifier } = update;
  applyUpdate(seed, { ...modifier, $set: { ...($setOnInsert ?? {}), ...(modifier.$set ?? {}) } });
  return seed;
}

/** The fields of a projection that includes top-level fields only (`_id` too unless excluded), else null. */
export function topLevelInclusion(projection: FindOptions['projection']): string[] | null {
  if (!projection) return null;
  const entries = Object.entries(projection);
  if (entries.some(([field, include]) => field.includes('.') || field.startsWith('$') || (include !== 1 && field !== '_id'))) return null;
  const included = entries.filter(([, include]) => include === 1).map(([field]) => field);
  if (included.length === 0) return null;
  return projection._id === 0 ? included.filter((field) => field !== '_id') : [...new Set(['_id', ...included])];
}

const REGEX_SPECIAL = new Set('.*+?^${}()|[]\\'.split(''));

/** The literal of `{ $regex: '^literal' }` (no options, nothing but escaped punctuation), or null for any other condition. */
export function anchoredLiteral(condition: unknown): string | null {
  if (!isPlainObject(condition) || Object.keys(condition).length !== 1 || typeof condition.$regex !== 'string') return null;
  const pattern = condition.$regex;
  if (!pattern.startsWith('^')) return null;
  let literal = '';
  for (let i = 1; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      const next = pattern[++i];
      // An escaped punctuation mark is itself; `\d`, `\w` and the like are classes.
      if (next === undefined || !/[!-/:-@[-`{-~]/.test(next)) return null;
      literal += next;
    } else if (REGEX_SPECIAL.has(char)) return null;
    else literal += char;
  }
  return literal === '' ? null : literal;
}
