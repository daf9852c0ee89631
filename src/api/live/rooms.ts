/**
 * The rooms of the live channel. Every socket is in its user's, its role's and its session's room;
 * a ticket's room has two halves: staff sockets, which receive everything including internal notes,
 * and the customer's own sockets, which never do.
 */
export const userRoom = (userId: string) => `user:${userId}`;
export const roleRoom = (role: string) => `role:${role}`;
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
export const staffRoom = (ticketId: string) => `ticket:${ticketId}:staff`;
export const customerRoom = (ticketId: string) => `ticket:${ticketId}:customer`;
export const STAFF_ROLES = [roleRoom('agent'), roleRoom('admin')];

/** The ticket whose staff half `room` is, if it is one. */
export const staffRoomTicket = (room: string) => /^ticket:(.+):staff$/.exec(room)?.[1];
