import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import type { AuthUser } from '../http/auth';
import { TYPING_STALE_MS, type TicketPresence, type Viewer } from '#contract/live';
import { STAFF_ROLES, staffRoom, staffRoomTicket } from './rooms';

export interface Presence {
  /** Someone joined or left the staff half of the ticket's room: staff hear who is there now. */
  changed(ticketId: string): void;
  /** A staff socket left the ticket (or the channel): it no longer views nor replies there. */
  left(socket: Socket, ticketId: string): void;
  /** A staff socket's typing on the ticket, which makes its user "replying" until it stops or goes stale. */
  typing(socket: Socket, ticketId: string, isTyping: boolean): void;
  /** Every ticket someone of the staff is on now. */
  snapshot(): Promise<TicketPresence[]>;
  close(): void;
}

interface PresenceSocket {
  rooms: Set<string>;
  data: { user?: AuthUser; replying?: string[] };
}

/** The staff on a ticket, one entry a user however many tabs they have open. */
function viewersIn(sockets: PresenceSocket[], ticketId: string): Viewer[] {
  const viewers = new Map<string, Viewer>();
  for (const { data } of sockets) {
    if (!data.user) continue;
    const replying = data.replying?.includes(ticketId) ?? false;
    const known = viewers.get(data.user.id);
    if (known) known.replying ||= replying;
    else viewers.set(data.user.id, { userId: data.user.id, firstName: data.user.firstName, lastName: data.user.lastName, replying });
  }
  return [...viewers.values()];
}

/**
 * Who of the staff is on a ticket, for collision detection (two agents answering one customer).
 * It is read from the sockets in each ticket's staff room (`fetchSockets` asks every API process
 * through the Redis adapter), so there is no second copy to drift; "replying" is a flag on the
 * socket set by its typing. It is sent to staff sockets only: customers see typing, nothing more.
 */
export function createPresence(io: Server, logger: Logger): Presence {
  const stale = new Map<string, NodeJS.Timeout>();
  // One computation at a time per ticket, so a later state is never overtaken by an earlier one.
  const pending = new Map<string, Promise<void>>();
  // Tickets whose next computation has not started yet: it reads the sockets when it runs, so it
  // answers for every change made meanwhile, and a burst of joins (one user's many tabs) costs one.
  const due = new Set<string>();

  const changed = (ticketId: string) => {
    if (due.has(ticketId)) return;
    due.add(ticketId);
    const run = (pending.get(ticketId) ?? Promise.resolve())
      .then(async () => {
        due.delete(ticketId);
        const sockets = await io.in(staffRoom(ticketId)).fetchSockets();
        io.to(STAFF_ROLES).emit('ticket_presence', { ticketId, viewers: viewersIn(sockets, ticketId) } satisfies TicketPresence);
      })
      .catch((error: unknown) => logger.warn({ err: error, ticketId }, 'ticket presence could not be sent'))
      .finally(() => {
        if (pending.get(ticketId) === run) pending.delete(ticketId);
      });
    pending.set(ticketId, run);
  };

  const setReplying = (socket: Socket, ticketId: string, replying: boolean) => {
    const data = socket.data as PresenceSocket['data'];
    const current = data.replying ?? [];
    if (current.includes(ticketId) === replying) return false;
    data.replying = replying ? [...current, ticketId] : current.filter((id) => id !== ticketId);
    return true;
  };
  const stopStale = (socket: Socket, ticketId: string) => {
    const key = `${socket.id}:${ticketId}`;
    clearTimeout(stale.get(key));
    stale.delete(key);
  };

  return {
    changed,
    left(socket, ticketId) {
      stopStale(socket, ticketId);
      setReplying(socket, ticketId, false);
      changed(ticketId);
    },
    typing(socket, ticketId, isTyping) {
      stopStale(socket, ticketId);
      // A lost "stopped typing" (a dropped connection) must not leave someone replying for ever.
      if (isTyping) {
        stale.set(
          `${socket.id}:${ticketId}`,
          setTimeout(() => {
            stale.delete(`${socket.id}:${ticketId}`);
            if (setReplying(socket, ticketId, false)) changed(ticketId);
          }, TYPING_STALE_MS),
        );
      }
      if (setReplying(socket, ticketId, isTyping)) changed(ticketId);
    },
    async snapshot() {
      const sockets = await io.in(STAFF_ROLES).fetchSockets();
      const tickets = new Set([...sockets].flatMap((socket) => [...socket.rooms].flatMap((room) => staffRoomTicket(room) ?? [])));
      return [...tickets].map((ticketId) => ({
        ticketId,
        viewers: viewersIn(
          sockets.filter((socket) => socket.rooms.has(staffRoom(ticketId))),
          ticketId,
        ),
      }));
    },
    close() {
      stale.forEach((timer) => clearTimeout(timer));
      stale.clear();
    },
  };
}
