import { NotFoundError } from '#contract/errors';
import type { Message, Ticket } from '#contract/responses';
import { type Role, isStaff } from '#contract/users';
import { canSeeMessage } from '../../domain/ticket/ticket';
import type { ReadStore } from '../../platform/readstore/port';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView } from '../../projections/tickets';

export interface Viewer {
  id: string;
  role: Role;
  /** An API token's scopes, when the call came with one: without `notes:read` staff see no internal notes. */
  token?: { scopes: readonly string[] };
}

/** Whether this viewer reads internal notes: staff, unless acting through a token without `notes:read` (or `admin`). */
export const seesNotes = (viewer: Pick<Viewer, 'role' | 'token'>) =>
  isStaff(viewer.role) && (!viewer.token || viewer.token.scopes.includes('notes:read') || viewer.token.scopes.includes('admin'));

/**
 * A ticket as docs/contract.md returns it to this viewer. A customer (and a staff token without
 * notes:read) gets the counts of the conversation
 * they can see (internal notes left out) and not the outcome, which is a staff section (docs/product.md section 2).
 */
export function ticketFor(view: TicketView, viewer: Pick<Viewer, 'role' | 'token'>): Ticket {
  const {
    _revision: _r,
    publicMessageCount,
    lastPublicMessageAt,
    publicUpdatedAt,
    priorityWeight: _p,
    statusRank: _s,
    waitingRank: _w,
    lastSeq: _l,
    firstResponseAt: _f,
    mergedInto,
    ...ticket
  } = view;
  if (isStaff(viewer.role)) {
    // `ticket` is this call's own copy (the rest of the view): set on, not copied again (a list page is 50 of them).
    const staffView: Ticket = Object.assign(ticket, { mergedInto: mergedInto && { _id: mergedInto._id, ticketId: mergedInto.ticketId } });
    if (seesNotes(viewer)) return staffView;
    // Staff acting through a token without notes:read: counts and times of the conversation they read, notes left out.
    return Object.assign(staffView, { messageCount: publicMessageCount, lastMessageAt: lastPublicMessageAt });
  }
  return {
    ...ticket,
    // Relations are a staff tool: they may join tickets of different customers.
    related: [],
    // The customer is told which ticket continues; they follow it only when it is theirs too.
    mergedInto: mergedInto && { _id: mergedInto.sameCustomer ? mergedInto._id : null, ticketId: mergedInto.ticketId },
    updatedAt: publicUpdatedAt,
    messageCount: publicMessageCount,
    lastMessageAt: lastPublicMessageAt,
    outcomeMessage: null,
    outcomeUpdatedAt: null,
    outcomeUpdatedBy: null,
    // Teams are how staff share the work (docs/teams.md), not the customer's business.
    team: null,
    tags: [],
  };
}

export function messageFor(view: MessageView): Message {
  const { _revision: _r, seq: _seq, staffOnly: _staff, ...message } = view;
  return message;
}

/** Messages this viewer may read: a customer never receives an internal note. */
export const visibleMessages = (viewer: Pick<Viewer, 'role' | 'token'>) =>
  seesNotes(viewer) ? {} : isStaff(viewer.role) ? { isInternal: false } : { isInternal: false, staffOnly: { $ne: true } };

/** A ticket key that is its display number (`42` or `#42`) rather than its record id. */
export const isDisplayNumber = (key: string) => /^#?\d{1,9}$/.test(key);

/**
 * Finds a ticket by record id (or by its display number) as this viewer may see it. Someone else's
 * ticket is "not found" for a customer: docs/contract.md never reveals that a foreign ticket exists.
 */
export async function findVisibleTicket(store: ReadStore, key: string, viewer: Viewer): Promise<TicketView> {
  const tickets = store.collection<TicketView>(TICKETS);
  const byNumber = isDisplayNumber(key) ? await tickets.findOne({ ticketId: Number(key.replace('#', '')) }) : null;
  const ticket = byNumber ?? (await tickets.findOne({ _id: key }));
  if (!ticket || (!isStaff(viewer.role) && ticket.customer._id !== viewer.id)) throw new NotFoundError('Ticket');
  return ticket;
}

export async function findVisibleMessage(store: ReadStore, messageId: string, viewer: Viewer): Promise<{ message: MessageView; ticket: TicketView }> {
  const message = await store.collection<MessageView>(TICKET_MESSAGES).findOne({ _id: messageId });
  if (!message || !canSeeMessage(viewer.role, message)) throw new NotFoundError('Message');
  const ticket = await findVisibleTicket(store, message.ticket, viewer).catch(() => {
    throw new NotFoundError('Message');
  });
  return { message, ticket };
}
