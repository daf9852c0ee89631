import { canonicalJson } from '../platform/eventstore/integrity';
import { pagesOfAll } from '../platform/eventstore/paging';
import type { EventStore } from '../platform/eventstore/port';
import { MemoryReadStore } from '../platform/readstore/memory';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import type { Doc, Filter, ReadStore } from '../platform/readstore/port';
import { PROJECTION_FAULTS } from './faults';
import { applyToProjections } from './apply';
import { CHECKPOINTS, type Projection, type ReplayProgress } from './runner';

/**
 * "Are the live read models what the log says?": every projection replayed from zero into a private
 * store of the live one's kind (SQLite in memory for SQLite, where the search model keeps no word
 * lists, else the heap), up to the position the live models have reached, then compared document by
 * document. Read models are derived data, so any difference is a bug (or an edit behind the log's
 * back), and the rebuilt side is the truth.
 */

/** At most this many ids per kind of difference are listed; the counts are always complete. */
const LISTED = 20;

export interface CollectionReport {
  name: string;
  rebuilt: number;
  live: number;
  /** In the rebuilt model, not in the live one. */
  missing: { count: number; ids: string[] };
  /** In the live model, not in the rebuilt one. */
  extra: { count: number; ids: string[] };
  /** In both, with different content: ids and the top-level fields that differ. */
  different: { count: number; documents: Array<{ _id: string; fields: string[] }> };
}

export interface ProjectionCheck {
  ok: boolean;
  /** The global position both sides were compared at. */
  position: number;
  events: number;
  collections: CollectionReport[];
  /** The live models applied more events while the check ran: a difference may be that, not a fault. */
  liveMovedOn: boolean;
  durationMs: number;
}

/** Replays the log from its start up to `upTo` (inclusive) into `store` through every projection. */
export async function replayInto(
  events: EventStore,
  projections: Projection[],
  store: ReadStore,
  upTo: number,
  onProgress?: (progress: ReplayProgress) => void,
): Promise<number> {
  for (const projection of projections) await projection.setup?.(store);
  let reached = 0;
  let count = 0;
  for await (const page of pagesOfAll(events, { pageSize: 2000 })) {
    const wanted = page.filter((event) => event.position <= upTo);
    if (wanted.length > 0) await applyToProjections(projections, wanted, store);
    count += wanted.length;
    reached = wanted.at(-1)?.position ?? reached;
    onProgress?.({ position: reached, head: upTo, events: count });
    if (wanted.length < page.length || reached >= upTo) return count;
  }
  return count;
}

const byId = (docs: Doc[]) => new Map(docs.map((doc) => [String(doc._id), doc]));

function differingFields(a: Doc, b: Doc): string[] {
  const [left, right]: [Record<string, unknown>, Record<string, unknown>] = [{ ...a }, { ...b }];
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].filter((key) => canonicalJson(left[key]) !== canonicalJson(right[key])).sort();
}

export async function compareCollection(name: string, rebuilt: ReadStore, live: ReadStore, filter: Filter = {}): Promise<CollectionReport> {
  const [expected, actual] = await Promise.all([rebuilt.collection(name).find(filter), live.collection(name).find(filter)]);
  const want = byId(expected);
  const have = byId(actual);
  const missing = [...want.keys()].filter((id) => !have.has(id));
  const extra = [...have.keys()].filter((id) => !want.has(id));
  const different = [...want.entries()].flatMap(([id, doc]) => {
    const other = have.get(id);
    if (!other || canonicalJson(doc) === canonicalJson(other)) return [];
    return [{ _id: id, fields: differingFields(doc, other) }];
  });
  return {
    name,
    rebuilt: want.size,
    live: have.size,
    missing: { count: missing.length, ids: missing.slice(0, LISTED) },
    extra: { count: extra.length, ids: extra.slice(0, LISTED) },
    different: { count: different.length, documents: different.slice(0, LISTED) },
  };
}

export interface CheckOptions {
  /** The position the live models have applied (their checkpoint). */
  livePosition: () => Promise<number> | number;
  onProgress?: (progress: ReplayProgress) => void;
}

/**
 * Rebuilds privately up to the live models' position and compares every collection. A live desk
 * keeps applying events meanwhile; when the sides differ and the live models moved on, the check is
 * made again at their new position (up to three times) before a difference is reported.
 */
export async function checkProjections(events: EventStore, projections: Projection[], live: ReadStore, options: CheckOptions): Promise<ProjectionCheck> {
  const started = Date.now();
  const names = projections.flatMap((projection) => projection.collections).filter((name) => name !== CHECKPOINTS);
  for (let attempt = 1; ; attempt += 1) {
    const position = await options.livePosition();
    const rebuilt = live.kind === 'sqlite' ? new SqliteReadStore({ filename: ':memory:' }) : new MemoryReadStore();
    const count = await replayInto(events, projections, rebuilt, position, options.onProgress);
    const collections: CollectionReport[] = [];
    for (const name of names) collections.push(await compareCollection(name, rebuilt, live));
    // Conflicts and failures are derived from the log like the models: a rebuild records the same.
    collections.push(await compareCollection(PROJECTION_FAULTS, rebuilt, live, { projection: { $in: projections.map((projection) => projection.name) } }));
    await rebuilt.close();
    const ok = collections.every((c) => c.missing.count === 0 && c.extra.count === 0 && c.different.count === 0);
    const liveMovedOn = (await options.livePosition()) !== position;
    if (ok || !liveMovedOn || attempt === 3) return { ok, position, events: count, collections, liveMovedOn, durationMs: Date.now() - started };
  }
}

/** One line per collection, for the CLI and logs. */
export function describeCheck(check: ProjectionCheck): string[] {
  return check.collections.map((c) => {
    const problems = [
      c.missing.count > 0 ? `${c.missing.count} missing (${c.missing.ids.join(', ')})` : '',
      c.extra.count > 0 ? `${c.extra.count} extra (${c.extra.ids.join(', ')})` : '',
      c.different.count > 0 ? `${c.different.count} different (${c.different.documents.map((d) => `${d._id}: ${d.fields.join(', ')}`).join('; ')})` : '',
    ].filter(Boolean);
    return `  ${problems.length === 0 ? 'equal  ' : 'DIFFERS'} ${c.name}: ${c.rebuilt} rebuilt, ${c.live} live${problems.length > 0 ? ` — ${problems.join('; ')}` : ''}`;
  });
}
