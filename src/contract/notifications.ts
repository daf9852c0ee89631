import { z } from 'zod';
import { pageQuery } from './paging';

/**
 * Mentions and the staff's notification list (docs/notifications.md, "Mentions"). Staff are addressed
 * by their username, which is unique and has no spaces: `@ana_t`. The composer offers staff by their
 * names and writes the username, so a name with spaces ("Ana Tester") is never typed as one.
 */

/** `@` at the start or after a character that is not part of a word or an address, then a username. */
const MENTION = /(?<![\w@.+-])@([A-Za-z0-9_]{3,30})(?![A-Za-z0-9_])/g;

/** The usernames a text names with `@`, lowercased, each once, in the order they come. */
export function mentionedUsernames(text: string): string[] {
  return [...new Set([...text.matchAll(MENTION)].map((match) => match[1]!.toLowerCase()))];
}

/** A note names at most this many colleagues: beyond, the rest stay plain text. */
export const MENTIONS_MAX = 20;

/** The first words of a note shown in the list and in the mail. */
export const NOTIFICATION_EXCERPT_MAX = 140;

export const listNotificationsQuery = z.object({ ...pageQuery(20) }).strict();

export const staffDirectoryQuery = z
  .object({
    q: z.string().trim().max(50, 'Search must be at most 50 characters').default(''),
  })
  .strict();

export const Notification = z
  .strictObject({
    /** The note's message id: a note notifies each person once, so it names the notification. */
    _id: z.string(),
    kind: z.literal('mention'),
    /** The ticket the note is on; null once the ticket was deleted. */
    ticket: z.strictObject({ _id: z.string(), ticketId: z.int(), title: z.string() }).nullable(),
    messageId: z.string(),
    by: z.strictObject({ _id: z.string(), firstName: z.string(), lastName: z.string() }),
    excerpt: z.string(),
    createdAt: z.string(),
    read: z.boolean(),
  })
  .meta({ id: 'Notification' });
export type NotificationView = z.infer<typeof Notification>;

export const StaffMember = z.strictObject({ _id: z.string(), username: z.string(), firstName: z.string(), lastName: z.string() }).meta({ id: 'StaffMember' });
export type StaffMemberView = z.infer<typeof StaffMember>;

/** Live `notification`, to the mentioned person's sockets only. */
export interface NotificationPush {
  notification: NotificationView;
  unread: number;
  position: number;
}

/** Live `notifications_read`, to the reader's own sockets: the count after they marked some read. */
export interface NotificationsReadPush {
  unread: number;
  position: number;
}
