import { OPEN_STATUSES, type TicketStatus } from '#contract/tickets';
import type { Doc, ReadStore, Update } from '../platform/readstore/port';

export const TICKET_STATS = 'ticket_stats_v2';
/** Tickets created per 15-minute bucket: `{ _id: bucket key, count }`. */
export const TICKET_CREATED = 'ticket_created_v1';
const STATS_ID = 'all';
const CREATED = 'created.';

/** spec.md section 9: a ticket's response time counts at most one day. */
const RESPONSE_CAP_MINUTES = 1440;
const BUCKET_MS = 15 * 60 * 1000;
/** Creation buckets older than this before the newest ticket are dropped: "this week" needs 7 days. */
const BUCKET_KEEP_MS = 8 * 24 * 60 * 60 * 1000;

interface Sum {
  sum: number;
  count: number;
}

/**
 * Dashboard statistics kept as running sums, so `GET /tickets/stats` reads a few documents instead
 * of every ticket. Ticket creations are counted in 15-minute buckets (every real time zone offset is
 * a multiple of 15 minutes), so "today since local midnight" holds in the caller's own zone.
 */
export interface TicketStatsDoc extends Doc {
  byStatus: Partial<Record<TicketStatus, number>>;
  unassigned: number;
  response: Sum;
  resolution: Sum;
  categories: Record<string, { count: number; open: number; resolutionSum: number; resolutionCount: number }>;
  created: Record<string, number>;
  newestCreatedAt: string | null;
}

/** The stored sums: everything but the creation buckets, which live in TICKET_CREATED. */
type StatsRow = Omit<TicketStatsDoc, 'created'>;
interface BucketRow extends Doc {
  count: number;
}

/** The fields of a ticket document the statistics depend on. */
export interface StatsSource {
  status: TicketStatus;
  assignedAgent: unknown;
  category: { _id: string };
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
  closedAt: string | null;
}

const minutesBetween = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 60_000);

/** Bucket keys sort as time and hold no dots, so they can be field names in dotted update paths. */
export const bucketKey = (at: string | number) => {
  const bucket = Math.floor(new Date(at).getTime() / BUCKET_MS);
  if (bucket !== lastBucket.bucket) lastBucket = { bucket, key: `${new Date(bucket * BUCKET_MS).toISOString().slice(0, 16)}Z` };
  return lastBucket.key;
};
/** Consecutive calls mostly ask for the same bucket (a ticket's before and after, a replay in time order). */
let lastBucket = { bucket: Number.NaN, key: '' };

/** What one ticket adds to the sums; subtracting the old contribution and adding the new keeps them exact. */
function contribution(ticket: StatsSource): Record<string, number> {
  const isOpen = OPEN_STATUSES.includes(ticket.status);
  const category = `categories.${ticket.category._id}`;
  const parts: Record<string, number> = {
    [`byStatus.${ticket.status}`]: 1,
    unassigned: isOpen && !ticket.assignedAgent ? 1 : 0,
    [`${category}.count`]: 1,
    [`${category}.open`]: isOpen ? 1 : 0,
    [`created.${bucketKey(ticket.createdAt)}`]: 1,
  };
  // Average response time: tickets with an agent that are no longer open, creation to last update, capped.
  if (ticket.assignedAgent && ticket.status !== 'open') {
    parts['response.sum'] = Math.min(minutesBetween(ticket.createdAt, ticket.updatedAt), RESPONSE_CAP_MINUTES);
    parts['response.count'] = 1;
  }
  // Average resolution time: resolved or closed tickets with such a date, creation to that date, uncapped.
  const resolvedOn = ticket.status === 'resolved' ? ticket.resolvedAt : ticket.status === 'closed' ? (ticket.closedAt ?? ticket.resolvedAt) : null;
  if (resolvedOn) {
    const minutes = minutesBetween(ticket.createdAt, resolvedOn);
    Object.assign(parts, { 'resolution.sum': minutes, 'resolution.count': 1, [`${category}.resolutionSum`]: minutes, [`${category}.resolutionCount`]: 1 });
  }
  return parts;
}

