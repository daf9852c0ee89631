import MiniSearch, { type Query } from 'minisearch';
import type { SearchQuery, SearchResults, SearchSnippet } from '#contract/search';
import { isStaff } from '#contract/users';
import { ForbiddenError } from '#contract/errors';
import { tagTermsOf } from '#contract/tickets';
import { type Doc, type Filter, type ReadStore, escapeRegex } from '../../platform/readstore/port';
import {
  SEARCH_MESSAGES,
  SEARCH_PEOPLE,
  SEARCH_TICKETS,
  type SearchMessageDoc,
  type SearchPersonDoc,
  type SearchTicketDoc,
  personTexts,
  searchProjection,
} from '../../projections/search';
import { type ParsedQuery, type Span, hasPhrase, matchesWord, parseQuery, tokenize } from '../../projections/searchText';
import { SearchIndex, ftsQuery } from '../../projections/searchIndex';
import { TICKETS, type TicketView } from '../../projections/tickets';
import type { ProjectionRunner } from '../../projections/runner';
import { searchIndexed, audienceOf } from './indexed';
import { type Searcher, type TaggedQuery, cut, emptyResults, highlightsIn, hitTicket, recencyOf, recentMatches, ticketFilter } from './window';

/**
 * A word's condition on a list of words: the word itself, or any word it begins (an anchored literal
 * prefix, which both read stores answer from the list's index as a range of words).
 */
/** How long a search waits for the search model to hold what the others hold (it is applied after them) before it answers with what it holds. */
const CURRENT_WAIT_MS = 2000;

/**
 * The search model is deferred (docs/read-models.md, "Deferred projections"): a live page commits the
 * models commands and pushes read first, and the search index a moment after, so a post's answer and
 * push never wait for its words. A search waits here until the index holds every event the other
 * models hold: a message its sender's post just answered for is found by their next search, as are
 * everyone else's up to that moment.
 */
export async function searchIsCurrent(projections: Pick<ProjectionRunner, 'position' | 'waitFor'>): Promise<void> {
  await projections.waitFor(projections.position, CURRENT_WAIT_MS, [searchProjection.name]);
}

const wordIn = (word: string, exact: boolean) => (exact ? word : { $regex: `^${escapeRegex(word)}` });

const idsOf = async (found: Promise<Doc[]>) => (await found).map(({ _id }) => _id);

/**
 * Where `word` may find a ticket for this searcher: its public words, for staff also its notes'
 * words, and its customer's name, e-mail or Telegram username. A customer's filter (with
 * `customer` beside it, see `matchFilter`) reads only their own tickets' public words, so neither
 * its result nor its cost depends on anyone else's tickets or on internal notes.
 */
async function wordFilter(store: ReadStore, searcher: Searcher, word: string, exact: boolean): Promise<Filter[]> {
  const condition = wordIn(word, exact);
  const staff = isStaff(searcher.role);
  const people = staff
    ? await idsOf(store.collection<SearchPersonDoc>(SEARCH_PEOPLE).find({ terms: condition }, { projection: { _id: 1 } }))
    : (await ownTerms(store, searcher.id)).some((term) => matchesWord(term, word, exact))
      ? [searcher.id]
      : [];
  const notes = staff && searcher.notes !== false;
  return [{ publicTerms: condition }, ...(notes ? [{ internalTerms: condition }] : []), ...(people.length > 0 ? [{ customer: { $in: people } }] : [])];
}

/** The search documents matching every word and none of the excluded words, as this searcher may see them (null: no word). */
async function matchFilter(store: ReadStore, searcher: Searcher, parsed: ParsedQuery): Promise<Filter | null> {
  if (parsed.words.length === 0) return null;
  const wanted = await Promise.all(parsed.words.map(async (word) => ({ $or: await wordFilter(store, searcher, word, parsed.exact.has(word)) })));
  const excluded = (await Promise.all(parsed.excluded.map((word) => wordFilter(store, searcher, word, true)))).flat();
  return {
    // A customer's query starts from their own tickets and tests only those against the words: what it
    // reads, and so its time, never depends on how often a word occurs in anyone else's tickets.
    ...(isStaff(searcher.role) ? {} : { _id: { $in: await ownTickets(store, searcher.id) } }),
    $and: wanted,
    ...(excluded.length > 0 ? { $nor: excluded } : {}),
  };
}

