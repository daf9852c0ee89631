import type { Router } from 'express';
import { z } from 'zod';
import { createWebhookSchema, rewindWebhookSchema } from '#contract/events';
import { queryInt } from '#contract/paging';
import { ValidationError } from '#contract/errors';
import type { AppDeps } from '../../app/deps';
import { WEBHOOK_DELIVERY_LOG, type WebhookDeliveryView } from '../../app/webhooks/progress';
import {
  deleteWebhook,
  enableWebhook,
  findWebhook,
  listWebhooks,
  redeliver,
  registerWebhook,
  rewindWebhook,
  rotateWebhookSecret,
} from '../../app/webhooks/service';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { seesNotes } from '../tickets/views';
import { scope } from '../http/scopes';

const deliveriesQuery = z.object({ limit: queryInt('limit', { min: 1, max: 500 }).default(100) }).strict();

/** Webhooks (docs/integrations.md): admins register, inspect and steer them. */
export const webhookRoutes = (deps: AppDeps) => (router: Router) => {
  const admin = requireRole('admin');

  router.get('/webhooks', scope('admin'), admin, async (_req, res) => {
    res.json({ webhooks: await listWebhooks(deps) });
  });

  router.post('/webhooks', scope('admin'), admin, async (req, res) => {
    const input = parse(createWebhookSchema, req.body);
    if (input.includeNotes && !seesNotes(currentUser(req)))
      throw new ValidationError('includeNotes needs the notes:read scope', [{ path: 'includeNotes', message: 'Needs notes:read' }]);
    const { webhook, secret } = await registerWebhook(deps, input, commandContext(deps, req));
    res.status(201).json({ webhook, secret, message: 'Copy the signing secret now: it is shown only this once' });
  });

  router.get('/webhooks/:id/deliveries', scope('admin'), admin, async (req, res) => {
    const { limit } = parse(deliveriesQuery, req.query);
    const webhook = await findWebhook(deps, req.params.id as string);
    const deliveries = await deps.readStore
      .collection<WebhookDeliveryView>(WEBHOOK_DELIVERY_LOG)
      .find({ webhookId: webhook._id }, { sort: { at: -1, _id: 1 }, limit });
    res.json({ deliveries });
  });

  router.post('/webhooks/:id/rewind', scope('admin'), admin, async (req, res) => {
    const input = parse(rewindWebhookSchema, req.body ?? {});
    const webhook = await rewindWebhook(deps, req.params.id as string, input, commandContext(deps, req));
    res.json({ webhook: webhook, message: `Events after position ${webhook.cursor} will be sent again` });
  });

  router.post('/webhooks/:id/deliveries/:position/redeliver', scope('admin'), admin, async (req, res) => {
    const position = parse(z.object({ position: queryInt('position', { min: 1, max: Number.MAX_SAFE_INTEGER }) }), { position: req.params.position }).position;
    await redeliver(deps, req.params.id as string, position, commandContext(deps, req));
    res.status(202).json({ message: 'The event will be sent again shortly' });
  });

  router.post('/webhooks/:id/rotate-secret', scope('admin'), admin, async (req, res) => {
    const { webhook, secret } = await rotateWebhookSecret(deps, req.params.id as string, commandContext(deps, req));
    res.json({
      webhook: webhook,
      secret,
      message: `Copy the new signing secret now: it is shown only this once. The previous one also signs until ${webhook.previousSecretValidUntil}`,
    });
  });

  router.post('/webhooks/:id/enable', scope('admin'), admin, async (req, res) => {
    res.json({ webhook: await enableWebhook(deps, req.params.id as string, commandContext(deps, req)) });
  });

  router.delete('/webhooks/:id', scope('admin'), admin, async (req, res) => {
    await deleteWebhook(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });
};
