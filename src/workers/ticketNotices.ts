import type { MessagePostedData, TicketEvent } from '../domain/ticket/ticket';
import type { Attachment, TicketStatus } from '#contract/tickets';
import { isStaff } from '#contract/users';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { ReadStore } from '../platform/readstore/port';
import { findPerson } from '../projections/directory';
import { TICKETS, type TicketView } from '../projections/tickets';
import { USERS, type UserView } from '../projections/users';

/** What happened to a customer's ticket that the customer should hear about. */
export type TicketNotice =
  | { kind: 'created' }
  | { kind: 'status'; from: TicketStatus; to: TicketStatus }
  | { kind: 'assigned'; agentName: string }
  | { kind: 'reply'; content: string; senderName: string; files: Attachment[] };

export interface CustomerNotice {
  notice: TicketNotice;
  ticket: TicketView;
  customer: UserView;
}

/** Text on one line: a title with line breaks (CR, LF) must not start a new mail header or list line. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/**
 * Reads a ticket event as a notice for the ticket's customer, or null when there is none: internal
 * notes, the customer's own messages, read marks and edits stay quiet, and so does a ticket that is
 * gone or a customer who no longer exists. Channels render the notice in their own words.
 */
export async function customerNoticeOf(recorded: RecordedEvent, store: ReadStore): Promise<CustomerNotice | null> {
  if (!recorded.streamId.startsWith('ticket-')) return null;
  const event = recorded as unknown as TicketEvent;
  let notice: TicketNotice;
  switch (event.type) {
    case 'TicketOpened':
      notice = { kind: 'created' };
      break;
    case 'TicketStatusChanged':
      notice = { kind: 'status', from: event.data.from, to: event.data.to };
      break;
    case 'AgentAssignedToTicket':
      notice = { kind: 'assigned', agentName: fullName(await findPerson(store, event.data.agentId)) };
      break;
    case 'MessagePosted': {
      const message: MessagePostedData = event.data;
      if (message.isInternal || !isStaff(message.senderRole)) return null;
      notice = {
        kind: 'reply',
        content: message.content,
        senderName: fullName(await findPerson(store, message.senderId)),
        files: message.attachments,
      };
      break;
    }
    default:
      return null;
  }
  const ticket = await store.collection<TicketView>(TICKETS).findOne({ _id: event.data.ticketId });
  if (!ticket) return null;
  const customer = await store.collection<UserView>(USERS).findOne({ _id: ticket.customer._id });
  if (!customer) return null;
  return { notice, ticket, customer };
}
