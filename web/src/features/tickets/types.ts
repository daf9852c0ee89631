import type { ApiMessage, ApiTicket } from '../../../../src/api/tickets/views';
import type { TicketChange } from '../../../../src/api/live/tickets';
import type { ticketStatistics } from '../../../../src/api/tickets/stats';
import type { toCanned } from '../../../../src/api/canned/routes';
import type { CategoryDetails } from '#contract/categories';
import type { HistoryEntry, MessageVersion, TicketHistory } from '../../../../src/projections/history';

/** The records of API.md as the server's own types describe them, so the two cannot drift. */
export type Ticket = ApiTicket;
export type Message = ApiMessage;
export type TicketStatus = Ticket['status'];
export type Priority = Ticket['priority'];
export type TicketStats = Awaited<ReturnType<typeof ticketStatistics>>;
export type { TicketChange };

export type Category = CategoryDetails & { _id: string };

export type { HistoryEntry, MessageVersion, TicketHistory };

/** `GET /tickets/:id/at` for staff: the ticket and conversation at one revision of its stream. */
export interface TicketMoment {
  revision: number;
  position: number;
  at: string;
  latestRevision: number;
  deleted: boolean;
  ticket: Ticket;
  messages: Array<Message & { versions?: MessageVersion[] }>;
}

export type CannedMessage = ReturnType<typeof toCanned>;

export interface TicketListArgs {
  status?: string;
  assigned?: 'me' | 'unassigned' | 'assigned';
  sort?: 'latest' | 'priority' | 'status';
  limit: number;
}

export interface TicketList {
  tickets: Ticket[];
  pagination: { page: number; limit: number; total: number; pages: number };
}

export interface TicketDetail {
  ticket: Ticket;
  messages: Message[];
  unreadCount: number;
}

export interface ExistingTicket {
  _id: string;
  ticketId: number;
  title: string;
  status: TicketStatus;
}
