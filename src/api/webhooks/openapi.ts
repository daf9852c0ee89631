import { z } from 'zod';
import { CloudEvent, Webhook, WebhookDelivery, createWebhookSchema, rewindWebhookSchema } from '#contract/events';
import { DELIVERY_LOG_KEPT } from '../../app/webhooks/progress';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

export function describeWebhooks(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const one = z.strictObject({ webhook: Webhook });
  docs.route({
    method: 'get',
    path: '/webhooks',
    token: scope('admin'),
    summary: 'List webhooks with their status and progress (the log position delivered up to)',
    access: admin,
    responses: { 200: { description: '{ webhooks }', schema: z.strictObject({ webhooks: z.array(Webhook) }) } },
  });
  docs.route({
    method: 'post',
    path: '/webhooks',
    token: scope('admin'),
    summary:
      'Register an HTTPS endpoint for ticket events (CloudEvents 1.0, signed with HMAC-SHA256); from now, after a log position or from a date. Internal addresses are refused unless allowed',
    access: admin,
    body: createWebhookSchema,
    responses: {
      201: {
        description: 'The webhook and its signing secret, shown once',
        schema: z.strictObject({ webhook: Webhook, secret: z.string(), message: z.string() }),
      },
    },
  });
  docs.route({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    token: scope('admin'),
    summary: 'The delivery log, newest first: status, response code, duration, next try',
    description: `The webhook's last ${DELIVERY_LOG_KEPT.toLocaleString('en')} attempts (up to 100 more until the next prune); older ones are let go. \`limit\`: 1–500, default 100.`,
    access: admin,
    query: z.object({ limit: z.string().optional() }),
    responses: { 200: { description: '{ deliveries }', schema: z.strictObject({ deliveries: z.array(WebhookDelivery) }) } },
  });
  docs.route({
    method: 'post',
    path: '/webhooks/:id/rewind',
    token: scope('admin'),
    summary: 'Send again every event after a log position (or from a date), in order, before going on live',
    access: admin,
    body: rewindWebhookSchema,
    responses: { 200: { description: 'The webhook', schema: one.extend({ message: z.string() }) } },
  });
  docs.route({
    method: 'post',
    path: '/webhooks/:id/deliveries/:position/redeliver',
    token: scope('admin'),
    summary: 'Send one event again (one already tried), apart from the webhook’s order',
    description:
      'Only an event this webhook has already tried to send: a position of its delivery log (its last attempts), for an event it carries (one of its types, a note only if it includes notes). Any other position of the log is refused with 409 `NOT_REDELIVERABLE` and nothing is sent.',
    access: admin,
    responses: { 202: { description: 'Queued for the next round', schema: z.strictObject({ message: z.string() }) } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    token: scope('admin'),
    summary: 'Give the webhook a new signing secret, shown once; the previous one keeps signing beside it for 24 h',
    description:
      'During the grace period (until `previousSecretValidUntil`) each delivery carries two `v1` signatures, the new secret’s first, so a receiver switches without losing deliveries. Rotating again within it ends the older secret at once. Recorded as `WebhookSecretRotated` with its actor.',
    access: admin,
    responses: { 200: { description: 'The webhook and its new signing secret, shown once', schema: one.extend({ secret: z.string(), message: z.string() }) } },
  });
  docs.route({
    method: 'post',
    path: '/webhooks/:id/enable',
    token: scope('admin'),
    summary: 'Enable a webhook disabled after failing; it goes on from where it stopped',
    access: admin,
    responses: { 200: { description: 'The webhook', schema: one } },
  });
  docs.route({
    method: 'delete',
    path: '/webhooks/:id',
    token: scope('admin'),
    summary: 'Delete a webhook and its delivery log',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
  });
  // What the desk sends to a registered endpoint (OpenAPI 3.1 `webhooks`).
  docs.registry.registerWebhook({
    method: 'post',
    path: 'deskEvent',
    summary: 'One ticket event, sent to each webhook that wants its type, in log order',
    description:
      'Verify `X-Desk-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: each v1 is HMAC-SHA256 of `<t>.<raw body>` under one signing secret (two after a rotation, for 24 h: the new secret’s first); accept when one matches yours, and refuse a t more than 5 minutes away. Answer 2xx; anything else (or no answer in 10 s) is retried with backoff for 24 h, later events waiting. Redirects are not followed. Deliveries are at least once: drop an `id` seen before.',
    request: {
      headers: z.object({
        'x-desk-signature': z.string().meta({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, one v1 per signing secret in use' }),
        'x-desk-webhook-id': z.string().meta({ description: 'The webhook this delivery is for' }),
      }),
      body: { content: { 'application/cloudevents+json': { schema: CloudEvent } } },
    },
    responses: { 200: { description: 'Any 2xx: delivered' } },
  });
}
