import type { BadgeVariant } from '../../components/ui';
import { OPEN_STATUSES, PRIORITY_WEIGHT, STATUS_RANK } from '#contract/tickets';
import type { Priority, Ticket, TicketListArgs } from '../../entities/ticket/types';

/** Display and ordering rules of docs/product.md sections 2, 4 and 9 for tickets. */

/** Open tickets for the sidebar, counts and the one-open-ticket rule. */
export const OPEN_FILTER = OPEN_STATUSES.join(',');

export const statusLabel = (status: string) => status.replace(/_/g, ' ');

/** open is destructive, in_progress default, resolved outline, anything else secondary. */
export const statusVariant = (status: string): BadgeVariant =>
  status === 'open' ? 'destructive' : status === 'in_progress' ? 'default' : status === 'resolved' ? 'outline' : 'secondary';

/** low green, medium yellow, high orange, urgent red. */
export const PRIORITY_COLOR: Record<Priority, string> = { low: 'green', medium: 'yellow', high: 'orange', urgent: 'red' };

const byLatest = (a: Ticket, b: Ticket) => b.createdAt.localeCompare(a.createdAt) || b.ticketId - a.ticketId;
/** Waiting longest first, then those nobody waits on (as the server's `sort=waiting`). */
const byWaiting = (a: Ticket, b: Ticket) =>
  a.waitingSince === b.waitingSince ? 0 : a.waitingSince === null ? 1 : b.waitingSince === null ? -1 : a.waitingSince.localeCompare(b.waitingSince);
const TICKET_ORDER: Record<NonNullable<TicketListArgs['sort']>, (a: Ticket, b: Ticket) => number> = {
  latest: byLatest,
  priority: (a, b) => PRIORITY_WEIGHT[b.priority] - PRIORITY_WEIGHT[a.priority] || byLatest(a, b),
  status: (a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || byLatest(a, b),
  waiting: (a, b) => byWaiting(a, b) || byLatest(a, b),
  // Due times live in the SLA read model: a pushed ticket keeps the place the server gave it (the list refetches every half minute).
  due: () => 0,
};

/** What the server's `q` searches in a ticket, the same way. */
const searchTextOf = (ticket: Ticket) =>
  `#${ticket.ticketId} ${ticket.title} ${ticket.description} ${ticket.customer.firstName} ${ticket.customer.lastName} ${ticket.customer.username}`.toLowerCase();

/** Whether a ticket belongs in a list fetched with these arguments, as the server would decide. */
export function belongsTo(ticket: Ticket, args: TicketListArgs, myId: string | undefined): boolean {
  if (args.status && !args.status.split(',').includes(ticket.status)) return false;
  if (args.waiting !== undefined && (ticket.waitingSince !== null) !== args.waiting) return false;
  if (args.q && !searchTextOf(ticket).includes(args.q.trim().toLowerCase())) return false;
  if (args.team && args.team !== 'mine' && ticket.team?._id !== args.team) return false;
  if (args.tag && !ticket.tags.includes(args.tag)) return false;
  if (args.priority && !args.priority.split(',').includes(ticket.priority)) return false;
  if (args.category && ticket.category._id !== args.category) return false;
  if (args.customer && ticket.customer._id !== args.customer) return false;
  if (args.assigned === 'me') return ticket.assignedAgent?._id === myId;
  if (args.assigned === 'unassigned') return ticket.assignedAgent === null;
  if (args.assigned === 'assigned') return ticket.assignedAgent !== null;
  return true;
}

/**
 * A list after a live change to one ticket: replaced where it stays, added where it now belongs,
 * removed where it no longer does, kept in the list's order and size; the total follows.
 */
export function withTicket<Item extends Ticket>(list: { tickets: Item[]; total: number }, ticket: Item, args: TicketListArgs, myId: string | undefined) {
  const present = list.tickets.some((candidate) => candidate._id === ticket._id);
  // A rating or a due time is not part of the ticket, nor which teams are mine: a list picked by one gains tickets only when fetched again.
  if ((args.satisfaction || args.sla || args.team === 'mine') && !present) return list;
  const others = list.tickets.filter((candidate) => candidate._id !== ticket._id);
  if (!belongsTo(ticket, args, myId)) return { tickets: others, total: present ? Math.max(0, list.total - 1) : list.total };
  const tickets = [...others, ticket].sort(TICKET_ORDER[args.sort ?? 'latest']).slice(0, args.limit);
  return { tickets, total: present ? list.total : list.total + 1 };
}

export function withoutTicket<Item extends Ticket>(list: { tickets: Item[]; total: number }, ticketId: string) {
  const tickets = list.tickets.filter((candidate) => candidate._id !== ticketId);
  return { tickets, total: tickets.length === list.tickets.length ? list.total : Math.max(0, list.total - 1) };
}

/** The order of the tickets Live Tickets showed last (this tab), so j and k on a ticket move through it. */
const ORDER_KEY = 'liveTicketsOrder';
export function rememberTicketOrder(ids: string[]): void {
  try {
    sessionStorage.setItem(ORDER_KEY, JSON.stringify(ids));
  } catch {
    // private mode: j and k do nothing on a ticket page
  }
}
export function neighbourTicket(current: string | undefined, step: 1 | -1): string | null {
  if (!current) return null;
  try {
    const ids = JSON.parse(sessionStorage.getItem(ORDER_KEY) ?? '[]') as string[];
    const at = ids.indexOf(current);
    return at === -1 ? null : (ids[at + step] ?? null);
  } catch {
    return null;
  }
}
