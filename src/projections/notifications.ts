import { NOTIFICATION_EXCERPT_MAX } from '#contract/notifications';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const NOTIFICATIONS = 'notifications_v1';

/**
 * One person's notice that a colleague mentioned them in an internal note (docs/notifications.md,
 * "Mentions"). Names and the ticket's title are joined at read time, so a rename needs no rewrite.
 */
export interface NotificationDoc extends Doc {
  userId: string;
  messageId: string;
  ticketId: string;
  byId: string;
  excerpt: string;
  createdAt: string;
  /** The log position of the note: "mark all read" covers the notifications up to one. */
  position: number;
  read: boolean;
}

export const notificationKey = (userId: string, messageId: string) => `${userId}:${messageId}`;

/** The note's first words on one line, cut at a word where it can be. */
export function excerptOf(content: string): string {
  const line = content.replace(/\s+/g, ' ').trim();
  if (line.length <= NOTIFICATION_EXCERPT_MAX) return line;
  const cut = line.slice(0, NOTIFICATION_EXCERPT_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > NOTIFICATION_EXCERPT_MAX / 2 ? cut.slice(0, space) : cut}…`;
}

/** Serves GET /api/notifications and the bell's unread count. */
export const notificationsProjection: Projection = {
  name: 'notifications',
  version: 1,
  collections: [NOTIFICATIONS],
  async setup(store: ReadStore) {
    await store.collection(NOTIFICATIONS).createIndex({ keys: { userId: 1, position: -1 } });
    await store.collection(NOTIFICATIONS).createIndex({ keys: { userId: 1, read: 1 } });
    await store.collection(NOTIFICATIONS).createIndex({ keys: { ticketId: 1 } });
  },
  ...handledBy({
    async MessagePosted(event, store) {
      const { mentions, isInternal, messageId, ticketId, senderId, content } = event.data;
      if (!isInternal || !mentions || mentions.length === 0) return;
      const notifications = store.collection<NotificationDoc>(NOTIFICATIONS);
      const fields = { messageId, ticketId, byId: senderId, excerpt: excerptOf(content), createdAt: event.metadata.occurredAt, position: event.position };
      // Inserted only once: a replayed page changes nothing, and a notice read since stays read.
      await notifications.bulkWrite(
        mentions.map((userId) => ({
          updateOne: { filter: { _id: notificationKey(userId, messageId) }, update: { $setOnInsert: { userId, ...fields, read: false } }, upsert: true },
        })),
      );
    },
    async NotificationMarkedRead(event, store) {
      const { userId, notificationId } = event.data;
      await store.collection<NotificationDoc>(NOTIFICATIONS).updateOne({ _id: notificationKey(userId, notificationId) }, { $set: { read: true } });
    },
    async AllNotificationsMarkedRead(event, store) {
      const { userId, upTo } = event.data;
      await store.collection<NotificationDoc>(NOTIFICATIONS).updateMany({ userId, read: false, position: { $lte: upTo } }, { $set: { read: true } });
    },
    async TicketDeleted(event, store) {
      // A deleted ticket is gone for everyone: its notes notify nobody any more.
      await store.collection<NotificationDoc>(NOTIFICATIONS).deleteMany({ ticketId: event.data.ticketId });
    },
  }),
};
