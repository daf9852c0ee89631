import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { TicketEvent } from '../../domain/ticket/ticket';
import { type UserEvent, isStaff } from '../../domain/user/user';
import type { RecordedEvent } from '../../platform/eventstore/port';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView } from '../../projections/tickets';
import type { AppDeps } from '../deps';
import type { AuthUser } from '../http/auth';
import { findVisibleTicket, messageFor, ticketFor } from '../tickets/views';

/**
 * A ticket's live room has two halves: staff sockets, which receive everything including internal
 * notes, and the customer's own sockets, which never do. Sockets join one half by `join_ticket`,
 * and only if their user may see the ticket.
 */
export const staffRoom = (ticketId: string) => `ticket:${ticketId}:staff`;
export const customerRoom = (ticketId: string) => `ticket:${ticketId}:customer`;
const STAFF_ROLES = ['role:agent', 'role:admin'];

const ticketKey = z.union([z.string().min(1).max(100), z.object({ ticketId: z.string().min(1).max(100) }).transform(({ ticketId }) => ticketId)]);
const typingPayload = z.object({ ticketId: z.string().min(1).max(100), isTyping: z.boolean(), isInternal: z.boolean().optional(), userId: z.string().optional() });

type Ack = ((answer: { ok: boolean; ticketId?: string; error?: string }) => void) | undefined;
const ackOf = (candidate: unknown): Ack => (typeof candidate === 'function' ? (candidate as Ack) : undefined);

function onConnection(deps: AppDeps, socket: Socket): void {
  const user = () => socket.data.user as AuthUser;
  const leave = (ticketId: string) => Promise.all([socket.leave(staffRoom(ticketId)), socket.leave(customerRoom(ticketId))]);

  socket.on('join_ticket', async (payload: unknown, ack: unknown) => {
    const answer = ackOf(ack);
    const key = ticketKey.safeParse(payload);
    if (!key.success) return answer?.({ ok: false, error: 'join_ticket needs a ticket id' });
    try {
      const ticket = await findVisibleTicket(deps.readStore, key.data, user());
      await socket.join(isStaff(user().role) ? staffRoom(ticket._id) : customerRoom(ticket._id));
      answer?.({ ok: true, ticketId: ticket._id });
    } catch {
      answer?.({ ok: false, error: 'Ticket not found' });
    }
  });

  socket.on('leave_ticket', async (payload: unknown, ack: unknown) => {
    const key = ticketKey.safeParse(payload);
    if (key.success) await leave(key.data);
    ackOf(ack)?.({ ok: key.success });
  });

  // Typing is not a fact worth keeping: it goes socket to socket (through the Redis adapter when
  // there are several processes), only to a room the sender has joined, with the sender's identity
  // taken from the socket rather than the payload. A note being typed shows only to staff.
  socket.on('typing', (payload: unknown) => {
    const parsed = typingPayload.safeParse(payload);
    if (!parsed.success) return;
    const { ticketId, isTyping, isInternal } = parsed.data;
    const me = user();
    const joined = socket.rooms.has(staffRoom(ticketId)) || socket.rooms.has(customerRoom(ticketId));
    if (!joined) return;
    const event = { ticketId, userId: me.id, isTyping, user: { firstName: me.firstName, lastName: me.lastName, role: me.role } };
    const rooms = isInternal && isStaff(me.role) ? [staffRoom(ticketId)] : [staffRoom(ticketId), customerRoom(ticketId)];
    socket.to(rooms).emit('user_typing', event);
  });
}

type TicketUpdate = Extract<TicketEvent, { type: 'TicketStatusChanged' | 'AgentAssignedToTicket' | 'AgentUnassignedFromTicket' | 'TicketOutcomeRecorded' }>;

/**
 * What a `ticket_updated` is about and who did it, so that a browser can tell a status change (which
 * staff are notified of, spec.md section 6) from any other update without keeping earlier copies.
 */
function changeOf(event: RecordedEvent & TicketUpdate) {
  const by = event.metadata.actor?.userId ?? null;
  switch (event.type) {
    case 'TicketStatusChanged':
      return { kind: 'status' as const, from: event.data.from, to: event.data.to, by };
    case 'AgentAssignedToTicket':
      return { kind: 'assigned' as const, agentId: event.data.agentId, by };
    case 'AgentUnassignedFromTicket':
      return { kind: 'unassigned' as const, agentId: event.data.agentId, by };
    case 'TicketOutcomeRecorded':
      return { kind: 'outcome' as const, by };
  }
}

