import { timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { NotFoundError, UnauthorizedError, ValidationError } from '#contract/errors';
import { loadSystemSettings } from '../../projections/settings';
import { botIdOf, webhookSecret } from '../../platform/telegram';
import { enqueueUpdate } from '../../app/jobs/telegram';
import type { AppDeps } from '../../app/deps';
import { open } from '../http/scopes';

export const WEBHOOK_PATH = '/telegram/webhook';

export const updateShape = z.looseObject({ update_id: z.number().int().nonnegative() });

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * `POST /api/telegram/webhook`, where Telegram delivers updates when `telegramWebhookUrl` is set
 * (that URL must end in this path). Only a request carrying the secret the bot registered is
 * taken; the update goes to the durable update queue and Telegram gets its 200 at once.
 * Mounted before sign-in, rate limiting and maintenance: Telegram is none of those callers.
 */
export const telegramWebhookRoutes = (deps: AppDeps) => (router: Router) => {
  router.post(WEBHOOK_PATH, open, async (req, res) => {
    const settings = await loadSystemSettings(deps.readStore);
    const token = settings.telegramBotToken;
    if (!token || !settings.telegramWebhookUrl) throw new NotFoundError('Telegram webhook');
    const given = req.get('x-telegram-bot-api-secret-token') ?? '';
    if (!sameText(given, webhookSecret(deps.jwtSecret, token))) throw new UnauthorizedError('Invalid Telegram webhook secret');
    const parsed = updateShape.safeParse(req.body);
    if (!parsed.success)
      throw new ValidationError('A Telegram update needs a numeric update_id', [{ path: 'update_id', message: 'A Telegram update needs a numeric update_id' }]);
    await enqueueUpdate(deps, botIdOf(token), parsed.data);
    res.json({ ok: true });
  });
};
