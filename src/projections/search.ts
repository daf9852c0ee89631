import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { dispatcher } from './events';
import type { MergedMessage } from '../domain/ticket/ticket';
import type { Projection } from './runner';
import { termSet } from './searchText';

/**
 * The search read model (docs/search.md): per ticket the searchable text it holds and the lists of
 * its distinct words, which an index on each list (multikey) answers a word or a word prefix from
 * (`{ publicTerms: { $elemMatch: { $gte: 'refun', $lt: 'refuo' } } }`) on both read stores. People's
 * names, e-mails and Telegram usernames have their own word lists, joined to their tickets at read time.
 */
export const SEARCH_TICKETS = 'search_ticketWritesv2';
export const SEARCH_PEOPLE = 'search_personWritesv2';
/** Version 1 kept one posting document per (word, ticket): gone with the rebuild into version 2. */
const RETIRED = ['search_ticketWritesv1', 'search_terms_v1', 'search_personWritesv1', 'search_person_terms_v1'];

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

export interface SearchPersonDoc extends Doc {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  telegramUsername: string | null;
  terms: string[];
  _revision: number;
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
  const publicTerms = pooledTerms(ticketTexts(doc, false));
  const open = new Set(publicTerms);
  return { ...doc, publicTerms, internalTerms: pooledTerms(ticketTexts(doc, true)).filter((term) => !open.has(term)) };
}

/**
 * One string for each distinct word the lists hold: the same word in 50,000 tickets' lists is then
 * one string, not 50,000 (most of the index's memory otherwise). Emptied past a bound, so words of
 * deleted tickets cannot pile up; strings already filed stay as they are.
 */
const words = new Map<string, string>();
const MAX_POOLED_WORDS = 2_000_000;

function pooledTerms(texts: Iterable<string>): string[] {
  const terms: string[] = [];
  for (const term of termSet(texts)) {
    let pooled = words.get(term);
    if (pooled === undefined) {
      if (words.size >= MAX_POOLED_WORDS) words.clear();
      words.set(term, term);
      pooled = term;
    }
    terms.push(pooled);
  }
  return terms;
}

/** A ticket's word lists as sets, for the documents a page folds several posts into. */
const wordSets = new WeakMap<SearchTicketDoc, { open: Set<string>; hidden: Set<string> }>();

function wordSetsOf(doc: SearchTicketDoc) {
  let sets = wordSets.get(doc);
  if (!sets) {
    sets = { open: new Set(doc.publicTerms), hidden: new Set(doc.internalTerms) };
    wordSets.set(doc, sets);
  }
  return sets;
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
  if (next) entry.now = { ...next, terms: pooledTerms(personTexts(next)), _revision: revision };
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
    // A post only adds words: the ticket's lists grow by the message's, without reading the whole
    // conversation again. The lists (the page's own copies) grow in place, their sets kept for the page.
    const { open, hidden } = wordSetsOf(before);
    let revealed = false;
    for (const term of pooledTerms([content, ...message.files])) {
      if (open.has(term)) continue;
      if (!isInternal) {
        open.add(term);
        before.publicTerms.push(term);
        if (hidden.delete(term)) revealed = true;
      } else if (!hidden.has(term)) {
        hidden.add(term);
        before.internalTerms.push(term);
      }
    }
    before.messages.push(message);
    const internalTerms = revealed ? before.internalTerms.filter((term) => hidden.has(term)) : before.internalTerms;
    const now = { ...before, internalTerms, _revision: event.revision };
    wordSets.set(now, { open, hidden });
    page.tickets.get(before._id)!.now = now;
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

/** A ticket's document as it is now: replaced whole (its word lists with it), guarded by the revision it was read at. */
function writeOf<T extends Doc & { _revision: number }>(loaded: T | null, now: T | null, id: string): BulkOp<T> {
  if (!now) return { deleteOne: { filter: { _id: id } } };
  return loaded
    ? { replaceOne: { filter: { _id: id, _revision: loaded._revision }, replacement: now } }
    : { replaceOne: { filter: { _id: id }, replacement: now, upsert: true } };
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
  const ticketWrites: BulkOp<SearchTicketDoc>[] = [];
  for (const [id, { loaded, now }] of page.tickets) if (now !== loaded) ticketWrites.push(writeOf(loaded, now, id));
  const personWrites: BulkOp<SearchPersonDoc>[] = [];
  for (const [id, { loaded, now }] of page.people) if (now && now !== loaded) personWrites.push(writeOf(loaded, now, id));
  if (ticketWrites.length > 0) await store.collection<SearchTicketDoc>(SEARCH_TICKETS).bulkWrite(ticketWrites);
  if (personWrites.length > 0) await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).bulkWrite(personWrites);
}

/** Serves GET /api/search, the Live Tickets search and the bot's /search. */
export const searchProjection: Projection = {
  name: 'search',
  version: 2,
  collections: [SEARCH_TICKETS, SEARCH_PEOPLE],
  async setup(store: ReadStore) {
    for (const name of RETIRED) await store.collection(name).drop();
    const tickets = store.collection(SEARCH_TICKETS);
    // Staff look a word (or prefix) up in every ticket's lists; a customer in their own tickets' public words.
    await tickets.createIndex({ keys: { publicTerms: 1 } });
    await tickets.createIndex({ keys: { internalTerms: 1 } });
    await tickets.createIndex({ keys: { customer: 1, publicTerms: 1 } });
    await store.collection(SEARCH_PEOPLE).createIndex({ keys: { terms: 1 } });
  },
  types: evolve.types,
  apply: (event: RecordedEvent, store: ReadStore) => applySearchPage([event], store),
  applyPage: applySearchPage,
};
