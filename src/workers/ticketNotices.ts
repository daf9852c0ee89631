import type { MessagePostedData } from '../domain/ticket/ticket';
import type { Attachment, TicketStatus } from '#contract/tickets';
import { isStaff } from '#contract/users';
import type { EventStore, RecordedEvent } from '../platform/eventstore/port';
import type { ReadStore } from '../platform/readstore/port';
import { findPerson } from '../projections/directory';
import { dispatcher } from '../projections/events';
import { TICKETS, type TicketView } from '../projections/tickets';
import { USERS, type UserView } from '../projections/users';
import type { ReactionPage } from './reactor';

/** What happened to a customer's ticket that the customer should hear about. */
type TicketNotice =
  | { kind: 'created' }
  | { kind: 'status'; from: TicketStatus; to: TicketStatus }
  | { kind: 'assigned'; agentName: string }
  | { kind: 'reply'; content: string; senderName: string; files: Attachment[] }
  /** The ticket was merged into another: the customer is told once which ticket continues. */
  | { kind: 'merged'; targetNumber: number };

export interface CustomerNotice {
  notice: TicketNotice;
  ticket: TicketView;
  customer: UserView;
}

/** The projections whose read models `customerNoticeOf` and the channels read (names, tickets, users, settings). */
export const NOTICE_READS = ['directory', 'tickets', 'users', 'settings'];

/** Text on one line: a title with line breaks (CR, LF) must not start a new mail header or list line. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/** Where a notice is read from: the read models, and the reactor's page when there is one. */
interface Reads {
  store: ReadStore;
  page: ReactionPage | undefined;
}

/**
 * A read made once for the reactor's page: the channels (Telegram, e-mail) each ask for the same event's
 * notice, and a page's replies are often one ticket's, by one agent, to one customer. The read models
 * already include the whole page when a reaction runs, so a read made for its first event holds for the rest.
 */
const onPage = <T>(page: ReactionPage | undefined, key: string, load: () => Promise<T>): Promise<T> => (page ? page.once(key, load) : load());

const personOf = ({ store, page }: Reads, userId: string) => onPage(page, `notice person ${userId}`, () => findPerson(store, userId));

const noticeOf = dispatcher<Reads, Promise<TicketNotice | null>>({
  TicketOpened: async () => ({ kind: 'created' }),
  // A ticket the customer's own reply reopened: they know, having just written.
  TicketStatusChanged: async (event) => (event.data.reason === 'customer-replied' ? null : { kind: 'status', from: event.data.from, to: event.data.to }),
  TicketMergedInto: async (event) => ({ kind: 'merged', targetNumber: event.data.targetNumber }),
  AgentAssignedToTicket: async (event, reads) => ({ kind: 'assigned', agentName: fullName(await personOf(reads, event.data.agentId)) }),
  async MessagePosted(event, reads) {
    const message: MessagePostedData = event.data;
    if (message.isInternal || !isStaff(message.senderRole)) return null;
    return {
      kind: 'reply',
      content: message.content,
      senderName: message.senderName ?? fullName(await personOf(reads, message.senderId)),
      files: message.attachments,
    };
  },
});

/** Of several notices one bulk change would send about one ticket, the one kept: what the customer most needs to read. */
const BULK_RANK: Record<TicketNotice['kind'], number> = { reply: 4, merged: 3, status: 2, assigned: 1, created: 0 };
/** The most events one ticket's change in a bulk change can make (a macro's reply, ten actions and their status and SLA events). */
const BULK_EVENTS_PER_TICKET = 40;

/**
 * A bulk change (docs/bulk.md) tells each ticket's customer at most once: when it made several events on
 * the ticket that would each notify (an assignment and the status it starts, a macro's reply and its
 * status), only the first of the highest rank does. The change's events of one ticket sit together in
 * its stream, marked with the change's id.
 */
async function outranked(recorded: RecordedEvent, notice: TicketNotice, reads: Reads, events: EventStore): Promise<boolean> {
  const bulkId = recorded.metadata.bulk?.id;
  if (!bulkId) return false;
  const around = await events.readStream(recorded.streamId, {
    fromRevision: Math.max(0, recorded.revision - BULK_EVENTS_PER_TICKET),
    maxCount: 2 * BULK_EVENTS_PER_TICKET + 1,
  });
  for (const other of around) {
    if (other.id === recorded.id || other.metadata.bulk?.id !== bulkId) continue;
    const kind = (await noticeOf.handle(other, reads))?.kind;
    if (kind === undefined) continue;
    if (BULK_RANK[kind] > BULK_RANK[notice.kind] || (BULK_RANK[kind] === BULK_RANK[notice.kind] && other.revision < recorded.revision)) return true;
  }
  return false;
}

/** The event types `customerNoticeOf` may turn into a notice. */
export const NOTICE_TYPES = [...noticeOf.types];

/**
 * Reads a ticket event as a notice for the ticket's customer, or null when there is none: internal
 * notes, the customer's own messages (and the reopening they caused), read marks and edits stay quiet, and so does a ticket that is
 * gone or a customer who no longer exists. Channels render the notice in their own words. Given the
 * reactor's page, the notice and what it reads are read once for the page (the result is shared: read it, never change it).
 */
export function customerNoticeOf(recorded: RecordedEvent, store: ReadStore, events: EventStore, page?: ReactionPage): Promise<CustomerNotice | null> {
  return onPage(page, `customer notice ${recorded.id}`, () => noticeFor(recorded, { store, page }, events));
}

async function noticeFor(recorded: RecordedEvent, reads: Reads, events: EventStore): Promise<CustomerNotice | null> {
  const notice = (await noticeOf.handle(recorded, reads)) ?? null;
  if (!notice || (await outranked(recorded, notice, reads, events))) return null;
  const ticketId = String(recorded.data.ticketId);
  const ticket = await onPage(reads.page, `notice ticket ${ticketId}`, () => reads.store.collection<TicketView>(TICKETS).findOne({ _id: ticketId }));
  if (!ticket) return null;
  const customerId = ticket.customer._id;
  const customer = await onPage(reads.page, `notice user ${customerId}`, () => reads.store.collection<UserView>(USERS).findOne({ _id: customerId }));
  if (!customer) return null;
  return { notice, ticket, customer };
}
