import { NotFoundError } from '#contract/errors';
import { MENTIONS_MAX, type NotificationView, type StaffMemberView, mentionedUsernames } from '#contract/notifications';
import { inboxDecider } from '../../domain/inbox/decide';
import { inboxStream } from '../../domain/inbox/inbox';
import type { CommandContext } from '../../platform/commands';
import { loadDirectory } from '../../projections/directory';
import { NOTIFICATIONS, type NotificationDoc, notificationKey } from '../../projections/notifications';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';

const STAFF = { role: { $in: ['agent', 'admin'] }, isActive: true };

/**
 * The colleagues a note names (docs/notifications.md, "Mentions"): each `@username` of an active agent
 * or admin; any other `@word` (a customer, a deactivated account, nobody) stays plain text.
 */
export async function resolveMentions(deps: Pick<AppDeps, 'readStore'>, content: string): Promise<string[]> {
  const usernames = mentionedUsernames(content).slice(0, MENTIONS_MAX);
  if (usernames.length === 0) return [];
  const found = await deps.readStore.collection<UserView>(USERS).find({ username: { $in: usernames }, ...STAFF });
  const byName = new Map(found.map((user) => [user.username, user._id]));
  return usernames.flatMap((username) => byName.get(username) ?? []);
}

/** Active staff whose username or name starts with `q`: the composer's suggestions after `@`. */
export async function staffDirectory(deps: Pick<AppDeps, 'readStore'>, q: string): Promise<StaffMemberView[]> {
  const staff = await deps.readStore.collection<UserView>(USERS).find(STAFF, { sort: { firstName: 1, lastName: 1, username: 1 } });
  const wanted = q.toLowerCase();
  return staff
    .filter((user) =>
      [user.username, user.firstName, user.lastName, `${user.firstName} ${user.lastName}`].some((name) => name.toLowerCase().startsWith(wanted)),
    )
    .map(({ _id, username, firstName, lastName }) => ({ _id, username, firstName, lastName }));
}

const notifications = (deps: Pick<AppDeps, 'readStore'>) => deps.readStore.collection<NotificationDoc>(NOTIFICATIONS);

export const unreadCount = (deps: Pick<AppDeps, 'readStore'>, userId: string) => notifications(deps).count({ userId, read: false });

/** The wire shape, names and ticket joined at read time (one query each for a page). */
export async function notificationViews(deps: Pick<AppDeps, 'readStore'>, docs: NotificationDoc[]): Promise<NotificationView[]> {
  const ticketIds = [...new Set(docs.map((doc) => doc.ticketId))];
  const [tickets, directory] = await Promise.all([
    ticketIds.length === 0 ? [] : deps.readStore.collection<TicketView>(TICKETS).find({ _id: { $in: ticketIds } }),
    loadDirectory(
      deps.readStore,
      docs.map((doc) => doc.byId),
      [],
    ),
  ]);
  const ticketsById = new Map(tickets.map((ticket) => [ticket._id, ticket]));
  return docs.map((doc) => {
    const ticket = ticketsById.get(doc.ticketId);
    const by = directory.person(doc.byId);
    return {
      _id: doc.messageId,
      kind: 'mention',
      ticket: ticket ? { _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title } : null,
      messageId: doc.messageId,
      by: { _id: doc.byId, firstName: by.firstName, lastName: by.lastName },
      excerpt: doc.excerpt,
      createdAt: doc.createdAt,
      read: doc.read,
    };
  });
}

/** A page of a person's notifications, newest first, with how many are unread. */
export async function listNotifications(deps: Pick<AppDeps, 'readStore'>, userId: string, { page, limit }: { page: number; limit: number }) {
  const [items, total, unread] = await Promise.all([
    notifications(deps).find({ userId }, { sort: { position: -1 }, skip: (page - 1) * limit, limit }),
    notifications(deps).count({ userId }),
    unreadCount(deps, userId),
  ]);
  return { notifications: await notificationViews(deps, items), unread, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
}

/** Marks one of the caller's notifications read (404 for one that is not theirs); answers the unread count. */
export async function markNotificationRead(deps: AppDeps, notificationId: string, context: CommandContext): Promise<number> {
  const userId = context.actor.userId;
  const found = await notifications(deps).findOne({ _id: notificationKey(userId, notificationId) });
  if (!found) throw new NotFoundError('Notification');
  const command = { type: 'MarkNotificationRead' as const, userId, actorId: userId, notificationId, position: found.position };
  await runCommand(deps, inboxStream(userId), inboxDecider, command, context);
  return unreadCount(deps, userId);
}

/** Marks every notification the caller has so far read; answers the unread count (0, unless one came meanwhile). */
export async function markAllNotificationsRead(deps: AppDeps, context: CommandContext): Promise<number> {
  const userId = context.actor.userId;
  const [newest] = await notifications(deps).find({ userId }, { sort: { position: -1 }, limit: 1 });
  if (newest)
    await runCommand(deps, inboxStream(userId), inboxDecider, { type: 'MarkAllNotificationsRead', userId, actorId: userId, upTo: newest.position }, context);
  return unreadCount(deps, userId);
}
