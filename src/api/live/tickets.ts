import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { MessagePostedData, TicketEvent } from '../../domain/ticket/ticket';
import type { UserEvent } from '../../domain/user/user';
import type { InboxEvent } from '../../domain/inbox/inbox';
import { NOTIFICATIONS, type NotificationDoc, notificationKey } from '../../projections/notifications';
import { notificationViews, unreadCount } from '../../app/notifications/service';
import type { NotificationPush, NotificationsReadPush } from '#contract/notifications';
import { isStaff } from '#contract/users';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import { type MessageView, TICKETS, TICKET_MESSAGES, type TicketView } from '../../projections/tickets';
import type { AppDeps } from '../../app/deps';
import type { AuthUser } from '../http/auth';
import { findVisibleTicket, messageFor, ticketFor } from '../tickets/views';
import { RESYNC_MAX_EVENTS, type ResyncAnswer, type TicketChange, type TicketContinues } from '#contract/live';
import type { SlaWarningPush } from '#contract/sla';
import { type LiveBudget, type LiveGuard, LIVE_USER_LIMITS } from './guard';
import { type Presence, createPresence } from './presence';
import { ioYielder } from '../../platform/yielding';
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

/** A socket that resyncs holds at most this many live pushes back; beyond, its replay is given up and it refetches. */
const RESYNC_HELD_MAX = 1000;

/** Work that walks many events gives the event loop back this often, so nobody else waits behind it. */
const SLICE_MS = 5;

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

type TicketUpdate = Extract<
  TicketEvent,
  {
    type:
      | 'TicketStatusChanged'
      | 'TicketPriorityChanged'
      | 'AgentAssignedToTicket'
      | 'AgentUnassignedFromTicket'
      | 'TicketOutcomeRecorded'
      | 'TicketTeamChanged'
      | 'TicketTagAdded'
      | 'TicketTagRemoved'
      | 'TicketTagRenamed'
      | 'TicketCategoryChanged'
      | 'TicketMergedInto'
      | 'TicketMergedFrom'
      | 'MergedMessagesCopied'
      | 'TicketMergeFromUndone'
      | 'TicketMergeIntoUndone';
  }
>;

function changeOf(event: RecordedEvent & TicketUpdate): TicketChange {
  const by = event.metadata.actor?.userId ?? null;
  switch (event.type) {
    case 'TicketStatusChanged':
      return { kind: 'status' as const, from: event.data.from, to: event.data.to, by, ...(event.data.reason ? { reason: event.data.reason } : {}) };
    case 'TicketPriorityChanged':
      return { kind: 'priority' as const, from: event.data.previous, to: event.data.priority, by };
    case 'AgentAssignedToTicket':
      return { kind: 'assigned' as const, agentId: event.data.agentId, by };
    case 'AgentUnassignedFromTicket':
      return { kind: 'unassigned' as const, agentId: event.data.agentId, by };
    case 'TicketOutcomeRecorded':
      return { kind: 'outcome' as const, by };
    case 'TicketTeamChanged':
      return { kind: 'team' as const, teamId: event.data.teamId, by };
    case 'TicketTagAdded':
    case 'TicketTagRemoved':
    case 'TicketTagRenamed':
      return { kind: 'tags' as const, by };
    case 'TicketCategoryChanged':
      return { kind: 'category' as const, by };
    case 'TicketMergedInto':
      return { kind: 'merge' as const, action: 'into' as const, other: event.data.targetNumber, by };
    case 'TicketMergedFrom':
    case 'MergedMessagesCopied':
      return { kind: 'merge' as const, action: 'from' as const, other: event.data.sourceNumber, by };
    case 'TicketMergeFromUndone':
      return { kind: 'merge' as const, action: 'undone' as const, other: event.data.sourceNumber, by };
    case 'TicketMergeIntoUndone':
      return { kind: 'merge' as const, action: 'undone' as const, other: event.data.targetNumber, by };
  }
}

/** `ticket_continues` for a ticket's customer alone: their own sockets, unless they are staff. */
const continuesFor = (ticket: TicketView, payload: TicketContinues): Delivery => ({
  name: 'ticket_continues',
  payload,
  to: [userRoom(ticket.customer._id)],
  except: STAFF_ROLES,
});

