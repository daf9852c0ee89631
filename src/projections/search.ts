import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { dispatcher } from './events';
import type { MergedMessage } from '../domain/ticket/ticket';
import type { Projection } from './runner';
import { termSet } from './searchText';

/**
 * The search read model (docs/search.md): per ticket the searchable text it holds, and postings, one
 * document per (word, ticket, visibility), keyed and indexed by the normalised word so that a word
 * prefix is a range (`term >= 'refun' && term < 'refuo'`) on both read stores. People's names,
 * e-mails and Telegram usernames have postings of their own, joined to their tickets at read time.
 */
export const SEARCH_TICKETS = 'search_tickets_v1';
export const SEARCH_TERMS = 'search_terms_v1';
export const SEARCH_PEOPLE = 'search_people_v1';
export const SEARCH_PERSON_TERMS = 'search_person_terms_v1';

interface SearchMessage {
  _id: string;
  seq: number;
  text: string;
  files: string[];
  internal: boolean;
}

export interface SearchTicketDoc extends Doc {
  number: number;
  customer: string;
  title: string;
  description: string;
  /** Custom field answers, a file's name for a file field. */
  fields: string[];
  messages: SearchMessage[];
  /** The words a customer may find the ticket by, and those only staff may (internal notes' words not among the first). */
  publicTerms: string[];
  internalTerms: string[];
  _revision: number;
}

/** A word of a ticket: `internal` when only internal notes hold it. */
export interface TermPosting extends Doc {
  term: string;
  ticket: string;
  customer: string;
  internal: boolean;
}

export interface SearchPersonDoc extends Doc {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  telegramUsername: string | null;
  terms: string[];
  _revision: number;
}

export interface PersonPosting extends Doc {
  term: string;
  person: string;
}

/** The texts of a ticket each audience may find it by. */
function ticketTexts(doc: Pick<SearchTicketDoc, 'number' | 'title' | 'description' | 'fields' | 'messages'>, withInternal: boolean): string[] {
  const texts = [String(doc.number), doc.title, doc.description, ...doc.fields];
  for (const message of doc.messages) if (withInternal || !message.internal) texts.push(message.text, ...message.files);
  return texts;
}

export const personTexts = (person: Pick<SearchPersonDoc, 'username' | 'email' | 'firstName' | 'lastName' | 'telegramUsername'>) => [
  person.username,
  person.email,
  person.firstName,
  person.lastName,
  person.telegramUsername ?? '',
];

function withTerms(doc: Omit<SearchTicketDoc, 'publicTerms' | 'internalTerms'>): SearchTicketDoc {
  const open = termSet(ticketTexts(doc, false));
  const all = termSet(ticketTexts(doc, true));
  return { ...doc, publicTerms: [...open], internalTerms: [...all].filter((term) => !open.has(term)) };
}

interface Page {
  tickets: Map<string, { loaded: SearchTicketDoc | null; now: SearchTicketDoc | null }>;
  people: Map<string, { loaded: SearchPersonDoc | null; now: SearchPersonDoc | null }>;
}

function ticketOf(page: Page, event: { data: { ticketId: string }; revision: number }): SearchTicketDoc | null {
  const doc = page.tickets.get(event.data.ticketId)?.now ?? null;
  return doc && doc._revision < event.revision ? doc : null;
}

function putPerson(
  page: Page,
  userId: string,
  revision: number,
  change: (before: SearchPersonDoc | null) => Omit<SearchPersonDoc, 'terms' | '_revision'> | null,
) {
  const entry = page.people.get(userId)!;
  if (entry.now && entry.now._revision >= revision) return;
  const next = change(entry.now);
  if (next) entry.now = { ...next, terms: [...termSet(personTexts(next))], _revision: revision };
}

/** Messages joining a ticket; `staffOnly` (another customer's, after an admin's merge) makes all their words staff-only. */
function joinMessages(page: Page, event: { data: { ticketId: string }; revision: number }, messages: MergedMessage[], staffOnly: boolean) {
  const before = ticketOf(page, event);
  if (!before) return;
  const joined = messages.map((message, index) => ({
    _id: message.messageId,
    seq: before.messages.length + index + 1,
    text: message.content,
    files: message.attachments.map(({ originalName }) => originalName),
    internal: message.isInternal || staffOnly,
  }));
  page.tickets.get(before._id)!.now = withTerms({ ...before, messages: [...before.messages, ...joined], _revision: event.revision });
}

function leaveMessages(page: Page, event: { data: { ticketId: string }; revision: number }, messageIds: string[]) {
  const before = ticketOf(page, event);
  if (!before) return;
  const leaving = new Set(messageIds);
  page.tickets.get(before._id)!.now = withTerms({
    ...before,
    messages: before.messages.filter((message) => !leaving.has(message._id)),
    _revision: event.revision,
  });
}

