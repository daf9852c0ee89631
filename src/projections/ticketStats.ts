import { OPEN_STATUSES, type TicketStatus } from '#contract/tickets';
import type { Doc, ReadStore, Update } from '../platform/readstore/port';

export const TICKET_STATS = 'ticket_stats_v3';
/** Tickets created per 15-minute bucket: `{ _id: bucket key, count }`. */
export const TICKET_CREATED = 'ticket_created_v1';
const STATS_ID = 'all';
const CREATED = 'created.';

/** docs/product.md section 9: a ticket's response time counts at most one day. */
const RESPONSE_CAP_MINUTES = 1440;
/** Times are counted in steps of 1/1024 minute (about 59 ms); see `minutesBetween`. */
const STEPS_PER_MINUTE = 1024;
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
  /** Per team (`none` for the tickets in no team, docs/teams.md): the same sums as the desk's. */
  teams: Record<string, TeamSums>;
  created: Record<string, number>;
  newestCreatedAt: string | null;
}

interface TeamSums {
  count: number;
  open: number;
  firstResponseSum: number;
  firstResponseCount: number;
  resolutionSum: number;
  resolutionCount: number;
}

/** The key of the tickets in no team among the teams' sums. */
export const NO_TEAM_KEY = 'none';

/** The stored sums: everything but the creation buckets, which live in TICKET_CREATED. */
type StatsRow = Omit<TicketStatsDoc, 'created'> & { position?: number };
interface BucketRow extends Doc {
  count: number;
  position?: number;
}

/** The fields of a ticket document the statistics depend on. */
export interface StatsSource {
  status: TicketStatus;
  assignedAgent: unknown;
  category: { _id: string };
  team: { _id: string } | null;
  createdAt: string;
  firstResponseAt: string | null;
  updatedAt: string;
  resolvedAt: string | null;
  closedAt: string | null;
}

/** Parsing an ISO date is the costliest step of a statistics move; a ticket's dates are parsed again at each of its moves. */
const parsed = new Map<string, number>();
const timeOf = (at: string) => {
  let time = parsed.get(at);
  if (time === undefined) {
    if (parsed.size >= 50_000) parsed.clear();
    time = Date.parse(at);
    parsed.set(at, time);
  }
  return time;
};

/**
 * Minutes in whole steps of 1/1024: such binary fractions add up exactly in any order (up to 2^43
 * minutes), so the live sums, taken a few events at a time, equal a rebuild's, taken a page at a
 * time. Minutes of any fraction (ms / 60000) drifted apart in their last digits, and the difference
 * was kept for good. Not whole milliseconds: integers are written as 32-bit integers, which FerretDB's
 * `$inc` wraps past 2^31 (25 days of milliseconds).
 */
const minutesBetween = (from: string, to: string) => Math.max(0, Math.round(((timeOf(to) - timeOf(from)) / 60_000) * STEPS_PER_MINUTE) / STEPS_PER_MINUTE);

/** Bucket keys sort as time and hold no dots, so they can be field names in dotted update paths. */
const bucketKey = (at: string | number) => {
  const bucket = Math.floor((typeof at === 'string' ? timeOf(at) : at) / BUCKET_MS);
  if (bucket !== lastBucket.bucket) lastBucket = { bucket, key: `${new Date(bucket * BUCKET_MS).toISOString().slice(0, 16)}Z` };
  return lastBucket.key;
};
/** Consecutive calls mostly ask for the same bucket (a ticket's before and after, a replay in time order). */
let lastBucket = { bucket: Number.NaN, key: '' };

const add = (into: Map<string, number>, key: string, value: number) => into.set(key, (into.get(key) ?? 0) + value);

/**
 * Adds `sign` times what one ticket adds to the sums into `into` (its creation bucket under
 * `created.<bucket>`); subtracting the old contribution and adding the new keeps them exact.
 */