/** A note's mentions: each colleague it names hears of it on their own sockets, with their unread count (docs/notifications.md). */
async function mentionPushes(deps: AppDeps, { messageId, mentions = [] }: MessagePostedData, position: number): Promise<Delivery[]> {
  if (mentions.length === 0) return [];
  const docs = await deps.readStore
    .collection<NotificationDoc>(NOTIFICATIONS)
    .find({ _id: { $in: mentions.map((userId) => notificationKey(userId, messageId)) } });
  const [views, counts] = await Promise.all([notificationViews(deps, docs), Promise.all(docs.map((doc) => unreadCount(deps, doc.userId)))]);
  return docs.map((doc, at) => {
    const push: NotificationPush = { notification: views[at]!, unread: counts[at]!, position };
    return { name: 'notification', payload: push, to: [userRoom(doc.userId)] };
  });
}

/**
 * The pushes one log event makes, read from the read models as they are now (so a replay shows the
 * current state, never an older one). Every payload carries the event's log `position`: the client
 * keeps the last one it saw and asks for what came after it when it reconnects.
 */
async function deliveriesOf(deps: AppDeps, recorded: RecordedEvent): Promise<Delivery[]> {
  const event = recordedAs<TicketEvent | InboxEvent>(recorded);
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
    case 'TicketPriorityChanged':
    case 'AgentAssignedToTicket':
    case 'AgentUnassignedFromTicket':
    case 'TicketOutcomeRecorded':
    case 'TicketTeamChanged':
    case 'TicketTagAdded':
    case 'TicketTagRemoved':
    case 'TicketTagRenamed':
    case 'TicketCategoryChanged':
    case 'TicketMergedInto':
    case 'TicketMergedFrom':
    case 'MergedMessagesCopied':
    case 'TicketMergeFromUndone':
    case 'TicketMergeIntoUndone': {
      const ticket = await tickets.findOne({ _id: event.data.ticketId });
      if (!ticket) return [];
      if (event.type === 'TicketOpened') return toEveryoneConcerned(ticket, 'new_ticket', (view) => ({ ticket: view }));
      const change = changeOf(event);
      const [staff, customer] = toEveryoneConcerned(ticket, 'ticket_updated', (view) => ({ ticket: view, change }));
      // The outcome is staff-only (docs/product.md section 6): the customer hears nothing of it. Of other
      // changes they learn what changed, not which member of staff did it.
      if (change.kind === 'outcome' || change.kind === 'team' || change.kind === 'tags') return [staff!];
      const { by: _by, ...customerChange } = change;
      const told = [staff!, { ...customer!, payload: { ...customer!.payload, change: customerChange } }];
      if (event.type !== 'TicketMergedInto') return told;
      // The source's customer is told once which ticket continues, as Telegram and e-mail tell them.
      const { targetId, targetNumber, targetCustomerId } = event.data;
      const continuesIn = { _id: targetCustomerId === ticket.customer._id ? targetId : null, ticketId: targetNumber };
      return [...told, continuesFor(ticket, { kind: 'merged', ticket: { _id: ticket._id, ticketId: ticket.ticketId }, continuesIn, position })];
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
      const inRoom = message.isInternal ? [staff] : [staff, { name, payload: body(ticketFor(ticket, { role: 'customer' })), to: [customerRoom(ticketId)] }];
      if (name !== 'new_message') return inRoom;
      // Lists everywhere learn of it (unread counts, waiting since), without the text.
      const notice = {
        _id: message._id,
        senderId: message.sender._id,
        senderRole: message.sender.role,
        isInternal: message.isInternal,
        createdAt: message.createdAt,
      };
      const [staffNotice, customerNotice] = toEveryoneConcerned(ticket, 'ticket_message', (view) => ({ ticket: view, message: notice }));
      if (!message.isInternal) return [...inRoom, staffNotice!, customerNotice!];
      return [...inRoom, staffNotice!, ...(event.type === 'MessagePosted' ? await mentionPushes(deps, event.data, position) : [])];
    }
    case 'NotificationMarkedRead':
    case 'AllNotificationsMarkedRead': {
      const { userId } = event.data;
      const read: NotificationsReadPush = { unread: await unreadCount(deps, userId), position };
      return [{ name: 'notifications_read', payload: read, to: [userRoom(userId)] }];
    }
    case 'SlaWarningRaised': {
      // Staff only; the web shows it to the assignee, or to everyone when nobody is assigned (docs/sla.md).
      const ticket = await tickets.findOne({ _id: event.data.ticketId });
      if (!ticket) return [];
      const warning: SlaWarningPush = { ...event.data, number: ticket.ticketId, title: ticket.title, position };
      return [{ name: 'sla_warning', payload: warning, to: STAFF_ROLES }];
    }
    case 'MessagesMovedOut': {
      // A split: its customer is told where the conversation goes on, when any message they could see moved.
      const { ticketId, newTicketId, newNumber, publicCount } = event.data;
      const ticket = publicCount > 0 ? await tickets.findOne({ _id: ticketId }) : null;
      if (!ticket) return [];
      const moved = { _id: ticket._id, ticketId: ticket.ticketId };
      return [continuesFor(ticket, { kind: 'moved', ticket: moved, continuesIn: { _id: newTicketId, ticketId: newNumber }, position })];
    }
    case 'TicketDeleted': {
      const { ticketId, customerId } = event.data;
      return [{ name: 'ticket_deleted', payload: { ticketId, position }, to: [...STAFF_ROLES, userRoom(customerId)] }];
    }
    default:
      return [];
  }
}

