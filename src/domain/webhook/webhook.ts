import type { FeedEventType } from '#contract/events';
import type { DomainEvent } from '../shared/decider';

/**
 * One stream per webhook: what people (and the sender, when it disables one) decided about it: its
 * settings, secrets, rewinds, redelivery requests, disabling. Delivery attempts are not in it: the
 * sender keeps them as its progress (src/app/webhooks/progress.ts), so the stream stays short.
 */
export const webhookStream = (webhookId: string) => `webhook-${webhookId}`;

export interface WebhookSettings {
  url: string;
  /** The event types it wants; empty for all. */
  types: FeedEventType[];
  includeNotes: boolean;
}

export interface DeliveryAttempt {
  webhookId: string;
  /** The log position of the event delivered (its CloudEvents id). */
  position: number;
  eventType: string;
  subject: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attempt: number;
  /** When the attempt was made. */
  at: string;
  /** Sent by an admin's redelivery, outside the webhook's order. */
  manual: boolean;
}

/**
 * A signing secret as the log holds it: encrypted (AES-256-GCM) under a key of the server's keyring
 * named by `kid`, kept outside the log (src/platform/keyring.ts), so a copy of the log does not give
 * the secrets away. Opaque to the domain.
 */
export interface SealedSecret {
  kid: string;
  iv: string;
  data: string;
  tag: string;
}

/** A signing secret: its sealed form, or null for the one derived from JWT_SECRET (webhooks registered before secrets were their own). */
export type WebhookSecret = SealedSecret | null;

export type WebhookEvent =
  /** `secret` is absent from the events of webhooks registered before secrets were their own: theirs is derived. */
  | DomainEvent<'WebhookRegistered', { webhookId: string; startAfter: number; secret?: SealedSecret } & WebhookSettings>
  /** The previous secret still signs, beside the new one, until `previousValidUntil`. */
  | DomainEvent<'WebhookSecretRotated', { webhookId: string; secret: SealedSecret; previousValidUntil: string }>
  | DomainEvent<'WebhookRewound', { webhookId: string; after: number; previous: number }>
  /** Recorded per attempt before delivery progress moved out of the log: still read, never written. */
  | DomainEvent<'WebhookDelivered', DeliveryAttempt>
  /** Recorded per attempt before delivery progress moved out of the log. `nextTryAt` null: the event was given up. */
  | DomainEvent<'WebhookDeliveryFailed', DeliveryAttempt & { nextTryAt: string | null }>
  | DomainEvent<'WebhookRedeliveryRequested', { webhookId: string; position: number }>
  /** A requested redelivery not sent: the event is not one this webhook carries (asked before the request was checked). */
  | DomainEvent<'WebhookRedeliveryRefused', { webhookId: string; position: number; reason: string }>
  | DomainEvent<'WebhookDisabled', { webhookId: string; reason: string }>
  | DomainEvent<'WebhookEnabled', { webhookId: string }>
  | DomainEvent<'WebhookDeleted', { webhookId: string }>;

/** The retry of one event: its attempts so far, when the next one is due, and when its failing began. */
export interface Retrying {
  position: number;
  attempts: number;
  nextTryAt: string;
  since: string;
}

/** A redelivery asked for: `seq` counts the requests of the webhook, so the sender knows which it has handled. */
interface RedeliveryRequest {
  position: number;
  seq: number;
}

export type LiveWebhook = {
  status: 'active' | 'disabled';
  webhookId: string;
  /**
   * Where sending starts: the registration's `startAfter` or the last rewind's `after` (moved on by
   * the attempts recorded in the stream before progress moved out of it). The sender's progress
   * goes on from it.
   */
  cursor: number;
  /** Rewinds so far: the sender's progress counts from the start they name. */
  rewinds: number;
  /** Times enabled again: each clears the sender's failing streak and retry. */
  enables: number;
  /** From attempts recorded in the stream before progress moved out of it; null otherwise. */
  retrying: Retrying | null;
  failingSince: string | null;
  /** Requests not refused, in order; the sender handles those past its own count. */
  redeliveries: RedeliveryRequest[];
  requests: number;
  secret: WebhookSecret;
  /** The secret before the last rotation, signing beside the current one until `until`. */
  previousSecret: { secret: WebhookSecret; until: string } | null;
} & WebhookSettings;

export type WebhookState = { status: 'none' } | { status: 'deleted' } | LiveWebhook;

export const initialWebhookState: WebhookState = { status: 'none' };

export function evolveWebhook(state: WebhookState, event: WebhookEvent): WebhookState {
  if (event.type === 'WebhookRegistered') {
    const { startAfter, webhookId, url, types, includeNotes, secret } = event.data;
    return {
      status: 'active',
      webhookId,
      url,
      types,
      includeNotes,
      cursor: startAfter,
      rewinds: 0,
      enables: 0,
      retrying: null,
      failingSince: null,
      redeliveries: [],
      requests: 0,
      secret: secret ?? null,
      previousSecret: null,
    };
  }
  if (state.status !== 'active' && state.status !== 'disabled') return state;
  const without = (position: number) => state.redeliveries.filter((request) => request.position !== position);
  switch (event.type) {
    case 'WebhookRewound':
      return { ...state, cursor: event.data.after, rewinds: state.rewinds + 1, retrying: null };
    case 'WebhookDelivered': {
      const { position, manual } = event.data;
      if (manual) return { ...state, redeliveries: without(position), failingSince: null };
      return { ...state, cursor: Math.max(state.cursor, position), retrying: null, failingSince: null };
    }
    case 'WebhookDeliveryFailed': {
      const { position, manual, attempt, nextTryAt } = event.data;
      const failingSince = state.failingSince ?? event.data.at;
      if (manual) return { ...state, redeliveries: without(position), failingSince };
      if (nextTryAt === null) return { ...state, cursor: Math.max(state.cursor, position), retrying: null, failingSince };
      const since = state.retrying?.position === position ? state.retrying.since : event.data.at;
      return { ...state, retrying: { position, attempts: attempt, nextTryAt, since }, failingSince };
    }
    case 'WebhookRedeliveryRequested': {
      const seq = state.requests + 1;
      return { ...state, requests: seq, redeliveries: [...without(event.data.position), { position: event.data.position, seq }] };
    }
    case 'WebhookRedeliveryRefused':
      return { ...state, redeliveries: without(event.data.position) };
    case 'WebhookSecretRotated':
      return { ...state, secret: event.data.secret, previousSecret: { secret: state.secret, until: event.data.previousValidUntil } };
    case 'WebhookDisabled':
      return { ...state, status: 'disabled' };
    case 'WebhookEnabled':
      return { ...state, status: 'active', enables: state.enables + 1, failingSince: null, retrying: null };
    case 'WebhookDeleted':
      return { status: 'deleted' };
  }
}
