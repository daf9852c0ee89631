import { z } from 'zod';
import type { ApiRegistry } from '../openapi/registry';
import { WEBHOOK_PATH, updateShape } from './routes';
import { open } from '../http/scopes';

export function describeTelegram(docs: ApiRegistry): void {
  docs.route({
    method: 'post',
    path: WEBHOOK_PATH,
    token: open,
    summary: 'Telegram delivers bot updates here (webhook mode)',
    description:
      'Only with a bot token and `telegramWebhookUrl` set (else 404), and only with the secret the bot registered in `X-Telegram-Bot-Api-Secret-Token` (else 401). Not rate limited. 503 `QUEUE_UNAVAILABLE` while the job queue (Redis) does not answer: Telegram sends the update again.',
    access: 'public',
    body: updateShape,
    responses: { 200: { description: 'Queued', schema: z.strictObject({ ok: z.literal(true) }) } },
    // Before the rate limit and maintenance mode, after the start-up guard.
    unguarded: true,
    errors: [401, 404, 503],
  });
}