/**
 * The conversation an edit belongs to: its pushes go to that ticket's rooms and nowhere else. (A
 * posted message also tells every list, through `ticket_message`, so it is not confined to them.)
 */
const conversationOf = (recorded: RecordedEvent) =>
  recorded.type === 'MessageEdited' && typeof recorded.data.ticketId === 'string' ? recorded.data.ticketId : null;

const positionOf = (payload: object) => (payload as { position?: number }).position ?? 0;

/**
 * Live pushes held back from a socket while its resync runs, sent after its replay in the order
 * they came, so the socket still sees everything in log order while other sockets are not held up.
 */
interface Held {
  socket: Socket;
  pushes: Array<{ name: string; payload: object }>;
  /** More than `RESYNC_HELD_MAX` came: they were dropped, and the client is told to refetch from `lastPosition`. */
  overflowed: boolean;
  lastPosition: number;
}

interface Channel {
  /** The live pushes of this process, one at a time in log order. */
  enqueue(task: () => Promise<void>): void;
  /** Runs a user's resyncs one after another, beside the pushes rather than in their queue; false when too many wait. */
  queueResync(userId: string, task: () => Promise<void>): boolean;
  /** Sockets whose resync runs now, by socket id. */
  held: Map<string, Held>;
  presence: Presence;
  guard: LiveGuard;
}

/**
 * What a socket missed after `after`, replayed as live pushes would have reached it. It gives the
 * event loop back every few milliseconds, so a long replay delays nobody's requests or pushes.
 */
async function replay(deps: AppDeps, socket: Socket, after: number): Promise<ResyncAnswer> {
  const upTo = deps.projections.position;
  let read: RecordedEvent[];
  try {
    read = await deps.events.readAll({ after, maxCount: RESYNC_MAX_EVENTS + 1 });
  } catch (error) {
    // EventStoreDB refuses a position inside a record (positions are byte offsets there), one this
    // log never gave; or the log is unreachable. Either way the client refetches instead.
    deps.logger.warn({ err: error, after }, 'resync could not read the log');
    const reason = `The log could not be read after position ${after} (not a position of this log, or the log is unreachable): refetch the current state`;
    return { ok: false, error: reason };
  }
  const events = read.filter((event) => event.position <= upTo);
  if (events.length > RESYNC_MAX_EVENTS) return { ok: true, complete: false, position: upTo };
  let replayed = 0;
  const breathe = ioYielder(SLICE_MS);
  for (const event of events) {
    if (!socket.connected) break;
    const ticketId = conversationOf(event);
    if (ticketId !== null && !socket.rooms.has(staffRoom(ticketId)) && !socket.rooms.has(customerRoom(ticketId))) continue;
    for (const delivery of await deliveriesOf(deps, event)) {
      if (!reaches(socket, delivery)) continue;
      socket.emit(delivery.name, delivery.payload);
      replayed += 1;
    }
    await breathe();
  }
  return { ok: true, complete: true, position: upTo, replayed };
}

