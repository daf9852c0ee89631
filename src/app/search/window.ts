import type { SearchQuery, SearchResults } from '#contract/search';
import { MAX_QUERY_LENGTH } from '#contract/search';
import { type Role, isStaff } from '#contract/users';
import type { Collection, Filter, ReadStore, Sort } from '../../platform/readstore/port';
import { type ParsedQuery, type Span, matchesWord, spans } from '../../projections/searchText';
import { TICKETS, type TicketView } from '../../projections/tickets';

export interface Searcher {
  id: string;
  role: Role;
  /** False for staff who may not read internal notes (an API token without `notes:read`): their notes' words find nothing. */
  notes?: boolean;
}

/**
 * Relevance is computed over this many most recently updated matches; the matches beyond them
 * follow in recency order. It bounds the work of a query for a common word whatever the size of
 * the desk (docs/search.md).
 */
const RANK_WINDOW = 100;
/** Above this many matches (of a staff query without filters), the window is found by reading the tickets newest first. */
const FEW_MATCHES = 2000;

/** What the server read of `q`, and the answer with no hit. */
export function emptyResults(query: SearchQuery, parsed: ParsedQuery): SearchResults {
  const summary = { words: parsed.words, phrases: parsed.phrases, excluded: parsed.excluded, truncated: query.q.length > MAX_QUERY_LENGTH };
  return { hits: [], pagination: { page: query.page, limit: query.limit, total: 0, pages: 0 }, query: summary };
}

/** A customer's recency is the `updatedAt` they see. */
export function recencyOf(searcher: Searcher): { recent: Sort; recency: (ticket: TicketView) => string } {
  return isStaff(searcher.role)
    ? { recent: { updatedAt: -1, ticketId: -1 }, recency: (ticket) => ticket.updatedAt }
    : { recent: { publicUpdatedAt: -1, ticketId: -1 }, recency: (ticket) => ticket.publicUpdatedAt };
}

export const hitTicket = (ticket: TicketView, recency: (ticket: TicketView) => string) => {
  const { _id, ticketId, title, status, priority, customer } = ticket;
  return { _id, ticketId, title, status, priority, customer, updatedAt: recency(ticket) };
};

/** A query with the tags its `tag:` terms named (staff's, docs/teams.md), `q` holding the other words. */
export type TaggedQuery = SearchQuery & { tags?: string[] };

export function ticketFilter(query: TaggedQuery, searcher: Searcher): Filter {
  const filter: Filter = {};
  if (query.tags?.length) filter.tags = query.tags.length === 1 ? query.tags[0] : { $all: query.tags };
  if (!isStaff(searcher.role)) filter['customer._id'] = searcher.id;
  if (query.status) filter.status = { $in: query.status };
  if (query.priority) filter.priority = { $in: query.priority };
  if (query.category) filter['category._id'] = query.category;
  if (query.assignee) filter['assignedAgent._id'] = query.assignee === 'unassigned' ? null : query.assignee === 'me' ? searcher.id : query.assignee;
  const updated = isStaff(searcher.role) ? 'updatedAt' : 'publicUpdatedAt';
  const range = (from?: string, to?: string) => ({ ...(from ? { $gte: from } : {}), ...(to ? { $lte: to } : {}) });
  if (query.createdFrom || query.createdTo) filter.createdAt = range(query.createdFrom, query.createdTo);
  if (query.updatedFrom || query.updatedTo) filter[updated] = range(query.updatedFrom, query.updatedTo);
  return filter;
}

/** The matches of a query as an engine finds them: how many, which, and which of some tickets. */
export interface Matches {
  count(): Promise<number>;
  ids(): Promise<string[]>;
  /** The share of all tickets that match, where the engine knows it without reading them: sizes the first batch of `newestMatching`. */
  share?(): Promise<number>;
  /** Which of these tickets match (their ids, and numbers for an engine that files tickets by number). */
  among(tickets: Array<{ _id: string; ticketId: number }>): Promise<Set<string>>;
}

