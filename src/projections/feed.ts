import { FEED_EVENT_TYPES, type FeedEventType } from '#contract/events';
import type { TicketEvent } from '../domain/ticket/ticket';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { type TicketRecorded, isAboutNote, isStaffOnly } from './history';
import type { Projection } from './runner';

/**
 * The ticket events the feed carries: the contract's list. Merges, splits and links are left out
 * for now: their data carry copies of messages (notes, another customer's words) whose visibility
 * differs per reader, and the feed has no per-reader redaction of them yet (docs/integrations.md).
 */
type NotInFeed =
  | 'TicketMergedInto'
  | 'TicketMergedFrom'
  | 'TicketMergeIntoUndone'
  | 'TicketMergeFromUndone'
  | 'MessagesMovedOut'
  | 'MessagesMovedIn'
  | 'TicketLinked'
  | 'TicketUnlinked';
const FEED_TYPES: Record<Exclude<TicketEvent['type'], NotInFeed>, true> = Object.fromEntries(FEED_EVENT_TYPES.map((type) => [type, true])) as Record<
  FeedEventType,
  true
>;
const TICKET_STREAM = /^ticket-(.+)$/;

/** The ticket id of a ticket stream, null for any other stream. */
export const ticketOfStream = (streamId: string) => TICKET_STREAM.exec(streamId)?.[1] ?? null;

export const FEED_ENTRIES = 'feed_entries_v1';
const FEED_TICKETS = 'feed_tickets_v1';

/**
 * One event the feed carries, by its log position, with what each reader's rule needs: whose ticket
 * it is, whether it is for staff only, whether it is about an internal note. A customer's feed is
 * then an index range of their own entries, however many events of others the log holds.
 */
export interface FeedEntryView extends Doc {
  position: number;
  type: FeedEventType;
  customerId: string | null;
  staffOnly: boolean;
  aboutNote: boolean;
}

/** Per ticket: its customer and the ids of its internal notes, so a note's later edit is known as one. */
interface FeedTicketView extends Doc {
  customerId: string | null;
  notes: string[];
}

const isFeedType = (type: string): type is FeedEventType => type in FEED_TYPES;

/**
 * The feed's index (docs/integrations.md): per carried ticket event its position and visibility.
 * Entries are keyed by position and tickets only grow (a customer set once, note ids added), so a
 * replayed page writes nothing new.
 */
export const feedProjection: Projection = {
  name: 'feed',
  version: 1,
  collections: [FEED_ENTRIES, FEED_TICKETS],
  types: new Set(FEED_EVENT_TYPES),
  async setup(store: ReadStore) {
    await store.collection(FEED_ENTRIES).createIndex({ keys: { position: 1 } });
    await store.collection(FEED_ENTRIES).createIndex({ keys: { customerId: 1, position: 1 } });
  },
  apply(event, store) {
    return applyFeedPage([event], store);
  },
  applyPage: applyFeedPage,
};

async function applyFeedPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const carried = events.filter((event) => ticketOfStream(event.streamId) !== null && isFeedType(event.type));
  if (carried.length === 0) return;
  const tickets = store.collection<FeedTicketView>(FEED_TICKETS);
  const ids = [...new Set(carried.map((event) => ticketOfStream(event.streamId)!))];
  const known = new Map((await tickets.find({ _id: { $in: ids } })).map((ticket) => [ticket._id, { ...ticket, notes: new Set(ticket.notes) }]));
  const entries: BulkOp<FeedEntryView>[] = [];
  const changed = new Set<string>();
  for (const event of carried) {
    const ticketId = ticketOfStream(event.streamId)!;
    const recorded = event as TicketRecorded;
    let ticket = known.get(ticketId);
    if (!ticket) {
      ticket = { _id: ticketId, customerId: null, notes: new Set<string>() };
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
    const entry = {
      _id: String(event.position),
      position: event.position,
      type: event.type,
      customerId: ticket.customerId,
      staffOnly: isStaffOnly(recorded, ticket.notes),
      aboutNote: isAboutNote(recorded, ticket.notes),
    };
    entries.push({ updateOne: { filter: { _id: entry._id }, update: { $setOnInsert: entry }, upsert: true } });
  }
  const touched: BulkOp<FeedTicketView>[] = [...changed].map((id) => {
    const { customerId, notes } = known.get(id)!;
    return { updateOne: { filter: { _id: id }, update: { $set: { customerId }, $addToSet: { notes: { $each: [...notes] } } }, upsert: true } };
  });
  // The tickets first: a crash between the two writes replays the page with the notes known.
  if (touched.length > 0) await tickets.bulkWrite(touched);
  await store.collection<FeedEntryView>(FEED_ENTRIES).bulkWrite(entries);
}
