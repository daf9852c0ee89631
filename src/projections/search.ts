import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { dispatcher } from './events';
import type { MergedMessage } from '../domain/ticket/ticket';
import type { Projection } from './runner';
import { SearchIndex } from './searchIndex';
import { tokenize } from './searchText';

/**
 * The search read model (docs/search.md): per ticket its searchable fields and the lists of its
 * distinct words, which an index on each list (multikey) answers a word or a word prefix from on
 * both read stores; its messages' texts are documents of their own, read for the tickets a query
 * ranks (so a post writes one small document and a ticket's list, never its whole conversation).
 * People's names, e-mails and Telegram usernames have their own word lists, joined to their
 * tickets at read time. On SQLite the lists stay empty: FTS5 answers from rows of its own
 * (searchIndex.ts), written in the same page.
 */
export const SEARCH_TICKETS = 'search_tickets_v3';
export const SEARCH_MESSAGES = 'search_messages_v3';
export const SEARCH_PEOPLE = 'search_people_v2';
/** Version 1 kept one posting document per (word, ticket), version 2 the messages inside the ticket's document. */
const RETIRED = ['search_tickets_v1', 'search_terms_v1', 'search_people_v1', 'search_person_terms_v1', 'search_tickets_v2'];

/** A message as search reads it, in the ticket it is in now (`_id` is `<ticket>:<message>`: a merge copies messages). */
export interface SearchMessageDoc extends Doc {
  ticket: string;
  messageId: string;
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
  /** The last position given to a message here. */
  lastSeq: number;
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
function ticketTexts(doc: Pick<SearchTicketDoc, 'number' | 'title' | 'description' | 'fields'>, messages: SearchMessageDoc[], withInternal: boolean): string[] {
  const texts = [String(doc.number), doc.title, doc.description, ...doc.fields];
  for (const message of messages) if (withInternal || !message.internal) texts.push(message.text, ...message.files);
  return texts;
}

export const personTexts = (person: Pick<SearchPersonDoc, 'username' | 'email' | 'firstName' | 'lastName' | 'telegramUsername'>) => [
  person.username,
  person.email,
  person.firstName,
  person.lastName,
  person.telegramUsername ?? '',
];

/** The ticket with its word lists; empty where FTS5 answers the queries (`terms` false: the SQLite store). */
function withTerms(doc: Omit<SearchTicketDoc, 'publicTerms' | 'internalTerms'>, messages: SearchMessageDoc[], terms: boolean): SearchTicketDoc {
  if (!terms) return { ...doc, publicTerms: [], internalTerms: [] };
  const publicTerms = pooledTerms(ticketTexts(doc, messages, false));
  // Without a note (every ticket as it opens) nothing is for staff only: the texts are read once.
  if (!messages.some(({ internal }) => internal)) return { ...doc, publicTerms, internalTerms: [] };
  const open = new Set(publicTerms);
  return { ...doc, publicTerms, internalTerms: pooledTerms(ticketTexts(doc, messages, true)).filter((term) => !open.has(term)) };
}

/**
 * One string for each distinct word the lists hold: the same word in 50,000 tickets' lists is then
 * one string, not 50,000 (most of the index's memory otherwise). Emptied past a bound, so words of
 * deleted tickets cannot pile up; strings already filed stay as they are.
 */
const words = new Map<string, string>();
const MAX_POOLED_WORDS = 2_000_000;

function pooled(term: string): string {
  const known = words.get(term);
  if (known !== undefined) return known;
  if (words.size >= MAX_POOLED_WORDS) words.clear();
  words.set(term, term);
  return term;
}

/** The distinct words of the texts, in the order they first occur, each as the pool's string. */
function pooledTerms(texts: Iterable<string>): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const text of texts)
    for (const word of tokenize(text)) {
      if (seen.has(word)) continue;
      seen.add(word);
      terms.push(pooled(word));
    }
  return terms;
}

/**
 * A ticket of the page: its document as loaded and as the events leave it; its whole conversation
 * when an event of the page needs it (an edit, messages leaving), else only the messages added; and
 * the message documents to write or delete.
 */