const evolve = dispatcher<Page, void>({
  TicketOpened(event, page) {
    const entry = page.tickets.get(event.data.ticketId)!;
    if (entry.now) return;
    const { ticketId, number, customerId, title, description, customFieldValues } = event.data;
    const fields = customFieldValues.map(({ value }) => (typeof value === 'object' ? value.originalName : String(value)));
    entry.now = withTerms({ _id: ticketId, number, customer: customerId, title, description, fields, messages: [], _revision: event.revision });
  },
  MessagePosted(event, page) {
    const before = ticketOf(page, event);
    if (!before) return;
    const { messageId, content, attachments, isInternal } = event.data;
    const message: SearchMessage = {
      _id: messageId,
      seq: before.messages.length + 1,
      text: content,
      files: attachments.map(({ originalName }) => originalName),
      internal: isInternal,
    };
    // A post only adds words: the ticket's word lists grow by the message's, without reading the whole conversation again.
    const added = termSet([content, ...message.files]);
    const publicTerms = isInternal ? before.publicTerms : [...new Set([...before.publicTerms, ...added])];
    const shown = new Set(publicTerms);
    const internalTerms = [...new Set([...before.internalTerms, ...(isInternal ? added : [])])].filter((term) => !shown.has(term));
    page.tickets.get(before._id)!.now = { ...before, messages: [...before.messages, message], publicTerms, internalTerms, _revision: event.revision };
  },
  MessageEdited(event, page) {
    const before = ticketOf(page, event);
    if (!before) return;
    const messages = before.messages.map((message) => (message._id === event.data.messageId ? { ...message, text: event.data.content } : message));
    page.tickets.get(before._id)!.now = withTerms({ ...before, messages, _revision: event.revision });
  },
  // A merge or a split carries messages from one ticket to another: each is then found by the ticket it is in.
  TicketMergedFrom(event, page) {
    const { messages, crossCustomer } = event.data;
    joinMessages(page, event, messages, crossCustomer);
  },
  MessagesMovedIn(event, page) {
    joinMessages(page, event, event.data.messages, false);
  },
  TicketMergeFromUndone(event, page) {
    leaveMessages(page, event, event.data.messageIds);
  },
  MessagesMovedOut(event, page) {
    leaveMessages(
      page,
      event,
      event.data.messages.map((message) => message.messageId),
    );
  },
  TicketDeleted(event, page) {
    if (ticketOf(page, event)) page.tickets.get(event.data.ticketId)!.now = null;
  },
  UserRegistered(event, page) {
    const { userId, username, email, firstName, lastName } = event.data;
    putPerson(page, userId, event.revision, () => ({ _id: userId, username, email, firstName, lastName, telegramUsername: null }));
  },
  UserCreated(event, page) {
    const { userId, username, email, firstName, lastName, telegramUsername } = event.data;
    putPerson(page, userId, event.revision, () => ({ _id: userId, username, email, firstName, lastName, telegramUsername: telegramUsername ?? null }));
  },
  UserDetailsUpdated(event, page) {
    const changes = Object.fromEntries(Object.entries(event.data.changes).filter(([, value]) => value !== undefined));
    putPerson(page, event.data.userId, event.revision, (before) => before && { ...before, ...changes });
  },
  TelegramAccountLinked(event, page) {
    const { telegramUsername } = event.data;
    putPerson(page, event.data.userId, event.revision, (before) => before && (telegramUsername ? { ...before, telegramUsername } : null));
  },
});

const PERSON_EVENTS = new Set(['UserRegistered', 'UserCreated', 'UserDetailsUpdated', 'TelegramAccountLinked']);

const postingId = (term: string, ticket: string, internal: boolean) => `${ticket}:${internal ? 'i' : 'p'}:${term}`;
const personPostingId = (term: string, person: string) => `${person}:${term}`;

const missingFrom = (terms: readonly string[], other: readonly string[] | undefined) => {
  const known = new Set(other);
  return terms.filter((term) => !known.has(term));
};

/** The writes of a page, by collection: postings are written before the documents that list them. */
interface Writes {
  postings: BulkOp<TermPosting>[];
  tickets: BulkOp<SearchTicketDoc>[];
  personPostings: BulkOp<PersonPosting>[];
  people: BulkOp<SearchPersonDoc>[];
}

/**
 * Postings first, then the document that lists them: a crash between the two replays the events,
 * whose diff against the old document writes the same postings again (upserts) and deletes the same.
 */