function addContribution(into: Map<string, number>, ticket: StatsSource, sign: 1 | -1): void {
  const isOpen = OPEN_STATUSES.includes(ticket.status);
  const category = `categories.${ticket.category._id}`;
  const team = `teams.${ticket.team?._id ?? NO_TEAM_KEY}`;
  add(into, `byStatus.${ticket.status}`, sign);
  add(into, 'unassigned', isOpen && !ticket.assignedAgent ? sign : 0);
  add(into, `${category}.count`, sign);
  add(into, `${category}.open`, isOpen ? sign : 0);
  add(into, `${team}.count`, sign);
  add(into, `${team}.open`, isOpen ? sign : 0);
  add(into, `${CREATED}${bucketKey(ticket.createdAt)}`, sign);
  // Average response time: tickets with an agent that are no longer open, creation to last update, capped.
  if (ticket.assignedAgent && ticket.status !== 'open') {
    add(into, 'response.sum', sign * Math.min(minutesBetween(ticket.createdAt, ticket.updatedAt), RESPONSE_CAP_MINUTES));
    add(into, 'response.count', sign);
  }
  // A team's first response: creation to staff's first public reply, uncapped (docs/teams.md).
  if (ticket.firstResponseAt) {
    add(into, `${team}.firstResponseSum`, sign * minutesBetween(ticket.createdAt, ticket.firstResponseAt));
    add(into, `${team}.firstResponseCount`, sign);
  }
  // Average resolution time: resolved or closed tickets with such a date, creation to that date, uncapped.
  const resolvedOn = ticket.status === 'resolved' ? ticket.resolvedAt : ticket.status === 'closed' ? (ticket.closedAt ?? ticket.resolvedAt) : null;
  if (resolvedOn) {
    const minutes = sign * minutesBetween(ticket.createdAt, resolvedOn);
    add(into, 'resolution.sum', minutes);
    add(into, 'resolution.count', sign);
    add(into, `${category}.resolutionSum`, minutes);
    add(into, `${category}.resolutionCount`, sign);
    add(into, `${team}.resolutionSum`, minutes);
    add(into, `${team}.resolutionCount`, sign);
  }
}

/** One event's move of the sums: a ticket from its earlier state to its new one (null: did not exist / deleted). */
export interface StatsMove {
  position: number;
  before: StatsSource | null;
  after: StatsSource | null;
}

/**
 * Applies a page's moves with one read and at most one write per document: the sums document and
 * each creation bucket keep the log position of the last move applied to them, and only moves
 * after it count. A re-applied page (a crash before the checkpoint, a writer that lost its lease
 * mid-page) therefore changes nothing, and a write is refused if another writer moved the document
 * since it was read (the page is then tried again by the runner).
 */
export async function applyStatsMoves(store: ReadStore, moves: StatsMove[]): Promise<void> {
  if (moves.length === 0) return;
  const stats = store.collection<StatsRow>(TICKET_STATS);
  const buckets = store.collection<BucketRow>(TICKET_CREATED);
  const loaded = await stats.findOne({ _id: STATS_ID });
  const sums = new Map<string, number>();
  const created: Array<{ bucket: string; value: number; position: number }> = [];
  let statsAt = loaded?.position ?? -1;
  const previous = loaded?.newestCreatedAt ?? null;
  let newest = previous;
  let pruneBelow: string | null = null;
  for (const { position, before, after } of moves) {
    if (position <= statsAt) continue;
    const inc = new Map<string, number>();
    if (before) addContribution(inc, before, -1);
    if (after) addContribution(inc, after, 1);
    let moved = false;
    let createdMoved = false;
    for (const [key, value] of inc) {
      if (value === 0) continue;
      if (key.startsWith(CREATED)) {
        createdMoved = true;
        continue;
      }
      add(sums, key, value);
      moved = true;
    }
    if (createdMoved) {
      // An opened or deleted ticket moves a creation bucket, kept for 8 days before the newest ticket.
      const was = newest;
      newest =
        [was, after?.createdAt]
          .filter((at): at is string => !!at)
          .sort()
          .at(-1) ?? null;
      const oldestKept = newest ? bucketKey(Date.parse(newest) - BUCKET_KEEP_MS) : null;
      if (newest !== was) moved = true;
      for (const [key, value] of inc) {
        if (value === 0 || !key.startsWith(CREATED)) continue;
        const bucket = key.slice(CREATED.length);
        // A bucket already dropped stays dropped (deleting an old ticket must not bring it back).
        if (oldestKept && bucket < oldestKept) continue;
        created.push({ bucket, value, position });
      }
      // Dropped once a day of the newest ticket: a bucket kept a little longer is past the week anyway.
      if (oldestKept && was && newest && was.slice(0, 10) !== newest.slice(0, 10)) pruneBelow = oldestKept;
    }
    if (moved) statsAt = position;
  }
  // Buckets first, each guarded by its own position: the sums document, written last, then never
  // claims moves a bucket has not got.
  const kept = pruneBelow ? created.filter(({ bucket }) => bucket >= pruneBelow!) : created;
  if (kept.length > 0) {
    const stored = new Map((await buckets.find({ _id: { $in: [...new Set(kept.map((move) => move.bucket))] } })).map((row) => [row._id, row.position ?? -1]));
    const totals = new Map<string, { count: number; position: number }>();
    for (const { bucket, value, position } of kept) {
      if (position <= (stored.get(bucket) ?? -1)) continue;
      totals.set(bucket, { count: (totals.get(bucket)?.count ?? 0) + value, position });
    }
    for (const [bucket, { count, position }] of totals) {
      if (!stored.has(bucket)) await buckets.insertOne({ _id: bucket, count, position });
      else if ((await buckets.updateOne({ _id: bucket, position: stored.get(bucket) }, { $inc: { count }, $set: { position } })).matched === 0)
        throw new MovedMeanwhileError(TICKET_CREATED);
    }
  }
  if (pruneBelow) await buckets.deleteMany({ _id: { $lt: pruneBelow } });
  if (statsAt !== (loaded?.position ?? -1)) {
    const update: Update = { $set: { position: statsAt, ...(newest !== previous ? { newestCreatedAt: newest } : {}) } };
    if (sums.size > 0) update.$inc = Object.fromEntries(sums);
    if (!loaded) await stats.insertOne({ _id: STATS_ID, position: -1 } as StatsRow);
    if ((await stats.updateOne({ _id: STATS_ID, position: loaded?.position ?? -1 }, update)).matched === 0) throw new MovedMeanwhileError(TICKET_STATS);
  }
}

