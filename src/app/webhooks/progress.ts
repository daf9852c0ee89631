import type { DeliveryAttempt, LiveWebhook, Retrying } from '../../domain/webhook/webhook';
import type { Doc, ReadStore } from '../../platform/readstore/port';

/**
 * A webhook's delivery progress, kept by its sender as a checkpoint (a read-store document, its
 * cursor also in the queue's store), not as events: an attempt is no change anyone decided, and an
 * event per attempt made each webhook's stream, and the sender's catch-up after a lease change, grow
 * with every delivery (docs/integrations.md).
 */
export interface WebhookProgress extends Doc {
  /** The webhook's rewinds when this progress began: a newer rewind starts it again from its position. */
  rewinds: number;
  /** The webhook's enables accounted for: a newer one clears the failing streak and the retry. */
  enables: number;
  /** Every event up to this log position is delivered or given up. */
  cursor: number;
  retrying: Retrying | null;
  /** When deliveries began failing without a success since; null while they succeed. */
  failingSince: string | null;
  lastDeliveryAt: string | null;
  /** Redelivery requests handled (sent or refused), counted in the order of the webhook's stream. */
  redelivered: number;
  /** Attempts in the delivery log (bounded to DELIVERY_LOG_KEPT). */
  logged: number;
}

export const WEBHOOK_PROGRESS = 'webhook_progress';
/** The delivery log: one document per attempt, the last DELIVERY_LOG_KEPT of each webhook. */
export const WEBHOOK_DELIVERY_LOG = 'webhook_delivery_log';
/** Attempts kept per webhook in the delivery log; older ones are let go (at most 100 more are held before a prune). */
export const DELIVERY_LOG_KEPT = 1000;

/** What the queue's store keeps of a progress, so that a read store lost or restored from an older snapshot does not send everything again. */
export const cursorCheckpoint = (webhookId: string, rewinds: number) => `webhook:${webhookId}:${rewinds}`;
export const redeliveredCheckpoint = (webhookId: string) => `webhook-redelivered:${webhookId}`;

/**
 * The progress to go on from: the stored one when it counts from the webhook's latest rewind (moved
 * on to the durable cursor if that is further), else a fresh one from the rewind's (or the
 * registration's) position; an enable since clears the failing streak.
 */
export function progressOf(
  webhook: LiveWebhook,
  stored: WebhookProgress | null,
  durable: { cursor: number | null; redelivered: number | null },
): WebhookProgress {
  const redelivered = Math.max(stored?.redelivered ?? 0, durable.redelivered ?? 0);
  const current =
    stored && stored.rewinds === webhook.rewinds
      ? { ...stored, cursor: Math.max(stored.cursor, durable.cursor ?? 0), redelivered }
      : {
          _id: webhook.webhookId,
          rewinds: webhook.rewinds,
          enables: stored?.enables ?? webhook.enables,
          cursor: durable.cursor ?? webhook.cursor,
          retrying: webhook.retrying,
          failingSince: stored?.failingSince ?? webhook.failingSince,
          lastDeliveryAt: stored?.lastDeliveryAt ?? null,
          redelivered,
          logged: stored?.logged ?? 0,
        };
  return webhook.enables > current.enables ? { ...current, enables: webhook.enables, failingSince: null, retrying: null } : current;
}

/** The progress after an attempt; `nextTryAt` null on a failure gives the event up (the cursor passes it). */
export function afterAttempt(progress: WebhookProgress, attempt: DeliveryAttempt, ok: boolean, nextTryAt: string | null): WebhookProgress {
  const { position, at, manual } = attempt;
  const logged = progress.logged + 1;
  if (ok) {
    const moved = manual ? {} : { cursor: Math.max(progress.cursor, position), retrying: null };
    return { ...progress, ...moved, failingSince: null, lastDeliveryAt: at, logged };
  }
  const failingSince = progress.failingSince ?? at;
  if (manual) return { ...progress, failingSince, logged };
  if (nextTryAt === null) return { ...progress, cursor: Math.max(progress.cursor, position), retrying: null, failingSince, logged };
  const since = progress.retrying?.position === position ? progress.retrying.since : at;
  return { ...progress, retrying: { position, attempts: attempt.attempt, nextTryAt, since }, failingSince, logged };
}

/** One attempt of the delivery log: what was sent, what came back, and when the next try is due. */
export interface WebhookDeliveryView extends Doc, DeliveryAttempt {
  status: 'delivered' | 'retrying' | 'given_up' | 'failed';
  nextTryAt: string | null;
}

export const deliveryStatus = (manual: boolean, ok: boolean, nextTryAt: string | null): WebhookDeliveryView['status'] =>
  ok ? 'delivered' : manual ? 'failed' : nextTryAt === null ? 'given_up' : 'retrying';

/** Drops a deleted webhook's delivery log and progress (its cursor checkpoints in the queue's store are a few numbers, left). */
export async function forgetDeliveries(deps: { readStore: ReadStore }, webhookId: string): Promise<void> {
  await deps.readStore.collection<WebhookDeliveryView>(WEBHOOK_DELIVERY_LOG).deleteMany({ webhookId });
  await deps.readStore.collection<WebhookProgress>(WEBHOOK_PROGRESS).deleteOne({ _id: webhookId });
}