interface TicketEntry {
  loaded: SearchTicketDoc | null;
  now: SearchTicketDoc | null;
  conversation: SearchMessageDoc[] | null;
  written: Map<string, SearchMessageDoc>;
  /** Message documents leaving the ticket, with their positions. */
  deleted: Map<string, number>;
  /** `now`'s word lists as sets, while a page folds several posts into it (`of` is the document they describe). */
  sets: { of: SearchTicketDoc; open: Set<string>; hidden: Set<string> } | null;
}

interface Page {
  /** The word lists are kept (the MongoDB and memory stores): on SQLite, FTS5 answers from its own rows and the lists stay empty. */
  terms: boolean;
  tickets: Map<string, TicketEntry>;
  people: Map<string, { loaded: SearchPersonDoc | null; now: SearchPersonDoc | null }>;
}

/** The events whose ticket's conversation the page reads whole: they change or remove words already listed. */
const NEEDS_CONVERSATION = new Set(['MessageEdited', 'TicketMergeFromUndone', 'MergedMessagesRemoved', 'MessagesMovedOut']);

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
  if (next) entry.now = { ...next, terms: page.terms ? pooledTerms(personTexts(next)) : [], _revision: revision };
}

const messageDoc = (ticket: SearchTicketDoc, seq: number, message: MergedMessage, staffOnly: boolean): SearchMessageDoc => ({
  _id: `${ticket._id}:${message.messageId}`,
  ticket: ticket._id,
  messageId: message.messageId,
  seq,
  text: message.content,
  files: message.attachments.map(({ originalName }) => originalName),
  internal: message.isInternal || staffOnly,
});

function fileMessage(entry: TicketEntry, doc: SearchMessageDoc): void {
  entry.conversation?.push(doc);
  entry.written.set(doc._id, doc);
  entry.deleted.delete(doc._id);
}

/**
 * Messages joining a ticket (posted, merged in, moved in): each a document, and their words added to
 * the ticket's lists without reading the conversation again. The lists (the page's own copies) grow
 * in place, their sets kept for the page. `staffOnly` (another customer's words, after an admin's
 * merge) files all their words as staff-only.
 */
function addMessages(page: Page, event: { data: { ticketId: string }; revision: number }, messages: MergedMessage[], staffOnly: boolean) {
  const before = ticketOf(page, event);
  if (!before) return;
  const entry = page.tickets.get(before._id)!;
  if (!page.terms) {
    entry.now = { ...before, lastSeq: before.lastSeq + messages.length, _revision: event.revision };
    for (const [at, message] of messages.entries()) fileMessage(entry, messageDoc(before, before.lastSeq + at + 1, message, staffOnly));
    return;
  }
  const { open, hidden } = entry.sets?.of === before ? entry.sets : { open: new Set(before.publicTerms), hidden: new Set(before.internalTerms) };
  let revealed = false;
  let lastSeq = before.lastSeq;
  for (const message of messages) {
    const doc = messageDoc(before, ++lastSeq, message, staffOnly);
    fileMessage(entry, doc);
    // Word by word against the ticket's sets: a word it already holds (or one repeated in the message) costs one lookup.
    for (const text of doc.files.length === 0 ? [doc.text] : [doc.text, ...doc.files])
      for (const word of tokenize(text)) {
        if (open.has(word)) continue;
        const term = pooled(word);
        if (!doc.internal) {
          open.add(term);
          before.publicTerms.push(term);
          if (hidden.delete(term)) revealed = true;
        } else if (!hidden.has(term)) {
          hidden.add(term);
          before.internalTerms.push(term);
        }
      }
  }
  const internalTerms = revealed ? before.internalTerms.filter((term) => hidden.has(term)) : before.internalTerms;
  const now = { ...before, lastSeq, internalTerms, _revision: event.revision };
  entry.sets = { of: now, open, hidden };
  entry.now = now;
}

/** The conversation changed in place (an edit, messages leaving): the lists are computed again from all of it. */
function changeConversation(
  page: Page,
  event: { data: { ticketId: string }; revision: number },
  change: (conversation: SearchMessageDoc[]) => SearchMessageDoc[],
) {
  const before = ticketOf(page, event);
  if (!before) return;
  const entry = page.tickets.get(before._id)!;
  const was = new Map(entry.conversation!.map((message) => [message._id, message]));
  const conversation = change(entry.conversation!);
  for (const message of conversation) if (was.get(message._id) !== message) entry.written.set(message._id, message);
  const kept = new Set(conversation.map(({ _id }) => _id));
  for (const [id, message] of was)
    if (!kept.has(id)) {
      entry.written.delete(id);
      entry.deleted.set(id, message.seq);
    }
  entry.conversation = conversation;
  entry.now = withTerms({ ...before, _revision: event.revision }, conversation, page.terms);
}