export type TicketChange = ReturnType<typeof changeOf>;

/**
 * Pushes ticket events to browsers from the log, after the read models include them, so a change
 * made through Telegram travels exactly like one made in the browser. Pushes are handled one at a
 * time so that a client sees them in log order.
 */
export function attachTicketChannel(io: Server, deps: AppDeps): () => void {
  io.on('connection', (socket) => onConnection(deps, socket));
  const tickets = () => deps.readStore.collection<TicketView>(TICKETS);
  const messages = () => deps.readStore.collection<MessageView>(TICKET_MESSAGES);

  /** Staff get the staff view; the customer's own sockets (if not staff themselves) get theirs. */
  const toEveryoneConcerned = (ticket: TicketView, name: string, payload: (view: ReturnType<typeof ticketFor>) => object) => {
    io.local.to(STAFF_ROLES).emit(name, payload(ticketFor(ticket, { role: 'agent' })));
    io.local.to(`user:${ticket.customer._id}`).except(STAFF_ROLES).emit(name, payload(ticketFor(ticket, { role: 'customer' })));
  };

  async function push(recorded: RecordedEvent): Promise<void> {
    const event = recorded as unknown as RecordedEvent & (TicketEvent | UserEvent);
    switch (event.type) {
      case 'TicketOpened':
      case 'TicketStatusChanged':
      case 'AgentAssignedToTicket':
      case 'AgentUnassignedFromTicket':
      case 'TicketOutcomeRecorded': {
        const ticket = await tickets().findOne({ _id: event.data.ticketId });
        if (!ticket) return;
        if (event.type === 'TicketOpened') return toEveryoneConcerned(ticket, 'new_ticket', (view) => ({ ticket: view }));
        const change = changeOf(event);
        io.local.to(STAFF_ROLES).emit('ticket_updated', { ticket: ticketFor(ticket, { role: 'agent' }), change });
        // The outcome is staff-only (spec.md section 6): the customer hears nothing of it. Of other
        // changes they learn what changed, not which member of staff did it.
        if (change.kind === 'outcome') return;
        const { by: _by, ...customerChange } = change;
        io.local.to(`user:${ticket.customer._id}`).except(STAFF_ROLES).emit('ticket_updated', { ticket: ticketFor(ticket, { role: 'customer' }), change: customerChange });
        return;
      }
      case 'MessagePosted':
      case 'MessageEdited': {
        const { ticketId, messageId } = event.data;
        const [ticket, message] = await Promise.all([tickets().findOne({ _id: ticketId }), messages().findOne({ _id: messageId })]);
        if (!ticket || !message) return;
        const name = event.type === 'MessagePosted' ? 'new_message' : 'message_edited';
        const body = (view: ReturnType<typeof ticketFor>) => (name === 'new_message' ? { message: messageFor(message), ticket: view } : { message: messageFor(message) });
        io.local.to(staffRoom(ticketId)).emit(name, body(ticketFor(ticket, { role: 'agent' })));
        if (!message.isInternal) io.local.to(customerRoom(ticketId)).emit(name, body(ticketFor(ticket, { role: 'customer' })));
        return;
      }
      case 'TicketDeleted': {
        const { ticketId, customerId } = event.data;
        io.local.to([...STAFF_ROLES, `user:${customerId}`]).emit('ticket_deleted', { ticketId });
        io.local.socketsLeave([staffRoom(ticketId), customerRoom(ticketId)]);
        return;
      }
      case 'UserRoleChanged':
        // Rooms were joined under the old role's rules: the user joins again under the new ones.
        for (const socket of await io.local.in(`user:${event.data.userId}`).fetchSockets()) {
          for (const room of socket.rooms) if (room.startsWith('ticket:')) socket.leave(room);
        }
        return;
      default:
        return;
    }
  }

  let chain: Promise<void> = Promise.resolve();
  return deps.projections.onApplied((recorded) => {
    chain = chain.then(() => push(recorded)).catch((error: unknown) => deps.logger.error({ err: error, position: recorded.position }, 'live push failed'));
  });
}
