import type { SatisfactionChannel } from '#contract/satisfaction';
import type { SlaFilter, TicketSla } from '#contract/sla';
import type { TicketChange } from '#contract/live';
import type { CannedMessage, HistoryEntry, Message, MessageVersion, Ticket, TicketHistory, TicketListItem, TicketStats } from '#contract/responses';
import type { CategoryDetails } from '#contract/categories';

/** The records of docs/contract.md as the contract's response schemas describe them, so the two cannot drift. */
export type { CannedMessage, Message, Ticket, TicketChange, TicketListItem, TicketStats };
type TicketStatus = Ticket['status'];
export type Priority = Ticket['priority'];

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
  /** The customer's rating of the latest resolution as it stood then; null before the first resolution. */
  satisfaction: {
    episode: number;
    score: number | null;
    comment: string | null;
    channel: SatisfactionChannel | null;
    ended: 'reopened' | 'closed' | null;
  } | null;
  /** The ticket's service levels at that moment (docs/sla.md); null when it follows no policy. */
  sla?: TicketSla | null;
}

export interface TicketListArgs {
  status?: string;
  assigned?: 'me' | 'unassigned' | 'assigned';
  /** true: only tickets whose customer waits for the desk. */
  waiting?: boolean;
  /** Search text, matched as the server does (number, title, description, customer's name). */
  q?: string;
  sort?: 'latest' | 'priority' | 'status' | 'waiting' | 'due';
  /** Tickets by their customer's rating (docs/satisfaction.md). */
  satisfaction?: 'awaiting' | 'rated' | 'low';
  /** Tickets by their service levels (docs/sla.md). */
  sla?: SlaFilter;
  /** One team's tickets, or `mine`: those of every team the caller is in (docs/teams.md). */
  team?: string;
  /** Tickets with this tag (docs/teams.md). */
  tag?: string;
  /** Comma-separated priorities, a category id, a customer id: filters a saved view may hold (docs/views.md). */
  priority?: string;
  category?: string;
  customer?: string;
  limit: number;
}

export interface TicketList {
  tickets: TicketListItem[];
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
