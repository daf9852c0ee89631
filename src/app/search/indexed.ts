import type { SearchResults } from '#contract/search';
import { isStaff } from '#contract/users';
import type { ReadStore } from '../../platform/readstore/port';
import { type Audience, type FtsQuery, type SearchIndex, ftsQuery } from '../../projections/searchIndex';
import { parseQuery } from '../../projections/searchText';
import { type Matches, type Searcher, type TaggedQuery, cut, emptyResults, highlightsIn, hitTicket, recencyOf, recentMatches } from './window';

/** What the searcher may read: a customer their own tickets' public rows; staff every ticket, the notes unless their token lacks `notes:read`. */
export const audienceOf = (searcher: Searcher): Audience =>
  isStaff(searcher.role) ? { customer: null, notes: searcher.notes !== false } : { customer: searcher.id, notes: false };

/**
 * The matches as `recentMatches` asks for them. Staff's come from the word rows, a ticket each: the
 * count is FTS5's, and the window asks only whether the newest tickets match, so a common word costs
 * what its hundred newest matches do, not what its every posting does. A customer's (and a phrase's)
 * are the list of matches `matching` finds in the rows the searcher may read.
 */
function matchesOf(index: SearchIndex, audience: Audience, fts: FtsQuery): Matches {
  const words = index.wordMatches(audience, fts);
  if (!words) {
    let ids: string[] | null = null;
    let matched: Set<string> | null = null;
    const all = () => (ids ??= index.matching(audience, fts));
    return {
      count: async () => all().length,
      ids: async () => all(),
      among: async (batch) => {
        matched ??= new Set(all());
        return new Set(batch.flatMap(({ _id }) => (matched!.has(_id) ? [_id] : [])));
      },
    };
  }
  return {
    count: async () => words.count(),
    share: async () => words.count() / index.tickets(),
    ids: async () => index.ids(words.numbers()),
    among: async (batch) => {
      const found = words.among(batch.map(({ ticketId }) => ticketId));
      return new Set(batch.flatMap(({ _id, ticketId }) => (found.has(ticketId) ? [_id] : [])));
    },
  };
}

/**
 * GET /api/search on the SQLite store, answered by FTS5 (docs/search.md): the matches as the
 * searcher may read them (visibility is part of each FTS5 query, never a filter after it), then
 * the filters and recency on the tickets read model, BM25 per ticket over the window, and a
 * snippet per hit cut from the newest row holding a word. No step reads a conversation: a ticket of
 * 5,000 messages costs what 5,000 messages of other tickets do, in SQLite, never in JavaScript.
 */
export async function searchIndexed(index: SearchIndex, store: ReadStore, searcher: Searcher, query: TaggedQuery): Promise<SearchResults> {
  const parsed = parseQuery(query.q);
  const empty = emptyResults(query, parsed);
  const audience = audienceOf(searcher);
  const fts = ftsQuery(parsed);
  const { window, total, after } = await recentMatches(store, searcher, query, matchesOf(index, audience, fts));
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
