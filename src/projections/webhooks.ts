import type { FeedEventType } from '#contract/events';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const WEBHOOKS = 'webhooks_v3';

/**
 * A webhook as its stream says: settings, status, where sending starts. Its delivery progress (the
 * cursor past that start, the last delivery, a failing streak) is the sender's checkpoint, joined at
 * read time (src/app/webhooks/service.ts).
 */
export interface WebhookView extends Doc {
  url: string;
  types: FeedEventType[];
  includeNotes: boolean;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  /** Where sending started: the registration's position or the last rewind's. */
  cursor: number;
  /** Rewinds so far: the sender's progress counts from the latest one. */
  rewinds: number;
  createdAt: string;
  createdBy: string | null;
  /** When its signing secret was last rotated (the secret itself is in no read model). */
  secretRotatedAt: string | null;
  /** Until when the secret before the last rotation still signs beside the new one. */
  previousSecretValidUntil: string | null;
  _revision: number;
}

const webhooks = (store: ReadStore) => store.collection<WebhookView>(WEBHOOKS);
const guarded = (id: string, revision: number) => ({ _id: id, _revision: { $lt: revision } });

/** The admin's list of webhooks. */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  version: 3,
  collections: [WEBHOOKS],
  ...handledBy({
    async WebhookRegistered(event, store) {
      const { webhookId, url, types, includeNotes, startAfter } = event.data;
      const view = {
        url,
        types,
        includeNotes,
        status: 'active' as const,
        disabledReason: null,
        cursor: startAfter,
        rewinds: 0,
        createdAt: event.metadata.occurredAt,
        createdBy: event.metadata.actor?.userId ?? null,
        secretRotatedAt: null,
        previousSecretValidUntil: null,
        _revision: event.revision,
      };
      await webhooks(store).updateOne({ _id: webhookId }, { $setOnInsert: view }, { upsert: true });
    },
    async WebhookRewound(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { cursor: event.data.after, _revision: event.revision },
        $inc: { rewinds: 1 },
      });
    },
    async WebhookSecretRotated(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { secretRotatedAt: event.metadata.occurredAt, previousSecretValidUntil: event.data.previousValidUntil, _revision: event.revision },
      });
    },
    async WebhookDisabled(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { status: 'disabled', disabledReason: event.data.reason, _revision: event.revision },
      });
    },
    async WebhookEnabled(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { status: 'active', disabledReason: null, _revision: event.revision },
      });
    },
    async WebhookDeleted(event, store) {
      await webhooks(store).deleteOne({ _id: event.data.webhookId });
    },
  }),
};