/** Another writer changed a sums document between this page's read and its write. */
class MovedMeanwhileError extends Error {
  constructor(collection: string) {
    super(`${collection} was moved by another writer meanwhile; the page is applied again`);
    this.name = 'MovedMeanwhileError';
  }
}

/** The running sums; `created: false` leaves out the creation buckets (about 800 documents a week), which `createdSince` sums in the store. */
export async function loadTicketStats(store: ReadStore, { created = true } = {}): Promise<TicketStatsDoc> {
  const [found, buckets] = await Promise.all([
    store.collection<StatsRow>(TICKET_STATS).findOne({ _id: STATS_ID }),
    created ? store.collection<BucketRow>(TICKET_CREATED).find({}) : [],
  ]);
  return {
    _id: STATS_ID,
    byStatus: found?.byStatus ?? {},
    unassigned: found?.unassigned ?? 0,
    response: found?.response ?? { sum: 0, count: 0 },
    resolution: found?.resolution ?? { sum: 0, count: 0 },
    categories: found?.categories ?? {},
    teams: found?.teams ?? {},
    created: Object.fromEntries(buckets.filter(({ count }) => count !== 0).map(({ _id, count }) => [_id, count])),
    newestCreatedAt: found?.newestCreatedAt ?? null,
  };
}

export const average = ({ sum, count }: Sum) => (count > 0 ? Math.round(sum / count) : 0);

/** Tickets created at or after `since`, to the 15-minute bucket: the buckets' counts summed by the store. */
export async function createdSince(store: ReadStore, since: Date): Promise<number> {
  const from = bucketKey(since.getTime() + BUCKET_MS - 1);
  const [sum] = await store
    .collection<BucketRow>(TICKET_CREATED)
    .aggregate<{ count: number }>([{ $match: { _id: { $gte: from } } }, { $group: { _id: null, count: { $sum: '$count' } } }]);
  return sum?.count ?? 0;
}

/** The clock's parts in a time zone: a formatter made once per zone (making one cost 0.1 ms a dashboard). */
const clocks = new Map<string, Intl.DateTimeFormat>();
function clockIn(timeZone: string): Intl.DateTimeFormat {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    // Zones are validated before they get here (a few hundred names at most).
    clocks.set(timeZone, clock);
  }
  return clock;
}

/** Local midnight of `now` in an IANA time zone, as an instant. */
export function localMidnight(now: Date, timeZone: string): Date {
  const parts = Object.fromEntries(
    clockIn(timeZone)
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const wallClock = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = wallClock - Math.floor(now.getTime() / 1000) * 1000;
  return new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) - offset);
}