const ownTickets = (store: ReadStore, customer: string) =>
  idsOf(store.collection<SearchTicketDoc>(SEARCH_TICKETS).find({ customer }, { projection: { _id: 1 } }));

async function ownTerms(store: ReadStore, userId: string): Promise<string[]> {
  return (await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).findOne({ _id: userId }))?.terms ?? [];
}

/** The ids of the tickets matching every word and none of the excluded words, as this searcher may see them. */
export async function matchingTickets(store: ReadStore, searcher: Searcher, parsed: ParsedQuery): Promise<Set<string>> {
  const index = SearchIndex.of(store);
  if (index) return new Set(index.matching(audienceOf(searcher), ftsQuery(parsed)));
  const filter = await matchFilter(store, searcher, parsed);
  if (!filter) return new Set();
  return new Set(await idsOf(store.collection<SearchTicketDoc>(SEARCH_TICKETS).find(filter, { projection: { _id: 1 } })));
}

/** A ticket with the conversation this searcher reads (a customer never the internal notes), in order. */
type Readable = SearchTicketDoc & { messages: SearchMessageDoc[] };

/** The tickets' search documents with their conversations as this searcher may read them: one read of each collection. */
async function readable(store: ReadStore, ids: string[], searcher: Searcher): Promise<Map<string, Readable>> {
  if (ids.length === 0) return new Map();
  const [tickets, messages] = await Promise.all([
    store.collection<SearchTicketDoc>(SEARCH_TICKETS).find({ _id: { $in: ids } }),
    store.collection<SearchMessageDoc>(SEARCH_MESSAGES).find({ ticket: { $in: ids }, ...(isStaff(searcher.role) ? {} : { internal: false }) }),
  ]);
  const docs = new Map(tickets.map((doc) => [doc._id, { ...doc, messages: [] as SearchMessageDoc[] }]));
  for (const message of messages.sort((a, b) => a.seq - b.seq)) docs.get(message.ticket)?.messages.push(message);
  return docs;
}

/** Whether a text can hold a word beginning with `word`: a cheap test before splitting it into words (exact for plain ASCII text). */
const mayHold = (text: string, words: string[]) => /[^ -~\s]/.test(text) || words.some((word) => text.toLowerCase().includes(word));

const FIELDS = ['number', 'title', 'description', 'fields', 'customer', 'messages'] as const;
const BOOST = { number: 6, title: 3, customer: 2, description: 1.5, fields: 1.5, messages: 1 };

/**
 * Scores the window with MiniSearch, built from what the searcher may see of those tickets only:
 * a score never depends on a note or another customer's words (their frequencies included).
 */
function rank(docs: Readable[], people: Map<string, SearchPersonDoc>, parsed: ParsedQuery): Map<string, number> {
  // Only the words a query word can match are filed: a score reads those words' counts, the number of
  // documents and each field's count of distinct words (taken before this filter), so it is unchanged,
  // and the window's other words (most of them) are never put in MiniSearch's tree.
  const canMatch = (term: string) => parsed.words.some((word) => matchesWord(term, word, parsed.exact.has(word)));
  const mini = new MiniSearch<Record<(typeof FIELDS)[number] | 'id', string>>({
    fields: [...FIELDS],
    tokenize,
    processTerm: (term) => (canMatch(term) ? term : null),
    searchOptions: { processTerm: (term) => term },
  });
  mini.addAll(
    docs.map((doc) => {
      const person = people.get(doc.customer);
      const messages = doc.messages.flatMap(({ text, files }) => [text, ...files]).filter((text) => mayHold(text, parsed.words));
      return {
        id: doc._id,
        number: String(doc.number),
        title: doc.title,
        description: doc.description,
        fields: doc.fields.join('\n'),
        customer: person ? personTexts(person).join(' ') : '',
        messages: messages.join('\n'),
      };
    }),
  );
  const query: Query = { combineWith: 'AND', queries: parsed.words.map((word) => ({ queries: [word], prefix: !parsed.exact.has(word) })) };
  return new Map(mini.search(query, { boost: BOOST }).map(({ id, score }) => [String(id), score]));
}