/**
 * The matches at positions [skip, skip + limit) in recency order: the tickets read newest first (ids
 * only, in growing batches), each batch's matches asked of the engine. For a common word most of
 * the first tickets match, so the window reads a few hundred tickets, not every match.
 */
async function newestMatching(views: Collection<TicketView>, matches: Matches, recent: Sort, skip: number, limit: number): Promise<TicketView[]> {
  const found: string[] = [];
  let seen = 0;
  // Each batch skips the ones before it (reads them again): a first batch that likely holds the
  // page (half again as many tickets as the share of matches makes it need) reads a fifth as much
  // as doubling from a small one for a word in 3% of the tickets.
  const share = (await matches.share?.()) ?? 0;
  const first = share > 0 ? Math.ceil((1.5 * (skip + limit)) / share) : 4 * (skip + limit);
  for (let from = 0, batch = Math.max(4 * (skip + limit), first); found.length < limit; from += batch, batch *= 2) {
    const tickets = await views.find({}, { sort: recent, skip: from, limit: batch, projection: { _id: 1, ticketId: 1 } });
    const ids = tickets.map(({ _id }) => _id);
    const matching = await matches.among(tickets);
    for (const id of ids) if (matching.has(id) && seen++ >= skip && found.length < limit) found.push(id);
    if (ids.length < batch) break;
  }
  const byId = new Map((await views.find({ _id: { $in: found } })).map((ticket) => [ticket._id, ticket]));
  return found.flatMap((id) => byId.get(id) ?? []);
}

/** The RANK_WINDOW most recent matches with the filters and visibility, how many match in all, and the pages beyond the window. */
export async function recentMatches(
  store: ReadStore,
  searcher: Searcher,
  query: TaggedQuery,
  matches: Matches,
): Promise<{ window: TicketView[]; total: number; after: (skip: number, limit: number) => Promise<TicketView[]> }> {
  const { recent } = recencyOf(searcher);
  const filters = ticketFilter(query, searcher);
  const views = store.collection<TicketView>(TICKETS);
  // Staff may find every ticket: the engine counts the matches, and for many of them the window is
  // read from the tickets newest first (for a common word, a few hundred), never as a list of every match.
  const counted = isStaff(searcher.role) && Object.keys(filters).length === 0 ? await matches.count() : null;
  if (counted !== null && counted > FEW_MATCHES) {
    const after = (skip: number, limit: number) => newestMatching(views, matches, recent, skip, limit);
    return { window: await after(0, RANK_WINDOW), total: counted, after };
  }
  const ids = await matches.ids();
  const filter = { _id: { $in: ids }, ...filters };
  const [window, total] = ids.length > 0 ? await Promise.all([views.find(filter, { sort: recent, limit: RANK_WINDOW }), views.count(filter)]) : [[], 0];
  return { window, total, after: (skip, limit) => views.find(filter, { sort: recent, skip, limit }) };
}

/** A snippet shows about this many characters around the first highlighted word. */
const SNIPPET_LENGTH = 160;

export function highlightsIn(text: string, parsed: ParsedQuery): Span[] {
  return spans(text).filter(({ term }) => parsed.words.some((word) => matchesWord(term, word, parsed.exact.has(word))));
}

/** A window of `text` around its first highlighted word, the highlights as offsets into the window. */
export function cut(text: string, found: Span[]): { text: string; highlights: Array<[number, number]> } {
  const first = found[0]?.start ?? 0;
  let from = text.length <= SNIPPET_LENGTH ? 0 : Math.max(0, first - Math.floor(SNIPPET_LENGTH / 3));
  if (from > 0) {
    const space = text.lastIndexOf(' ', from);
    if (space > first - SNIPPET_LENGTH / 2) from = space + 1;
  }
  const to = Math.min(text.length, from + SNIPPET_LENGTH);
  return {
    text: text.slice(from, to),
    highlights: found.filter(({ start, end }) => start >= from && end <= to).map(({ start, end }) => [start - from, end - from] as [number, number]),
  };
}