const leaveMessages = (page: Page, event: { data: { ticketId: string }; revision: number }, messageIds: string[]) => {
  const leaving = new Set(messageIds);
  changeConversation(page, event, (conversation) => conversation.filter((message) => !leaving.has(message.messageId)));
};

const evolve = dispatcher<Page, void>({
  TicketOpened(event, page) {
    const entry = page.tickets.get(event.data.ticketId)!;
    if (entry.now) return;
    const { ticketId, number, customerId, title, description, customFieldValues } = event.data;
    const fields = customFieldValues.map(({ value }) => (typeof value === 'object' ? value.originalName : String(value)));
    entry.now = withTerms({ _id: ticketId, number, customer: customerId, title, description, fields, lastSeq: 0, _revision: event.revision }, [], page.terms);
  },
  MessagePosted(event, page) {
    addMessages(page, event, [{ ...event.data, sourceSeq: 0 }], false);
  },
  MessageEdited(event, page) {
    const { messageId, content } = event.data;
    changeConversation(page, event, (conversation) =>
      conversation.map((message) => (message.messageId === messageId ? { ...message, text: content } : message)),
    );
  },
  // A merge or a split carries messages from one ticket to another: each is then found by the ticket it is in.
  TicketMergedFrom(event, page) {
    const { messages, crossCustomer } = event.data;
    addMessages(page, event, messages, crossCustomer);
  },
  MergedMessagesCopied(event, page) {
    addMessages(page, event, event.data.messages, event.data.crossCustomer);
  },
  MessagesMovedIn(event, page) {
    addMessages(page, event, event.data.messages, false);
  },
  TicketMergeFromUndone(event, page) {
    leaveMessages(page, event, event.data.messageIds);
  },
  MergedMessagesRemoved(event, page) {
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

/** The page's changes to the FTS5 index of the SQLite store (src/projections/searchIndex.ts). */
function indexPage(index: SearchIndex, page: Page): void {
  for (const { loaded, now } of page.tickets.values()) if (now && !loaded) index.fileTicket(now);
  for (const { loaded, now, written, deleted } of page.tickets.values()) {
    if (now === loaded) continue;
    if (!now) {
      index.removeTicket(loaded!);
      continue;
    }
    if (!loaded) index.putTicket(now);
    for (const seq of deleted.values()) index.removeMessage(now.number, seq);
    for (const message of written.values()) index.putMessage(now.number, message);
  }
  for (const [id, { loaded, now }] of page.people) if (now && now !== loaded) index.putPerson(id, personTexts(now).join(' '));
}

/**
 * One read per collection for the tickets, conversations and people a page touches, the events
 * folded in memory, then one bulk write per collection: messages before the tickets that list their
 * words, so a crash between the two replays the page onto the same message documents (upserts).
 */
async function applySearchPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const ticketIds = [...new Set(events.filter(({ type }) => !PERSON_EVENTS.has(type)).map(({ data }) => String(data.ticketId)))];
  const personIds = [...new Set(events.filter(({ type }) => PERSON_EVENTS.has(type)).map(({ data }) => String(data.userId)))];
  const whole = [...new Set(events.filter(({ type }) => NEEDS_CONVERSATION.has(type)).map(({ data }) => String(data.ticketId)))];
  const messages = store.collection<SearchMessageDoc>(SEARCH_MESSAGES);
  const [tickets, people, conversations] = await Promise.all([
    ticketIds.length > 0 ? store.collection<SearchTicketDoc>(SEARCH_TICKETS).find({ _id: { $in: ticketIds } }) : [],
    personIds.length > 0 ? store.collection<SearchPersonDoc>(SEARCH_PEOPLE).find({ _id: { $in: personIds } }) : [],
    whole.length > 0 ? messages.find({ ticket: { $in: whole } }) : [],
  ]);
  const index = SearchIndex.of(store);
  const page: Page = { terms: !index, tickets: new Map(), people: new Map() };
  const entry = (loaded: SearchTicketDoc | null): TicketEntry => ({
    loaded,
    now: loaded,
    conversation: null,
    written: new Map(),
    deleted: new Map(),
    sets: null,
  });
  for (const id of ticketIds) page.tickets.set(id, entry(null));
  for (const doc of tickets) page.tickets.set(doc._id, entry(doc));
  for (const id of whole) page.tickets.get(id)!.conversation = [];
  for (const message of conversations.sort((a, b) => a.seq - b.seq)) page.tickets.get(message.ticket)?.conversation?.push(message);
  for (const id of personIds) page.people.set(id, { loaded: null, now: null });
  for (const doc of people) page.people.set(doc._id, { loaded: doc, now: doc });
  for (const event of events) evolve.handle(event, page);
  const messageWrites: BulkOp<SearchMessageDoc>[] = [];
  const ticketWrites: BulkOp<SearchTicketDoc>[] = [];
  for (const [id, { loaded, now, written, deleted }] of page.tickets) {
    if (now === loaded) continue;
    if (!now) messageWrites.push({ deleteMany: { filter: { ticket: id } } });
    else {
      if (deleted.size > 0) messageWrites.push({ deleteMany: { filter: { _id: { $in: [...deleted.keys()] } } } });
      for (const message of written.values()) messageWrites.push({ replaceOne: { filter: { _id: message._id }, replacement: message, upsert: true } });
    }
    ticketWrites.push(writeOf(loaded, now, id));
  }
  const personWrites: BulkOp<SearchPersonDoc>[] = [];
  for (const [id, { loaded, now }] of page.people) if (now && now !== loaded) personWrites.push(writeOf(loaded, now, id));
  // Before the documents: a page cut short after the index replays onto the same rows (each written whole by its rowid).
  index?.transaction(() => indexPage(index, page));
  if (messageWrites.length > 0) await messages.bulkWrite(messageWrites);
  if (ticketWrites.length > 0) await store.collection<SearchTicketDoc>(SEARCH_TICKETS).bulkWrite(ticketWrites);
  if (personWrites.length > 0) await store.collection<SearchPersonDoc>(SEARCH_PEOPLE).bulkWrite(personWrites);
}

/** Serves GET /api/search, the Live Tickets search and the bot's /search. */
export const searchProjection: Projection = {
  name: 'search',
  // 5: on SQLite the word lists stay empty; 6: on SQLite a word row per ticket; 7: a post's new words
  // in rows of their own until folded into it, the tickets holding some listed (searchIndex.ts).
  version: 7,
  collections: [SEARCH_TICKETS, SEARCH_MESSAGES, SEARCH_PEOPLE],
  async setup(store: ReadStore) {
    for (const name of RETIRED) await store.collection(name).drop();
    const tickets = store.collection(SEARCH_TICKETS);
    await store.collection(SEARCH_MESSAGES).createIndex({ keys: { ticket: 1 } });
    const index = SearchIndex.of(store);
    if (index) {
      // On SQLite, FTS5 answers the queries: the word lists stay empty, and not indexed (the rebuild check rebuilds into SQLite too).
      // Whether any document is there, not how many: a count read every ticket's entry at each start (memory growing with the desk).
      index.setup((await tickets.findOne({})) === null && (await store.collection(SEARCH_PEOPLE).findOne({})) === null);
      return;
    }
    // Staff look a word (or prefix) up in every ticket's lists; a customer in their own tickets' public words.
    await tickets.createIndex({ keys: { publicTerms: 1 } });
    await tickets.createIndex({ keys: { internalTerms: 1 } });
    await tickets.createIndex({ keys: { customer: 1, publicTerms: 1 } });
    await store.collection(SEARCH_PEOPLE).createIndex({ keys: { terms: 1 } });
  },
  // On SQLite, a rebuilt FTS5 index is merged whole before the first live page (searchIndex.ts, `settle`).
  caughtUp: async (store: ReadStore) => SearchIndex.of(store)?.settle(),
  // Nothing a command answers or a push sends reads it: its FTS5 rows go in a transaction after the others' (searchIsCurrent).
  deferred: true,
  types: evolve.types,
  apply: (event: RecordedEvent, store: ReadStore) => applySearchPage([event], store),
  applyPage: applySearchPage,
};
