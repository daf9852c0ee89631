import type { FeedEventType } from '#contract/events';
import type { DeliveryAttempt } from '../domain/webhook/webhook';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const WEBHOOKS = 'webhooks_v2';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries_v2';

export interface WebhookView extends Doc {
  url: string;
  types: FeedEventType[];
  includeNotes: boolean;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  /** Every event up to this log position is delivered or given up. */
  cursor: number;
  createdAt: string;
  createdBy: string | null;
  lastDeliveryAt: string | null;
  failingSince: string | null;
  /** When its signing secret was last rotated (the secret itself is in no read model). */
  secretRotatedAt: string | null;
  /** Until when the secret before the last rotation still signs beside the new one. */
  previousSecretValidUntil: string | null;
  _revision: number;
}

/** One attempt of the delivery log: what was sent, what came back, and when the next try is due. */
export interface WebhookDeliveryView extends Doc, Omit<DeliveryAttempt, 'manual'> {
  manual: boolean;
  status: 'delivered' | 'retrying' | 'given_up' | 'failed';
  nextTryAt: string | null;
}

const webhooks = (store: ReadStore) => store.collection<WebhookView>(WEBHOOKS);
const guarded = (id: string, revision: number) => ({ _id: id, _revision: { $lt: revision } });

/** The admin's list of webhooks and every delivery attempt. */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  version: 2,
  collections: [WEBHOOKS, WEBHOOK_DELIVERIES],
  async setup(store: ReadStore) {
    await store.collection(WEBHOOK_DELIVERIES).createIndex({ keys: { webhookId: 1, at: -1 } });
    // A redelivery is allowed only for a position its webhook tried (src/app/webhooks/service.ts).
    await store.collection(WEBHOOK_DELIVERIES).createIndex({ keys: { webhookId: 1, position: 1 } });
  },
  ...handledBy({
    async WebhookRegistered(event, store) {
      const { webhookId, url, types, includeNotes, startAfter } = event.data;
      const at = event.metadata.occurredAt;
      const view = {
        url,
        types,
        includeNotes,
        status: 'active' as const,
        disabledReason: null,
        cursor: startAfter,
        createdAt: at,
        createdBy: event.metadata.actor?.userId ?? null,
        lastDeliveryAt: null,
        failingSince: null,
        secretRotatedAt: null,
        previousSecretValidUntil: null,
        _revision: event.revision,
      };
      await webhooks(store).updateOne({ _id: webhookId }, { $setOnInsert: view }, { upsert: true });
    },
    async WebhookRewound(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), { $set: { cursor: event.data.after, _revision: event.revision } });
    },
    async WebhookSecretRotated(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { secretRotatedAt: event.metadata.occurredAt, previousSecretValidUntil: event.data.previousValidUntil, _revision: event.revision },
      });
    },
    async WebhookDelivered(event, store) {
      const { webhookId, position, at, manual } = event.data;
      await store
        .collection<WebhookDeliveryView>(WEBHOOK_DELIVERIES)
        .updateOne({ _id: event.id }, { $setOnInsert: { ...event.data, status: 'delivered', nextTryAt: null } }, { upsert: true });
      await webhooks(store).updateOne(guarded(webhookId, event.revision), {
        $set: { lastDeliveryAt: at, failingSince: null, _revision: event.revision, ...(manual ? {} : { cursor: position }) },
      });
    },
    async WebhookDeliveryFailed(event, store) {
      const { webhookId, position, at, manual, nextTryAt } = event.data;
      const status = manual ? 'failed' : nextTryAt === null ? 'given_up' : 'retrying';
      await store
        .collection<WebhookDeliveryView>(WEBHOOK_DELIVERIES)
        .updateOne({ _id: event.id }, { $setOnInsert: { ...event.data, status } }, { upsert: true });
      await webhooks(store).updateOne({ _id: webhookId, failingSince: null }, { $set: { failingSince: at } });
      await webhooks(store).updateOne(guarded(webhookId, event.revision), {
        $set: { _revision: event.revision, ...(!manual && nextTryAt === null ? { cursor: position } : {}) },
      });
    },
    async WebhookDisabled(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { status: 'disabled', disabledReason: event.data.reason, _revision: event.revision },
      });
    },
    async WebhookEnabled(event, store) {
      await webhooks(store).updateOne(guarded(event.data.webhookId, event.revision), {
        $set: { status: 'active', disabledReason: null, failingSince: null, _revision: event.revision },
      });
    },
    async WebhookDeleted(event, store) {
      await webhooks(store).deleteOne({ _id: event.data.webhookId });
      await store.collection<WebhookDeliveryView>(WEBHOOK_DELIVERIES).deleteMany({ webhookId: event.data.webhookId });
    },
  }),
};
