import { OPEN_STATUSES, type TicketStatus } from '../domain/ticket/ticket';
import type { Doc, ReadStore, Update } from '../platform/readstore/port';

export const TICKET_STATS = 'ticket_stats_v1';
const STATS_ID = 'all';

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
 * Dashboard statistics kept as running sums, so `GET /tickets/stats` reads one document instead of
 * every ticket. Ticket creations are counted in 15-minute buckets (every real time zone offset is
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
export const bucketKey = (at: string | number) => `${new Date(Math.floor(new Date(at).getTime() / BUCKET_MS) * BUCKET_MS).toISOString().slice(0, 16)}Z`;

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
  const changed = Object.fromEntries(Object.entries(inc).filter(([, value]) => value !== 0));
  const stats = store.collection<TicketStatsDoc>(TICKET_STATS);
  const current = await stats.findOne({ _id: STATS_ID });
  const newest = [current?.newestCreatedAt, after?.createdAt].filter((at): at is string => !!at).sort().at(-1) ?? null;
  const oldestKept = newest ? bucketKey(Date.parse(newest) - BUCKET_KEEP_MS) : null;
  // A bucket already dropped stays dropped: deleting an old ticket must not bring it back as negative.
  for (const key of Object.keys(changed)) {
    if (key.startsWith('created.') && oldestKept && key.slice('created.'.length) < oldestKept) delete changed[key];
  }
  const stale = Object.keys(current?.created ?? {}).filter((key) => oldestKept && key < oldestKept);
  const update: Update = { $set: { newestCreatedAt: newest } };
  if (Object.keys(changed).length > 0) update.$inc = changed;
  if (stale.length > 0) update.$unset = Object.fromEntries(stale.map((key) => [`created.${key}`, '']));
  await stats.updateOne({ _id: STATS_ID }, update, { upsert: true });
}

export async function loadTicketStats(store: ReadStore): Promise<TicketStatsDoc> {
  const found = await store.collection<TicketStatsDoc>(TICKET_STATS).findOne({ _id: STATS_ID });
  return {
    _id: STATS_ID,
    byStatus: found?.byStatus ?? {},
    unassigned: found?.unassigned ?? 0,
    response: found?.response ?? { sum: 0, count: 0 },
    resolution: found?.resolution ?? { sum: 0, count: 0 },
    categories: found?.categories ?? {},
    created: found?.created ?? {},
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