/** Moves the sums from a ticket's earlier state to its new one (null for "did not exist" / "deleted"). */
export async function moveStats(store: ReadStore, before: StatsSource | null, after: StatsSource | null): Promise<void> {
  const inc: Record<string, number> = {};
  for (const [key, value] of Object.entries(before ? contribution(before) : {})) inc[key] = (inc[key] ?? 0) - value;
  for (const [key, value] of Object.entries(after ? contribution(after) : {})) inc[key] = (inc[key] ?? 0) + value;
  const changed = Object.entries(inc).filter(([, value]) => value !== 0);
  const sums = changed.filter(([key]) => !key.startsWith(CREATED));
  const created = changed.filter(([key]) => key.startsWith(CREATED));
  const stats = store.collection<StatsRow>(TICKET_STATS);
  // Most changes (status, assignment, outcome) move sums only: no read needed.
  if (created.length === 0) {
    if (sums.length > 0) await stats.updateOne({ _id: STATS_ID }, { $inc: Object.fromEntries(sums) }, { upsert: true });
    return;
  }
  // An opened or deleted ticket moves a creation bucket, kept for 8 days before the newest ticket.
  const previous = (await stats.findOne({ _id: STATS_ID }))?.newestCreatedAt ?? null;
  const newest = [previous, after?.createdAt].filter((at): at is string => !!at).sort().at(-1) ?? null;
  const oldestKept = newest ? bucketKey(Date.parse(newest) - BUCKET_KEEP_MS) : null;
  const update: Update = newest !== previous ? { $set: { newestCreatedAt: newest } } : {};
  if (sums.length > 0) update.$inc = Object.fromEntries(sums);
  if (Object.keys(update).length > 0) await stats.updateOne({ _id: STATS_ID }, update, { upsert: true });
  // Creation buckets are documents of their own, so that a change reads and writes a few small
  // documents; a bucket already dropped stays dropped (deleting an old ticket must not bring it back).
  const buckets = store.collection<BucketRow>(TICKET_CREATED);
  for (const [key, value] of created) {
    const bucket = key.slice(CREATED.length);
    if (oldestKept && bucket < oldestKept) continue;
    await buckets.updateOne({ _id: bucket }, { $inc: { count: value } }, { upsert: true });
  }
  // Dropped once a day of the newest ticket: a bucket kept a little longer is past the week anyway.
  if (oldestKept && previous && previous.slice(0, 10) !== newest!.slice(0, 10)) await buckets.deleteMany({ _id: { $lt: oldestKept } });
}

export async function loadTicketStats(store: ReadStore): Promise<TicketStatsDoc> {
  const [found, buckets] = await Promise.all([store.collection<StatsRow>(TICKET_STATS).findOne({ _id: STATS_ID }), store.collection<BucketRow>(TICKET_CREATED).find({})]);
  return {
    _id: STATS_ID,
    byStatus: found?.byStatus ?? {},
    unassigned: found?.unassigned ?? 0,
    response: found?.response ?? { sum: 0, count: 0 },
    resolution: found?.resolution ?? { sum: 0, count: 0 },
    categories: found?.categories ?? {},
    created: Object.fromEntries(buckets.filter(({ count }) => count !== 0).map(({ _id, count }) => [_id, count])),
    newestCreatedAt: found?.newestCreatedAt ?? null,
  };
}

export const average = ({ sum, count }: Sum) => (count > 0 ? Math.round(sum / count) : 0);

/** Tickets created at or after `since`, to the 15-minute bucket. */
export const createdSince = (stats: TicketStatsDoc, since: Date) => {
  const from = bucketKey(since.getTime() + BUCKET_MS - 1);
  return Object.entries(stats.created).reduce((total, [key, count]) => (key >= from ? total + count : total), 0);
};

/** Local midnight of `now` in an IANA time zone, as an instant. */
export function localMidnight(now: Date, timeZone: string): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const wallClock = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = wallClock - Math.floor(now.getTime() / 1000) * 1000;
  return new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) - offset);
}
