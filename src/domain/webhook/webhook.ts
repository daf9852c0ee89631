import type { FeedEventType } from '#contract/events';
import type { DomainEvent } from '../shared/decider';

/** One stream per webhook: its settings, every delivery attempt, rewinds, and its disabling. */
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
  | DomainEvent<'WebhookDelivered', DeliveryAttempt>
  /** `nextTryAt` null: the retry window is spent and the event given up (the webhook goes on past it). */
  | DomainEvent<'WebhookDeliveryFailed', DeliveryAttempt & { nextTryAt: string | null }>
  | DomainEvent<'WebhookRedeliveryRequested', { webhookId: string; position: number }>
  /** A requested redelivery not sent: the event is not one this webhook carries (asked before the request was checked). */
  | DomainEvent<'WebhookRedeliveryRefused', { webhookId: string; position: number; reason: string }>
  | DomainEvent<'WebhookDisabled', { webhookId: string; reason: string }>
  | DomainEvent<'WebhookEnabled', { webhookId: string }>
  | DomainEvent<'WebhookDeleted', { webhookId: string }>;

export type LiveWebhook = {
  status: 'active' | 'disabled';
  webhookId: string;
  /** Every event up to this position is delivered or given up. */
  cursor: number;
  /** The event being retried: its attempts so far and when the next one is due. */
  retrying: { position: number; attempts: number; nextTryAt: string; since: string } | null;
  /** When deliveries began failing without a success since; null while they succeed. */
  failingSince: string | null;
  redeliveries: number[];
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
      retrying: null,
      failingSince: null,
      redeliveries: [],
      secret: secret ?? null,
      previousSecret: null,
    };
  }
  if (state.status !== 'active' && state.status !== 'disabled') return state;
  switch (event.type) {
    case 'WebhookRewound':
      return { ...state, cursor: event.data.after, retrying: null };
    case 'WebhookDelivered': {
      const { position, manual } = event.data;
      if (manual) return { ...state, redeliveries: state.redeliveries.filter((p) => p !== position), failingSince: null };
      return { ...state, cursor: Math.max(state.cursor, position), retrying: null, failingSince: null };
    }
    case 'WebhookDeliveryFailed': {
      const { position, manual, attempt, nextTryAt } = event.data;
      const failingSince = state.failingSince ?? event.data.at;
      if (manual) return { ...state, redeliveries: state.redeliveries.filter((p) => p !== position), failingSince };
      if (nextTryAt === null) return { ...state, cursor: Math.max(state.cursor, position), retrying: null, failingSince };
      const since = state.retrying?.position === position ? state.retrying.since : event.data.at;
      return { ...state, retrying: { position, attempts: attempt, nextTryAt, since }, failingSince };
    }
    case 'WebhookRedeliveryRequested':
      return { ...state, redeliveries: [...state.redeliveries.filter((p) => p !== event.data.position), event.data.position] };
    case 'WebhookRedeliveryRefused':
      return { ...state, redeliveries: state.redeliveries.filter((p) => p !== event.data.position) };
    case 'WebhookSecretRotated':
      return { ...state, secret: event.data.secret, previousSecret: { secret: state.secret, until: event.data.previousValidUntil } };
    case 'WebhookDisabled':
      return { ...state, status: 'disabled' };
    case 'WebhookEnabled':
      return { ...state, status: 'active', failingSince: null, retrying: null };
    case 'WebhookDeleted':
      return { status: 'deleted' };
  }
}
