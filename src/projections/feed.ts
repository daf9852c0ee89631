import { FEED_EVENT_TYPES, type FeedEventType } from '#contract/events';
import type { TicketEvent } from '../domain/ticket/ticket';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { together } from './buffered';
import { type TicketRecorded, isStaffOnly } from './history';
import type { Projection } from './runner';

/**
 * The ticket events the feed carries: the contract's list. Merges, splits and links are left out
 * for now: their data carry copies of messages (notes, another customer's words) whose visibility
 * differs per reader, and the feed has no per-reader redaction of them yet (docs/integrations.md).
 */
type NotInFeed =
  | 'TicketMergedInto'
  | 'TicketMergedFrom'
  | 'MergedMessagesCopied'
  | 'MergedMessagesRemoved'
  | 'TicketMergeIntoUndone'
  | 'TicketMergeFromUndone'
  | 'MessagesMovedOut'
  | 'MessagesMovedIn'
  | 'TicketLinked'
  | 'TicketUnlinked'
  // Not yet in the contract's list of feed types.
  | 'TicketPriorityChanged'
  | 'TicketCategoryChanged'
  | 'SlaPolicyReapplied'
  // A rule's run is staff's explanation of the changes that follow it (docs/automation.md); the changes themselves are in the feed.
  | 'RuleFired'
  | 'RuleChainStopped';
const FEED_TYPES: Record<Exclude<TicketEvent['type'], NotInFeed>, true> = Object.fromEntries(FEED_EVENT_TYPES.map((type) => [type, true])) as Record<
  FeedEventType,
  true
>;
const TICKET_STREAM = /^ticket-(.+)$/;

/** The ticket id of a ticket stream, null for any other stream. */
export const ticketOfStream = (streamId: string) => TICKET_STREAM.exec(streamId)?.[1] ?? null;

const FEED_TICKETS = 'feed_tickets_v1';
const FEED_CUSTOMERS = 'feed_customers_v1';

/** Per ticket: its customer and the ids of its internal notes, so a note's later edit is known as one. */
interface FeedTicketView extends Doc {
  customerId: string | null;
  notes: string[];
}

/**
 * Per customer: the log positions of the feed's events they may see, in order (numbers in one
 * document, not a document per event: the read store holds every ticket's events once this way,
 * at a few bytes each). `last` guards a replayed page.
 */
interface FeedCustomerView extends Doc {
  positions: number[];
  last: number;
}

const isFeedType = (type: string): type is FeedEventType => type in FEED_TYPES;

/** Whether the feed carries this event at all: a ticket event of the feed's types. */
export const inFeed = (event: RecordedEvent) => ticketOfStream(event.streamId) !== null && isFeedType(event.type);

/** The ticket facts of these tickets, for deciding who may see their events. */
export async function feedTickets(store: ReadStore, ticketIds: string[]): Promise<Map<string, { customerId: string | null; notes: Set<string> }>> {
  const found = await store.collection<FeedTicketView>(FEED_TICKETS).find({ _id: { $in: [...new Set(ticketIds)] } });
  return new Map(found.map((ticket) => [ticket._id, { customerId: ticket.customerId, notes: new Set(ticket.notes) }]));
}

/** The positions a customer may see, in order (none when the feed has none for them). */
export async function customerPositions(store: ReadStore, customerId: string): Promise<number[]> {
  return (await store.collection<FeedCustomerView>(FEED_CUSTOMERS).findOne({ _id: customerId }))?.positions ?? [];
}

/**
 * The feed's read models (docs/integrations.md): per ticket its customer and notes, so a reader's
 * rule needs no reading of the ticket's stream; per customer the positions of the events they may
 * see, so a customer's feed is a lookup, however many events of others the log holds. Tickets only
 * grow (a customer set once, note ids added) and a customer's positions only append past `last`,
 * so a replayed page writes nothing new.
 */
export const feedProjection: Projection = {
  name: 'feed',
  version: 1,
  collections: [FEED_TICKETS, FEED_CUSTOMERS],
  types: new Set(FEED_EVENT_TYPES),
  apply(event, store) {
    return applyFeedPage([event], store);
  },
  applyPage: applyFeedPage,
};

async function applyFeedPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const carried = events.filter(inFeed);
  if (carried.length === 0) return;
  const known = await feedTickets(
    store,
    carried.map((event) => ticketOfStream(event.streamId)!),
  );
  const changed = new Set<string>();
  const seen = new Map<string, number[]>();
  for (const event of carried) {
    const ticketId = ticketOfStream(event.streamId)!;
    const recorded = event as TicketRecorded;
    let ticket = known.get(ticketId);
    if (!ticket) {
      ticket = { customerId: null, notes: new Set<string>() };
      known.set(ticketId, ticket);
    }
    if (recorded.type === 'TicketOpened' && ticket.customerId === null) {
      ticket.customerId = recorded.data.customerId;
      changed.add(ticketId);
    }
    if (recorded.type === 'MessagePosted' && recorded.data.isInternal && !ticket.notes.has(recorded.data.messageId)) {
      ticket.notes.add(recorded.data.messageId);
      changed.add(ticketId);
    }
    if (ticket.customerId === null || isStaffOnly(recorded, ticket.notes)) continue;
    const positions = seen.get(ticket.customerId);
    if (positions) positions.push(event.position);
    else seen.set(ticket.customerId, [event.position]);
  }
  const touched: BulkOp<FeedTicketView>[] = [...changed].map((id) => {
    const { customerId, notes } = known.get(id)!;
    return { updateOne: { filter: { _id: id }, update: { $set: { customerId }, $addToSet: { notes: { $each: [...notes] } } }, upsert: true } };
  });
  // The tickets before the customers: a crash between the two writes replays the page with the notes
  // known. The customers' last positions are read meanwhile (the tickets' write does not change them).
  const customers = store.collection<FeedCustomerView>(FEED_CUSTOMERS);
  const [, lasts] = await together(
    touched.length > 0 ? store.collection<FeedTicketView>(FEED_TICKETS).bulkWrite(touched) : Promise.resolve(null),
    customers.find({ _id: { $in: [...seen.keys()] } }, { projection: { _id: 1, last: 1 } }),
  );
  const lastOf = new Map(lasts.map((doc) => [doc._id, doc.last]));
  const appended: BulkOp<FeedCustomerView>[] = [];
  for (const [customerId, positions] of seen) {
    const last = lastOf.get(customerId);
    if (last === undefined) {
      appended.push({ updateOne: { filter: { _id: customerId }, update: { $setOnInsert: { positions, last: positions.at(-1)! } }, upsert: true } });
      continue;
    }
    // A replayed page (its bounds may differ from the first time's) appends only what is past the customer's last position.
    const fresh = positions.filter((position) => position > last);
    if (fresh.length === 0) continue;
    appended.push({
      updateOne: { filter: { _id: customerId, last }, update: { $push: { positions: { $each: fresh } }, $set: { last: fresh.at(-1)! } } },
    });
  }
  if (appended.length > 0) await customers.bulkWrite(appended);
}