function writeTicket(writes: Writes, loaded: SearchTicketDoc | null, now: SearchTicketDoc | null, id: string) {
  if (!now) {
    writes.postings.push({ deleteMany: { filter: { ticket: id } } });
    writes.tickets.push({ deleteOne: { filter: { _id: id } } });
    return;
  }
  const gone = [
    ...missingFrom(loaded?.publicTerms ?? [], now.publicTerms).map((term) => postingId(term, id, false)),
    ...missingFrom(loaded?.internalTerms ?? [], now.internalTerms).map((term) => postingId(term, id, true)),
  ];
  if (gone.length > 0) writes.postings.push({ deleteMany: { filter: { _id: { $in: gone } } } });
  for (const [terms, before, internal] of [
    [now.publicTerms, loaded?.publicTerms, false],
    [now.internalTerms, loaded?.internalTerms, true],
  ] as const) {
    for (const term of missingFrom(terms, before)) {
      const posting: TermPosting = { _id: postingId(term, id, internal), term, ticket: id, customer: now.customer, internal };
      writes.postings.push({ replaceOne: { filter: { _id: posting._id }, replacement: posting, upsert: true } });
    }
  }
  writes.tickets.push(
    loaded
      ? { replaceOne: { filter: { _id: id, _revision: loaded._revision }, replacement: now } }
      : { replaceOne: { filter: { _id: id }, replacement: now, upsert: true } },
  );
}

function writePerson(writes: Writes, loaded: SearchPersonDoc | null, now: SearchPersonDoc) {
  const gone = missingFrom(loaded?.terms ?? [], now.terms).map((term) => personPostingId(term, now._id));
  if (gone.length > 0) writes.personPostings.push({ deleteMany: { filter: { _id: { $in: gone } } } });
  for (const term of missingFrom(now.terms, loaded?.terms)) {
    const posting: PersonPosting = { _id: personPostingId(term, now._id), term, person: now._id };
    writes.personPostings.push({ replaceOne: { filter: { _id: posting._id }, replacement: posting, upsert: true } });
  }
  writes.people.push({ replaceOne: { filter: { _id: now._id }, replacement: now, upsert: true } });
}

/** One read per collection for the tickets and people a page touches, the events folded in memory, then one bulk write per collection. */
async function applySearchPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const ticketIds = [...new Set(events.filter(({ type }) => !PERSON_EVENTS.has(type)).map(({ data }) => String(data.ticketId)))];
  const personIds = [...new Set(events.filter(({ type }) => PERSON_EVENTS.has(type)).map(({ data }) => String(data.userId)))];
  const [tickets, people] = await Promise.all([
    ticketIds.length > 0 ? store.collection<SearchTicketDoc>(SEARCH_TICKETS).find({ _id: { $in: ticketIds } }) : [],
    personIds.length > 0 ? store.collection<SearchPersonDoc>(SEARCH_PEOPLE).find({ _id: { $in: personIds } }) : [],
  ]);
  const page: Page = { tickets: new Map(), people: new Map() };
  for (const id of ticketIds) page.tickets.set(id, { loaded: null, now: null });
  for (const doc of tickets) page.tickets.set(doc._id, { loaded: doc, now: doc });
  for (const id of personIds) page.people.set(id, { loaded: null, now: null });
  for (const doc of people) page.people.set(doc._id, { loaded: doc, now: doc });
  for (const event of events) evolve.handle(event, page);
  const writes: Writes = { postings: [], tickets: [], personPostings: [], people: [] };
  for (const [id, { loaded, now }] of page.tickets) if (now !== loaded) writeTicket(writes, loaded, now, id);
  for (const { loaded, now } of page.people.values()) if (now && now !== loaded) writePerson(writes, loaded, now);
  // One ordered bulk write per collection, postings before the documents that list them.
  if (writes.postings.length > 0) await store.collection<TermPosting>(SEARCH_TERMS).bulkWrite(writes.postings);
  if (writes.tickets.length > 0) await store.collection<SearchTicketDoc>(SEARCH_TICKETS).bulkWrite(writes.tickets);
  if (writes.personPostings.length > 0) await store.collection<PersonPosting>(SEARCH_PERSON_TERMS).bulkWrite(writes.personPostings);
  if (writes.people.length > 0) await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).bulkWrite(writes.people);
}

/** Serves GET /api/search, the Live Tickets search and the bot's /search. */
export const searchProjection: Projection = {
  name: 'search',
  version: 1,
  collections: [SEARCH_TICKETS, SEARCH_TERMS, SEARCH_PEOPLE, SEARCH_PERSON_TERMS],
  async setup(store: ReadStore) {
    const terms = store.collection(SEARCH_TERMS);
    // Staff look a word (or prefix) up across every ticket; a customer within their own tickets' public words.
    await terms.createIndex({ keys: { term: 1 } });
    await terms.createIndex({ keys: { customer: 1, term: 1 } });
    await terms.createIndex({ keys: { ticket: 1 } });
    await store.collection(SEARCH_TICKETS).createIndex({ keys: { customer: 1 } });
    await store.collection(SEARCH_PERSON_TERMS).createIndex({ keys: { term: 1 } });
  },
  types: evolve.types,
  apply: (event: RecordedEvent, store: ReadStore) => applySearchPage([event], store),
  applyPage: applySearchPage,
};