/** The best matching message (the most distinct query words, then the latest), else the ticket field the words are in. */
function snippetOf(doc: Readable, person: SearchPersonDoc | undefined, parsed: ParsedQuery): SearchSnippet {
  let best: { message: SearchMessageDoc; text: string; found: Span[]; words: number } | null = null;
  for (const message of doc.messages) {
    const text = [message.text, ...message.files].join('\n');
    if (!mayHold(text, parsed.words)) continue;
    const found = highlightsIn(text, parsed);
    const words = new Set(found.map(({ term }) => parsed.words.find((word) => matchesWord(term, word, parsed.exact.has(word))))).size;
    if (words > 0 && (!best || words >= best.words)) best = { message, text, found, words };
  }
  if (best) return { source: 'message', messageId: best.message.messageId, seq: best.message.seq, ...cut(best.text, best.found) };
  const fields: Array<[SearchSnippet['source'], string]> = [
    ['title', doc.title],
    ['description', doc.description],
    ...doc.fields.map((text) => ['field', text] as [SearchSnippet['source'], string]),
    ['customer', person ? personTexts(person).filter(Boolean).join(' ') : ''],
    ['number', `#${doc.number}`],
  ];
  for (const [source, text] of fields) {
    const found = highlightsIn(text, parsed);
    if (found.length > 0) return { source, messageId: null, seq: null, ...cut(text, found) };
  }
  return { source: 'title', messageId: null, seq: null, ...cut(doc.title, []) };
}

/**
 * GET /api/search: every match is first narrowed to what the searcher may see (their tickets, the
 * public words for a customer) and to the filters, and only then counted, ranked and cut into
 * snippets, so no count, score, snippet or timing reflects a note or another customer's ticket.
 */
/**
 * `GET /search`, the search dialog and the bot's /search. `tag:refund` terms (docs/teams.md) are read
 * as the Live Tickets search reads them: staff's (a customer's is 403), lowercased, all on the ticket.
 * They narrow the tickets read model beside the other filters on both engines; with no other word the
 * tagged tickets come in recency order, their title as the snippet.
 */
export async function searchTickets(store: ReadStore, searcher: Searcher, query: SearchQuery): Promise<SearchResults> {
  const { tags, words } = tagTermsOf(query.q);
  if (tags.length === 0) return searchWords(store, searcher, query);
  if (!isStaff(searcher.role)) throw new ForbiddenError('Only staff can filter by team or tag');
  const tagged: TaggedQuery = { ...query, q: words, tags: [...new Set(tags)] };
  return words ? searchWords(store, searcher, tagged) : taggedOnly(store, searcher, tagged);
}

async function taggedOnly(store: ReadStore, searcher: Searcher, query: TaggedQuery): Promise<SearchResults> {
  const { recent, recency } = recencyOf(searcher);
  const views = store.collection<TicketView>(TICKETS);
  const filter = ticketFilter(query, searcher);
  const [page, total] = await Promise.all([
    views.find(filter, { sort: recent, skip: (query.page - 1) * query.limit, limit: query.limit }),
    views.count(filter),
  ]);
  const hits = page.map((ticket) => ({
    ticket: hitTicket(ticket, recency),
    snippet: { source: 'title' as const, messageId: null, seq: null, text: ticket.title, highlights: [] },
  }));
  const { query: summary } = emptyResults(query, parseQuery(''));
  return { hits, pagination: { page: query.page, limit: query.limit, total, pages: Math.ceil(total / query.limit) }, query: summary };
}

