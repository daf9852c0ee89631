import type { SearchQuery, SearchResults } from '#contract/search';
import { isStaff } from '#contract/users';
import type { ReadStore } from '../../platform/readstore/port';
import { type Audience, type SearchIndex, ftsQuery } from '../../projections/searchIndex';
import { parseQuery } from '../../projections/searchText';
import { type Searcher, cut, emptyResults, highlightsIn, hitTicket, recencyOf, recentMatches } from './window';

/** What the searcher may read: a customer their own tickets' public rows; staff every ticket, the notes unless their token lacks `notes:read`. */
export const audienceOf = (searcher: Searcher): Audience =>
  isStaff(searcher.role) ? { customer: null, notes: searcher.notes !== false } : { customer: searcher.id, notes: false };

/**
 * GET /api/search on the SQLite store, answered by FTS5 (docs/search.md): the matches as the
 * searcher may read them (visibility is part of each FTS5 query, never a filter after it), then
 * the filters and recency on the tickets read model, BM25 per ticket over the window, and a
 * snippet per hit cut from the newest row holding a word. No step reads a conversation: a ticket of
 * 5,000 messages costs what 5,000 messages of other tickets do, in SQLite, never in JavaScript.
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
  const numbers = index.numbers(window.map(({ _id }) => _id));
  const ranked = from < window.length ? index.rank(audience, [...numbers.values()], fts) : new Map();
  // Relevance then recency: scores equal to three digits count as a tie.
  const score = (id: string) => Math.round((ranked.get(numbers.get(id) ?? -1)?.score ?? 0) * 1000);
  const pageOf = window
    .map((ticket, at) => ({ ticket, at }))
    .sort((a, b) => score(b.ticket._id) - score(a.ticket._id) || a.at - b.at)
    .map(({ ticket }) => ticket)
    .slice(from, from + query.limit);
  // The rest of the page: the matches beyond the window, in recency order.
  const wanted = query.limit - pageOf.length;
  if (wanted > 0 && total > window.length) {
    const beyond = await after(window.length + Math.max(0, from - window.length), wanted);
    for (const [id, number] of index.numbers(beyond.map(({ _id }) => _id))) numbers.set(id, number);
    for (const [number, found] of index.rank(
      audience,
      beyond.flatMap(({ _id }) => numbers.get(_id) ?? []),
      fts,
    ))
      ranked.set(number, found);
    pageOf.push(...beyond);
  }
  const { recency } = recencyOf(searcher);
  const hits = pageOf.map((ticket) => {
    const number = numbers.get(ticket._id);
    const source = number === undefined ? null : index.snippetSource(number, ranked.get(number)?.row ?? null);
    const found = source ? highlightsIn(source.text, parsed) : [];
    const snippet = source && (found.length > 0 || source.source !== 'customer') ? { ...source, ...cut(source.text, found) } : null;
    return { ticket: hitTicket(ticket, recency), snippet: snippet ?? { source: 'title' as const, messageId: null, seq: null, ...cut(ticket.title, []) } };
  });
  return { hits, pagination: { page: query.page, limit: query.limit, total, pages: Math.ceil(total / query.limit) }, query: empty.query };
}
