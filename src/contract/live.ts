import type { Priority, StatusChangeReason, TicketStatus } from './tickets';
import type { Role } from './users';

/**
 * What the live channel and the web client agree on beyond the payloads of docs/contract.md: timings of the
 * typing state, the resync after a reconnect and the staff presence (docs/tickets.md, "Live channel").
 * Pure constants and types.
 */

/** docs/product.md section 9: typing clears 2 s after the last keystroke. */
export const TYPING_TIMEOUT_MS = 2000;
/** While keys keep coming, the typist says so again this often, so the other side never times out. */
export const TYPING_REFRESH_MS = 1000;
/**
 * How long a typing state lasts without a refresh where the explicit stop can be lost (a dropped
 * connection): one missed refresh more than the client's 10 s timeout (docs/product.md section 9).
 */
export const TYPING_STALE_MS = TYPING_TIMEOUT_MS + TYPING_REFRESH_MS;

/** A resync replays at most this many log events; further behind, the client refetches its views. */
export const RESYNC_MAX_EVENTS = 500;

/** Answer to `resync {after}`: `complete` false means "too far behind, refetch what you show". */
export type ResyncAnswer =
  { ok: true; complete: true; position: number; replayed: number } | { ok: true; complete: false; position: number } | { ok: false; error: string };

/** A staff member looking at a ticket; `replying` while they type in its conversation. */
export interface Viewer {
  userId: string;
  firstName: string;
  lastName: string;
  replying: boolean;
}

/** `ticket_presence`, sent to staff only whenever who is on a ticket, or who is replying, changes. */
export interface TicketPresence {
  ticketId: string;
  viewers: Viewer[];
}

/** Answer to `presence_snapshot` (staff only): every ticket someone is on now. */
export type PresenceSnapshot = { ok: true; tickets: TicketPresence[] } | { ok: false; error: string };

/**
 * What a `ticket_updated` is about and who did it (`by`, a user id), so that a browser can tell a
 * status change (which staff are notified of, docs/product.md section 6) from any other update without
 * keeping earlier copies.
 */
export type TicketChange =
  /** `reason`: why, when nobody chose the status (the customer's reply reopened the ticket). */
  | { kind: 'status'; from: TicketStatus; to: TicketStatus; by: string | null; reason?: StatusChangeReason }
  | { kind: 'priority'; from: Priority; to: Priority; by: string | null }
  | { kind: 'assigned'; agentId: string; by: string | null }
  | { kind: 'unassigned'; agentId: string; by: string | null }
  | { kind: 'outcome'; by: string | null }
  /** docs/teams.md: staff only, as the outcome. */
  | { kind: 'team'; teamId: string | null; by: string | null }
  | { kind: 'tags'; by: string | null }
  | { kind: 'category'; by: string | null }
  /** A merge (docs/tickets.md): this ticket went `into` the other, took `from` it, or the merge with it was undone; `other` is its number. */
  | { kind: 'merge'; action: 'into' | 'from' | 'undone'; other: number; by: string | null };

/**
 * `ticket_message`: a message was posted on a ticket, sent to every member of staff (internal notes
 * included) and to the ticket's customer (public messages only), whether or not they have the ticket
 * open, so lists can show unread counts and "waiting since" at once. The text itself travels only in
 * `new_message`, to those who joined the ticket's room.
 */
export interface TicketMessageNotice<TicketView = unknown> {
  ticket: TicketView;
  message: { _id: string; senderId: string; senderRole: Role; isInternal: boolean; createdAt: string };
  position: number;
}

/**
 * `ticket_continues`, sent to a customer's own sockets only (never to staff), once per event: their
 * ticket was merged into another (`merged`, for every merge, as Telegram and e-mail tell them), or
 * their messages were moved to a new ticket of theirs (`moved`, when any they could see went).
 * `continuesIn._id` is null when the ticket that continues is another customer's (an admin's merge):
 * they learn its number, never a way in. docs/tickets.md, merging.
 */
export interface TicketContinues {
  kind: 'merged' | 'moved';
  ticket: { _id: string; ticketId: number };
  continuesIn: { _id: string | null; ticketId: number };
  position: number;
}