async function searchWords(store: ReadStore, searcher: Searcher, query: TaggedQuery): Promise<SearchResults> {
  const index = SearchIndex.of(store);
  if (index) return searchIndexed(index, store, searcher, query);
  const parsed = parseQuery(query.q);
  const empty = emptyResults(query, parsed);
  const matches = await matchFilter(store, searcher, parsed);
  if (!matches) return empty;
  const { recency } = recencyOf(searcher);
  const searchDocs = store.collection<SearchTicketDoc>(SEARCH_TICKETS);
  // Only the window is read whole and ranked; the count and the pages beyond it are the stores'.
  const { window, total, after } = await recentMatches(store, searcher, query, {
    count: () => searchDocs.count(matches),
    ids: () => idsOf(searchDocs.find(matches, { projection: { _id: 1 } })),
    among: async (tickets) => new Set(await idsOf(searchDocs.find({ _id: { $in: tickets.map(({ _id }) => _id) }, ...matches }, { projection: { _id: 1 } }))),
  });
  if (total === 0) return empty;
  const docs = await readable(
    store,
    window.map(({ _id }) => _id),
    searcher,
  );
  let ranked = window.filter(({ _id }) => docs.has(_id));
  if (parsed.phrases.length > 0) {
    // A phrase is checked on the window's texts: beyond the window, tickets holding all its words still count.
    ranked = ranked.filter(({ _id }) => {
      const doc = docs.get(_id)!;
      const texts = [doc.title, doc.description, ...doc.fields, ...doc.messages.flatMap(({ text, files }) => [text, ...files])];
      const terms = texts.map(tokenize);
      return parsed.phrases.every((phrase) => terms.some((words) => hasPhrase(words, phrase)));
    });
  }
  const shown = total - (window.length - ranked.length);
  const from = (query.page - 1) * query.limit;
  const inWindow = from < ranked.length;
  const customers = [...new Set([...docs.values()].map(({ customer }) => customer))];
  const people = new Map((await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).find({ _id: { $in: customers } })).map((person) => [person._id, person]));
  let pageOf: TicketView[];
  if (inWindow) {
    const scores = rank(
      ranked.map(({ _id }) => docs.get(_id)!),
      people,
      parsed,
    );
    // Relevance then recency: scores equal to three digits count as a tie.
    const score = (id: string) => Math.round((scores.get(id) ?? 0) * 1000);
    const order = ranked
      .map((ticket, at) => ({ ticket, at }))
      .sort((a, b) => score(b.ticket._id) - score(a.ticket._id) || a.at - b.at)
      .map(({ ticket }) => ticket);
    pageOf = order.slice(from, from + query.limit);
  } else pageOf = [];
  // The rest of the page: the matches beyond the window, in recency order.
  const wanted = query.limit - pageOf.length;
  if (wanted > 0 && total > window.length) pageOf.push(...(await after(window.length + Math.max(0, from - ranked.length), wanted)));
  const extra = pageOf.filter(({ _id }) => !docs.has(_id)).map(({ _id }) => _id);
  for (const [id, doc] of await readable(store, extra, searcher)) docs.set(id, doc);
  const missing = [...new Set(pageOf.map(({ _id }) => docs.get(_id)?.customer).filter((id): id is string => !!id && !people.has(id)))];
  if (missing.length > 0)
    for (const person of await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).find({ _id: { $in: missing } })) people.set(person._id, person);
  const hits = pageOf.flatMap((ticket) => {
    const doc = docs.get(ticket._id);
    if (!doc) return [];
    return [{ ticket: hitTicket(ticket, recency), snippet: snippetOf(doc, people.get(doc.customer), parsed) }];
  });
  return { hits, pagination: { page: query.page, limit: query.limit, total: shown, pages: Math.ceil(shown / query.limit) }, query: empty.query };
}
