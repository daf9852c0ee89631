import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { TicketEvent } from '../../domain/ticket/ticket';
import type { UserEvent } from '../../domain/user/user';
import { isStaff } from '#contract/users';
import type { RecordedEvent } from '../../platform/eventstore/port';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView } from '../../projections/tickets';
import type { AppDeps } from '../../app/deps';
import type { AuthUser } from '../http/auth';
import { findVisibleTicket, messageFor, ticketFor } from '../tickets/views';
import { RESYNC_MAX_EVENTS, type ResyncAnswer, type TicketChange } from '#contract/live';
import { type Presence, createPresence } from './presence';
import { STAFF_ROLES, customerRoom, staffRoom, staffRoomTicket, userRoom } from './rooms';

const ticketKey = z.union([z.string().min(1).max(100), z.object({ ticketId: z.string().min(1).max(100) }).transform(({ ticketId }) => ticketId)]);
const typingPayload = z.object({
  ticketId: z.string().min(1).max(100),
  isTyping: z.boolean(),
  isInternal: z.boolean().optional(),
  userId: z.string().optional(),
});
const resyncPayload = z.object({ after: z.number().int().min(0) });

type Answer = (answer: object) => void;
const ackOf = (candidate: unknown): Answer | undefined => (typeof candidate === 'function' ? (candidate as Answer) : undefined);

/**
 * Per socket and per process (a socket lives in one process): typing sends a refresh a second while
 * keys come, joins follow navigation. Ten times a human's pace is abuse; the socket is cut so that
 * it cannot slow the fan-out for everyone else.
 */
export const LIVE_LIMITS = {
  typing: { points: 30, duration: 10 },
  control: { points: 40, duration: 10 },
};

/**
 * One push of the live channel: an event name, its payload and who may receive it, as rooms (any of
 * `to`, none of `except`). Live fan-out and the resync after a reconnect both go through this, so
 * a replayed push follows exactly the visibility rules of a live one.
 */
interface Delivery {
  name: string;
  payload: object;
  to: string[];
  except?: string[];
}

const reaches = (socket: Socket, delivery: Delivery) =>
  delivery.to.some((room) => socket.rooms.has(room)) && !delivery.except?.some((room) => socket.rooms.has(room));

type TicketUpdate = Extract<TicketEvent, { type: 'TicketStatusChanged' | 'AgentAssignedToTicket' | 'AgentUnassignedFromTicket' | 'TicketOutcomeRecorded' }>;