function onConnection(deps: AppDeps, socket: Socket, channel: Channel): void {
  const { presence } = channel;
  const user = () => socket.data.user as AuthUser;
  const leave = async (ticketId: string) => {
    const viewing = socket.rooms.has(staffRoom(ticketId));
    await Promise.all([socket.leave(staffRoom(ticketId)), socket.leave(customerRoom(ticketId))]);
    if (viewing) presence.left(socket, ticketId);
  };
  // Where this connection starts in the log, sent after every push already due (the chain runs in
  // order): the client resumes from here if it drops before any push reaches it.
  const startsAt = deps.projections.position;
  channel.enqueue(async () => void socket.emit('live_position', { position: startsAt }));

  /** Runs `handle` within the socket's and its user's budget; over either, the user is cut off (docs/tickets.md). */
  const limited = (budget: LiveBudget, handle: (payload: unknown, ack: Answer | undefined) => Promise<void> | void) => (payload: unknown, ack: unknown) => {
    channel.guard
      .spend(socket, user().id, budget)
      .then((allowed) => (allowed ? handle(payload, ackOf(ack)) : undefined))
      .catch((error: unknown) => deps.logger.error({ err: error, budget }, 'live event failed'));
  };

  socket.on(
    'join_ticket',
    limited('join', async (payload, answer) => {
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
    limited('join', async (payload, answer) => {
      const key = ticketKey.safeParse(payload);
      if (key.success) await leave(key.data);
      answer?.({ ok: key.success });
    }),
  );

  // A reconnecting client names the last log position it saw; it gets what it missed since then,
  // as the same pushes a live socket in its rooms would have had, and the position they reach.
  // Meanwhile its live pushes wait for it alone (`held`); everyone else's go on.
  socket.on(
    'resync',
    limited('resync', (payload, answer) => {
      const parsed = resyncPayload.safeParse(payload);
      if (!parsed.success) return answer?.({ ok: false, error: 'resync needs the last log position seen, as {after}' } satisfies ResyncAnswer);
      const queued = channel.queueResync(user().id, async () => {
        if (!socket.connected) return;
        const held: Held = { socket, pushes: [], overflowed: false, lastPosition: 0 };
        channel.held.set(socket.id, held);
        let result: ResyncAnswer;
        try {
          result = await replay(deps, socket, parsed.data.after);
        } catch (error) {
          deps.logger.error({ err: error }, 'live resync failed');
          result = { ok: false, error: 'The resync failed; fetch the views again' };
        } finally {
          channel.held.delete(socket.id);
        }
        if (held.overflowed && result.ok) return answer?.({ ok: true, complete: false, position: Math.max(result.position, held.lastPosition) });
        answer?.(result);
        // What the replay already covered would only be dropped by the client.
        const covered = result.ok ? result.position : 0;
        for (const push of held.pushes) if (positionOf(push.payload) > covered) socket.emit(push.name, push.payload);
      });
      if (!queued) answer?.({ ok: false, error: 'Too many resyncs are waiting for this account; try again shortly' } satisfies ResyncAnswer);
    }),
  );

  socket.on(
    'presence_snapshot',
    limited('join', async (_payload, answer) => {
      if (!isStaff(user().role)) return answer?.({ ok: false, error: 'Only staff see who is on a ticket' });
      answer?.({ ok: true, tickets: await presence.snapshot() });
    }),
  );

  // Typing is not a fact worth keeping: it goes socket to socket (through the Redis adapter when
  // there are several processes), only to a room the sender has joined, with the sender's identity
  // taken from the socket rather than the payload, and never back to the sender's own sockets (a
  // user with N sockets in a room would otherwise cost N² pushes). A note being typed shows only to staff.
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
      socket.to(rooms).except(userRoom(me.id)).emit('user_typing', event);
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
 * time so that a client sees them in log order; each is two lookups and one encoding per audience,
 * and the queue gives the event loop back every few milliseconds. The long work a socket can ask
 * for, a resync, runs in its user's own queue instead, holding back only that socket's pushes.
 */
export function attachTicketChannel(io: Server, deps: AppDeps, guard: LiveGuard): () => void {
  let chain: Promise<void> = Promise.resolve();
  let sliceStarted = performance.now();
  const resyncs = new Map<string, { tail: Promise<void>; waiting: number }>();
  const channel: Channel = {
    enqueue(task) {
      chain = chain
        .then(async () => {
          if (performance.now() - sliceStarted > SLICE_MS) await yieldToIo();
          sliceStarted = performance.now();
          await task();
        })
        .catch((error: unknown) => deps.logger.error({ err: error }, 'live push failed'));
    },
    queueResync(userId, task) {
      const queue = resyncs.get(userId) ?? { tail: Promise.resolve(), waiting: 0 };
      if (queue.waiting >= LIVE_USER_LIMITS.resync.points) return false;
      queue.waiting += 1;
      resyncs.set(userId, queue);
      queue.tail = queue.tail
        .then(task)
        .catch((error: unknown) => deps.logger.error({ err: error }, 'live resync failed'))
        .finally(() => {
          queue.waiting -= 1;
          if (queue.waiting === 0 && resyncs.get(userId) === queue) resyncs.delete(userId);
        });
      return true;
    },
    held: new Map(),
    presence: createPresence(io, deps.logger),
    guard,
  };
  io.on('connection', (socket) => onConnection(deps, socket, channel));

  // The rooms of this process's sockets (a socket lives in one process; pushes go to local sockets only).
  const localRooms = io.of('/').adapter.rooms;
  const anyoneIn = (rooms: readonly string[]) => rooms.some((room) => (localRooms.get(room)?.size ?? 0) > 0);
  /**
   * Whether a posted message has anyone here to tell: its ticket's rooms, any staff (lists), or its
   * customer (their list). The customer is known without a read only when they sent it; otherwise
   * any socket here may be theirs.
   */
  const mayReachAnyone = ({ ticketId, senderId, senderRole }: MessagePostedData) =>
    anyoneIn([staffRoom(ticketId), customerRoom(ticketId), ...STAFF_ROLES]) ||
    (senderRole === 'customer' ? anyoneIn([userRoom(senderId)]) : io.of('/').sockets.size > 0);

  /** Sends a push to its rooms here, except to the sockets whose resync runs: they get it after their replay. */
  function send(delivery: Delivery): void {
    const except = [...(delivery.except ?? [])];
    for (const [socketId, held] of channel.held) {
      if (!reaches(held.socket, delivery)) continue;
      except.push(socketId);
      held.lastPosition = Math.max(held.lastPosition, positionOf(delivery.payload));
      if (held.pushes.length < RESYNC_HELD_MAX) held.pushes.push({ name: delivery.name, payload: delivery.payload });
      else held.overflowed = true;
    }
    const target = io.local.to(delivery.to);
    (except.length > 0 ? target.except(except) : target).emit(delivery.name, delivery.payload);
  }

  async function push(recorded: RecordedEvent): Promise<void> {
    // A conversation nobody here has open: nothing to read from the read models, build or encode.
    const ticketId = conversationOf(recorded);
    if (ticketId !== null && !anyoneIn([staffRoom(ticketId), customerRoom(ticketId)])) return;
    const event = recordedAs<TicketEvent | UserEvent>(recorded);
    if (event.type === 'MessagePosted' && !mayReachAnyone(event.data)) return;
    for (const delivery of await deliveriesOf(deps, recorded)) if (anyoneIn(delivery.to)) send(delivery);
    if (event.type === 'TicketDeleted') io.local.socketsLeave([staffRoom(event.data.ticketId), customerRoom(event.data.ticketId)]);
    if (event.type === 'UserRoleChanged') {
      // Rooms were joined under the old role's rules: the user joins again under the new ones.
      for (const socket of await io.local.in(userRoom(event.data.userId)).fetchSockets()) {
        for (const room of socket.rooms) if (room.startsWith('ticket:')) socket.leave(room);
      }
    }
  }

  const stop = deps.projections.onApplied((recorded) => channel.enqueue(() => push(recorded)));
  return () => {
    stop();
    channel.presence.close();
  };
}
