import { ConflictError, NotFoundError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { type SealedSecret, type WebhookEvent, type WebhookSettings, type WebhookState, evolveWebhook, initialWebhookState } from './webhook';

export type WebhookCommand =
  | ({ type: 'RegisterWebhook'; webhookId: string; startAfter: number; secret: SealedSecret } & WebhookSettings)
  /** The current secret becomes the previous one, still signing until `previousValidUntil`; an older previous one stops at once. */
  | { type: 'RotateWebhookSecret'; secret: SealedSecret; previousValidUntil: string }
  | { type: 'RewindWebhook'; after: number }
  /** `tried`: the event is one this webhook carries (its types, tickets only, notes only if included) and its delivery log has an attempt of it. */
  | { type: 'RequestRedelivery'; position: number; tried: boolean }
  | { type: 'RefuseRedelivery'; position: number; reason: string }
  | { type: 'DisableWebhook'; reason: string }
  | { type: 'EnableWebhook' }
  | { type: 'DeleteWebhook' };

const NOT_REDELIVERABLE = 'Only an event this webhook has already tried to send can be redelivered: one of its types, a note only if it includes notes';

const existing = (state: WebhookState) => {
  if (state.status !== 'active' && state.status !== 'disabled') throw new NotFoundError('Webhook');
  return state;
};

export function decideWebhook(command: WebhookCommand, state: WebhookState): WebhookEvent[] {
  switch (command.type) {
    case 'RegisterWebhook': {
      if (state.status !== 'none') throw new ConflictError('This webhook already exists', 'WEBHOOK_EXISTS');
      const { type: _type, ...data } = command;
      return [{ type: 'WebhookRegistered', data }];
    }
    case 'RewindWebhook': {
      const webhook = existing(state);
      return [{ type: 'WebhookRewound', data: { webhookId: webhook.webhookId, after: command.after, previous: webhook.cursor } }];
    }
    case 'RotateWebhookSecret': {
      const webhook = existing(state);
      return [{ type: 'WebhookSecretRotated', data: { webhookId: webhook.webhookId, secret: command.secret, previousValidUntil: command.previousValidUntil } }];
    }
    case 'RequestRedelivery': {
      const webhook = existing(state);
      // Redelivery sends again what this webhook was sent, nothing else of the log (users, settings, notes it does not carry).
      if (!command.tried) throw new ConflictError(NOT_REDELIVERABLE, 'NOT_REDELIVERABLE');
      return [{ type: 'WebhookRedeliveryRequested', data: { webhookId: webhook.webhookId, position: command.position } }];
    }
    case 'RefuseRedelivery': {
      const webhook = existing(state);
      if (!webhook.redeliveries.some((request) => request.position === command.position)) return [];
      return [{ type: 'WebhookRedeliveryRefused', data: { webhookId: webhook.webhookId, position: command.position, reason: command.reason } }];
    }
    case 'DisableWebhook': {
      const webhook = existing(state);
      return webhook.status === 'disabled' ? [] : [{ type: 'WebhookDisabled', data: { webhookId: webhook.webhookId, reason: command.reason } }];
    }
    case 'EnableWebhook': {
      const webhook = existing(state);
      return webhook.status === 'active' ? [] : [{ type: 'WebhookEnabled', data: { webhookId: webhook.webhookId } }];
    }
    case 'DeleteWebhook': {
      const webhook = existing(state);
      return [{ type: 'WebhookDeleted', data: { webhookId: webhook.webhookId } }];
    }
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  decide: decideWebhook,
  evolve: evolveWebhook,
  initialState: initialWebhookState,
};
