import type { SearchQuery, SearchResults } from '#contract/search';
import { isStaff } from '#contract/users';
import type { ReadStore } from '../../platform/readstore/port';
import { type Audience, type SearchIndex, ftsQuery } from '../../projections/searchIndex';
import { parseQuery } from '../../projections/searchText';
import type { TicketView } from '../../projections/tickets';
import { type Searcher, emptyResults, hitTicket, recencyOf, recentMatches } from './window';

/** What the searcher may read: a customer their own tickets' public rows; staff every ticket, the notes unless their token lacks `notes:read`. */
export const audienceOf = (searcher: Searcher): Audience =>
  isStaff(searcher.role) ? { customer: null, notes: searcher.notes !== false } : { customer: searcher.id, notes: false };

/** A snippet cut from a field when no row holds a word (a match through the customer's person that FTS5 gives no snippet of). */
const SNIPPET_LENGTH = 160;

/**
 * GET /api/search on the SQLite store, answered by FTS5 (docs/search.md): the matches as the
 * searcher may read them (visibility is part of each FTS5 query, never a filter after it), then
 * the filters and recency on the tickets read model, BM25 per ticket over the window, and a
 * snippet per hit from `snippet()`. Every step costs the same for a ticket of 5,000 messages as
 * for one of five: a ticket's rows are sought by its rowid range, newest first.
 */
export async function searchIndexed(index: SearchIndex, store: ReadStore, searcher: Searcher, query: SearchQuery): Promise<SearchResults> {
  const parsed = parseQuery(query.q);
  const empty = emptyResults(query, parsed);
  const audience = audienceOf(searcher);
  const fts = ftsQuery(parsed);
  const ids = index.matching(audience, fts);
  if (ids.length === 0) return empty;
  const matched = new Set(ids);
  const { window, total, after } = await recentMatches(store, searcher, query, {
    count: async () => ids.length,
    ids: async () => ids,
    among: async (batch) => new Set(batch.filter((id) => matched.has(id))),
  });
  if (total === 0) return empty;
  const from = (query.page - 1) * query.limit;
  let pageOf: TicketView[] = [];
  if (from < window.length) {
    const numbers = index.numbers(window.map(({ _id }) => _id));
    const scores = index.scores(audience, [...numbers.values()], fts);
    // Relevance then recency: scores equal to three digits count as a tie.
    const score = (id: string) => Math.round((scores.get(numbers.get(id) ?? -1) ?? 0) * 1000);
    pageOf = window
      .map((ticket, at) => ({ ticket, at }))
      .sort((a, b) => score(b.ticket._id) - score(a.ticket._id) || a.at - b.at)
      .map(({ ticket }) => ticket)
      .slice(from, from + query.limit);
  }
  // The rest of the page: the matches beyond the window, in recency order.
  const wanted = query.limit - pageOf.length;
  if (wanted > 0 && total > window.length) pageOf.push(...(await after(window.length + Math.max(0, from - window.length), wanted)));
  const numbers = index.numbers(pageOf.map(({ _id }) => _id));
  const { recency } = recencyOf(searcher);
  const hits = pageOf.map((ticket) => {
    const number = numbers.get(ticket._id);
    const snippet = number === undefined ? null : index.snippet(audience, number, fts);
    return {
      ticket: hitTicket(ticket, recency),
      snippet: snippet ?? { source: 'title' as const, messageId: null, seq: null, text: ticket.title.slice(0, SNIPPET_LENGTH), highlights: [] },
    };
  });
  return { hits, pagination: { page: query.page, limit: query.limit, total, pages: Math.ceil(total / query.limit) }, query: empty.query };
}