function changeOf(event: RecordedEvent & TicketUpdate): TicketChange {
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

/**
 * The pushes one log event makes, read from the read models as they are now (so a replay shows the
 * current state, never an older one). Every payload carries the event's log `position`: the client
 * keeps the last one it saw and asks for what came after it when it reconnects.
 */
async function deliveriesOf(deps: AppDeps, recorded: RecordedEvent): Promise<Delivery[]> {
  const event = recorded as unknown as RecordedEvent & TicketEvent;
  const { position } = recorded;
  const tickets = deps.readStore.collection<TicketView>(TICKETS);
  /** Staff get the staff view; the customer's own sockets (if not staff themselves) get theirs. */
  const toEveryoneConcerned = (ticket: TicketView, name: string, payload: (view: ReturnType<typeof ticketFor>) => object): Delivery[] => [
    { name, payload: { ...payload(ticketFor(ticket, { role: 'agent' })), position }, to: STAFF_ROLES },
    { name, payload: { ...payload(ticketFor(ticket, { role: 'customer' })), position }, to: [userRoom(ticket.customer._id)], except: STAFF_ROLES },
  ];
  switch (event.type) {
    case 'TicketOpened':
    case 'TicketStatusChanged':
    case 'AgentAssignedToTicket':
    case 'AgentUnassignedFromTicket':
    case 'TicketOutcomeRecorded': {
      const ticket = await tickets.findOne({ _id: event.data.ticketId });
      if (!ticket) return [];
      if (event.type === 'TicketOpened') return toEveryoneConcerned(ticket, 'new_ticket', (view) => ({ ticket: view }));
      const change = changeOf(event);
      const [staff, customer] = toEveryoneConcerned(ticket, 'ticket_updated', (view) => ({ ticket: view, change }));
      // The outcome is staff-only (spec.md section 6): the customer hears nothing of it. Of other
      // changes they learn what changed, not which member of staff did it.
      if (change.kind === 'outcome') return [staff!];
      const { by: _by, ...customerChange } = change;
      return [staff!, { ...customer!, payload: { ...customer!.payload, change: customerChange } }];
    }
    case 'MessagePosted':
    case 'MessageEdited': {
      const { ticketId, messageId } = event.data;
      const [ticket, message] = await Promise.all([
        tickets.findOne({ _id: ticketId }),
        deps.readStore.collection<MessageView>(TICKET_MESSAGES).findOne({ _id: messageId }),
      ]);
      if (!ticket || !message) return [];
      const name = event.type === 'MessagePosted' ? 'new_message' : 'message_edited';
      const body = (view: ReturnType<typeof ticketFor>) =>
        name === 'new_message' ? { message: messageFor(message), ticket: view, position } : { message: messageFor(message), position };
      const staff: Delivery = { name, payload: body(ticketFor(ticket, { role: 'agent' })), to: [staffRoom(ticketId)] };
      return message.isInternal ? [staff] : [staff, { name, payload: body(ticketFor(ticket, { role: 'customer' })), to: [customerRoom(ticketId)] }];
    }
    case 'TicketDeleted': {
      const { ticketId, customerId } = event.data;
      return [{ name: 'ticket_deleted', payload: { ticketId, position }, to: [...STAFF_ROLES, userRoom(customerId)] }];
    }
    default:
      return [];
  }
}

/** Runs tasks one at a time in the order given: pushes and replays reach a socket in log order. */
type Enqueue = (task: () => Promise<void>) => void;

type Limiters = Record<keyof typeof LIVE_LIMITS, RateLimiterMemory>;

function onConnection(deps: AppDeps, socket: Socket, enqueue: Enqueue, presence: Presence, limiters: Limiters): void {
  const user = () => socket.data.user as AuthUser;
  const leave = async (ticketId: string) => {
    const viewing = socket.rooms.has(staffRoom(ticketId));
    await Promise.all([socket.leave(staffRoom(ticketId)), socket.leave(customerRoom(ticketId))]);
    if (viewing) presence.left(socket, ticketId);
  };
  // Where this connection starts in the log, sent after every push already due (the chain runs in
  // order): the client resumes from here if it drops before any push reaches it.
  const startsAt = deps.projections.position;
  enqueue(async () => void socket.emit('live_position', { position: startsAt }));

  /** Runs `handle` within the socket's budget for `kind`; a socket over it is told and cut off. */
  const limited = (kind: keyof Limiters, handle: (payload: unknown, ack: Answer | undefined) => Promise<void> | void) => (payload: unknown, ack: unknown) => {
    limiters[kind]
      .consume(socket.id)
      .then(
        () => handle(payload, ackOf(ack)),
        () => {
          if (!socket.connected) return;
          deps.logger.warn({ userId: user().id, kind }, 'live socket over its rate limit; disconnected');
          socket.emit('live_error', { error: 'Too many live events; this connection is closed' });
          socket.disconnect(true);
        },
      )
      .catch((error: unknown) => deps.logger.error({ err: error, kind }, 'live event failed'));
  };

  socket.on(
    'join_ticket',
    limited('control', async (payload, answer) => {
      const key = ticketKey.safeParse(payload);
      if (!key.success) return answer?.({ ok: false, error: 'join_ticket needs a ticket id' });
      let ticket: TicketView;
      try {
        ticket = await findVisibleTicket(deps.readStore, key.data, user());
      } catch {
        return answer?.({ ok: false, error: 'Ticket not found' });
      }
      if (!socket.connected) return;
      await socket.join(isStaff(user().role) ? staffRoom(ticket._id) : customerRoom(ticket._id));
      answer?.({ ok: true, ticketId: ticket._id });
      if (isStaff(user().role)) presence.changed(ticket._id);
    }),
  );

  socket.on(
    'leave_ticket',
    limited('control', async (payload, answer) => {
      const key = ticketKey.safeParse(payload);
      if (key.success) await leave(key.data);
      answer?.({ ok: key.success });
    }),
  );

  // A reconnecting client names the last log position it saw; it gets what it missed since then,
  // as the same pushes a live socket in its rooms would have had, and the position they reach.
  socket.on(
    'resync',
    limited('control', (payload, answer) => {
      const parsed = resyncPayload.safeParse(payload);
      if (!parsed.success) return answer?.({ ok: false, error: 'resync needs the last log position seen, as {after}' } satisfies ResyncAnswer);
      enqueue(async () => {
        const upTo = deps.projections.position;
        let read: RecordedEvent[];
        try {
          read = await deps.events.readAll({ after: parsed.data.after, maxCount: RESYNC_MAX_EVENTS + 1 });
        } catch (error) {
          // EventStoreDB refuses a position inside a record (positions are byte offsets there), one this
          // log never gave; or the log is unreachable. Either way the client refetches instead.
          deps.logger.warn({ err: error, after: parsed.data.after }, 'resync could not read the log');
          const reason = `The log could not be read after position ${parsed.data.after} (not a position of this log, or the log is unreachable): refetch the current state`;
          return answer?.({ ok: false, error: reason } satisfies ResyncAnswer);
        }
        const events = read.filter((event) => event.position <= upTo);
        if (events.length > RESYNC_MAX_EVENTS) return answer?.({ ok: true, complete: false, position: upTo } satisfies ResyncAnswer);
        let replayed = 0;
        for (const event of events) {
          for (const delivery of await deliveriesOf(deps, event)) {
            if (!reaches(socket, delivery)) continue;
            socket.emit(delivery.name, delivery.payload);
            replayed += 1;
          }
        }
        answer?.({ ok: true, complete: true, position: upTo, replayed } satisfies ResyncAnswer);
      });
    }),
  );

  socket.on(
    'presence_snapshot',
    limited('control', async (_payload, answer) => {
      if (!isStaff(user().role)) return answer?.({ ok: false, error: 'Only staff see who is on a ticket' });
      answer?.({ ok: true, tickets: await presence.snapshot() });
    }),
  );

  // Typing is not a fact worth keeping: it goes socket to socket (through the Redis adapter when
  // there are several processes), only to a room the sender has joined, with the sender's identity
  // taken from the socket rather than the payload. A note being typed shows only to staff.
  socket.on(
    'typing',
    limited('typing', (payload) => {
      const parsed = typingPayload.safeParse(payload);
      if (!parsed.success) return;
      const { ticketId, isTyping, isInternal } = parsed.data;
      const me = user();
      const joined = socket.rooms.has(staffRoom(ticketId)) || socket.rooms.has(customerRoom(ticketId));
      if (!joined) return;
      const event = { ticketId, userId: me.id, isTyping, user: { firstName: me.firstName, lastName: me.lastName, role: me.role } };
      const rooms = isInternal && isStaff(me.role) ? [staffRoom(ticketId)] : [staffRoom(ticketId), customerRoom(ticketId)];
      socket.to(rooms).emit('user_typing', event);
      if (isStaff(me.role)) presence.typing(socket, ticketId, isTyping);
    }),
  );

  // The rooms are gone by `disconnect`: note them while the socket is still in them.
  let viewing: string[] = [];
  socket.on('disconnecting', () => {
    viewing = [...socket.rooms].flatMap((room) => staffRoomTicket(room) ?? []);
  });
  socket.on('disconnect', () => viewing.forEach((ticketId) => presence.left(socket, ticketId)));
}

/**
 * Pushes ticket events to browsers from the log, after the read models include them, so a change
 * made through Telegram travels exactly like one made in the browser. Pushes are handled one at a
 * time so that a client sees them in log order.
 */
export function attachTicketChannel(io: Server, deps: AppDeps): () => void {
  let chain: Promise<void> = Promise.resolve();
  const enqueue: Enqueue = (task) => {
    chain = chain.then(task).catch((error: unknown) => deps.logger.error({ err: error }, 'live push failed'));
  };
  const presence = createPresence(io, deps.logger);
  // Keyed by socket id: a socket lives in one process, so its budget needs no shared store.
  const limiters: Limiters = {
    typing: new RateLimiterMemory({ keyPrefix: 'live-typing', ...LIVE_LIMITS.typing }),
    control: new RateLimiterMemory({ keyPrefix: 'live-control', ...LIVE_LIMITS.control }),
  };
  io.on('connection', (socket) => onConnection(deps, socket, enqueue, presence, limiters));

  // The rooms of this process's sockets (a socket lives in one process; pushes go to local sockets only).
  const localRooms = io.of('/').adapter.rooms;
  const anyoneIn = (rooms: readonly string[]) => rooms.some((room) => (localRooms.get(room)?.size ?? 0) > 0);

  async function push(recorded: RecordedEvent): Promise<void> {
    // A conversation nobody here has open: nothing to read from the read models, build or encode.
    if ((recorded.type === 'MessagePosted' || recorded.type === 'MessageEdited') && typeof recorded.data.ticketId === 'string') {
      if (!anyoneIn([staffRoom(recorded.data.ticketId), customerRoom(recorded.data.ticketId)])) return;
    }
    for (const delivery of await deliveriesOf(deps, recorded)) {
      if (!anyoneIn(delivery.to)) continue;
      const target = io.local.to(delivery.to);
      (delivery.except ? target.except(delivery.except) : target).emit(delivery.name, delivery.payload);
    }
    const event = recorded as unknown as RecordedEvent & (TicketEvent | UserEvent);
    if (event.type === 'TicketDeleted') io.local.socketsLeave([staffRoom(event.data.ticketId), customerRoom(event.data.ticketId)]);
    if (event.type === 'UserRoleChanged') {
      // Rooms were joined under the old role's rules: the user joins again under the new ones.
      for (const socket of await io.local.in(userRoom(event.data.userId)).fetchSockets()) {
        for (const room of socket.rooms) if (room.startsWith('ticket:')) socket.leave(room);
      }
    }
  }

  const stop = deps.projections.onApplied((recorded) => enqueue(() => push(recorded)));
  return () => {
    stop();
    presence.close();
  };
}
