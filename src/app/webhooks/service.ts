import { createHmac, randomBytes } from 'node:crypto';
import type { CreateWebhookInput } from '#contract/events';
import { ValidationError } from '#contract/errors';
import { webhookDecider } from '../../domain/webhook/decide';
import { type LiveWebhook, type WebhookSecret, webhookStream } from '../../domain/webhook/webhook';
import type { CommandContext } from '../../platform/commands';
import { pagesOfAll } from '../../platform/eventstore/paging';
import { openSecret, sealSecret } from '../../platform/keyring';
import { WEBHOOKS, type WebhookView } from '../../projections/webhooks';
import { NotFoundError } from '#contract/errors';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';
import { type FeedViewer, feedItemAt } from '../events/feed';
import { WEBHOOK_DELIVERY_LOG, WEBHOOK_PROGRESS, type WebhookDeliveryView, type WebhookProgress, forgetDeliveries } from './progress';
import { type WebhookNetworkRules, checkWebhookTarget, checkWebhookUrl } from './send';

export const networkRules = (deps: Pick<AppDeps, 'config'>): WebhookNetworkRules => ({
  allowHttp: deps.config.WEBHOOK_ALLOW_HTTP,
  allowedHosts: deps.config.WEBHOOK_ALLOWED_HOSTS,
});

/** How long the previous secret still signs beside a new one after a rotation, so receivers switch without losing deliveries. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 3_600_000;

/**
 * The secret of a webhook registered before secrets were their own: derived from JWT_SECRET and the
 * webhook's id. It stays that until the webhook's secret is rotated (docs/integrations.md).
 */
const derivedSecret = (jwtSecret: string, webhookId: string) =>
  `whsec_${createHmac('sha256', jwtSecret).update(`webhook-signing:${webhookId}`).digest('base64url')}`;

/** A new random secret, and its sealed form for the log, bound to its webhook (a sealed secret moved to another webhook does not open). */
function newSecret(deps: Pick<AppDeps, 'keyring'>, webhookId: string) {
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  return { secret, sealed: sealSecret(deps.keyring, secret, webhookStream(webhookId)) };
}

const secretOf = (deps: Pick<AppDeps, 'keyring' | 'jwtSecret'>, webhookId: string, secret: WebhookSecret) =>
  secret === null ? derivedSecret(deps.jwtSecret, webhookId) : openSecret(deps.keyring, secret, webhookStream(webhookId));

/** The secrets a delivery is signed with now: the current one, then the previous one while its grace lasts. */
export function signingSecrets(deps: Pick<AppDeps, 'keyring' | 'jwtSecret' | 'clock'>, webhook: LiveWebhook): string[] {
  const previous = webhook.previousSecret && deps.clock().getTime() < Date.parse(webhook.previousSecret.until) ? [webhook.previousSecret.secret] : [];
  return [webhook.secret, ...previous].map((secret) => secretOf(deps, webhook.webhookId, secret));
}

/** The position before the first event recorded at or after `date`: where a webhook "from date" starts. */
async function positionBefore(deps: Pick<AppDeps, 'events'>, date: string): Promise<number> {
  const moment = Date.parse(date);
  let before = 0;
  for await (const page of pagesOfAll(deps.events, { pageSize: 1000 })) {
    for (const event of page) {
      if (Date.parse(event.metadata.occurredAt) >= moment) return before;
      before = event.position;
    }
  }
  return before;
}

async function startPoint(deps: Pick<AppDeps, 'events'>, input: { after?: number | undefined; fromDate?: string | undefined }): Promise<number> {
  if (input.after !== undefined) {
    const head = await deps.events.headPosition();
    if (input.after > head)
      throw new ValidationError(`after must be at most the log's last position, ${head}`, [{ path: 'after', message: 'Past the end of the log' }]);
    return input.after;
  }
  if (input.fromDate !== undefined) return positionBefore(deps, input.fromDate);
  return deps.events.headPosition();
}

export async function registerWebhook(
  deps: AppDeps,
  input: CreateWebhookInput,
  context: CommandContext,
): Promise<{ webhook: WebhookWithProgress; secret: string }> {
  const url = checkWebhookUrl(input.url, networkRules(deps));
  await checkWebhookTarget(url, networkRules(deps));
  const webhookId = deps.newId();
  const startAfter = await startPoint(deps, input);
  const { secret, sealed } = newSecret(deps, webhookId);
  await runCommand(
    deps,
    webhookStream(webhookId),
    webhookDecider,
    { type: 'RegisterWebhook', webhookId, url: url.toString(), types: input.types, includeNotes: input.includeNotes, startAfter, secret: sealed },
    context,
  );
  return { webhook: await findWebhook(deps, webhookId), secret };
}

/** A new secret for the webhook, answered once; the one it replaces keeps signing beside it for WEBHOOK_SECRET_GRACE_MS. */
export async function rotateWebhookSecret(
  deps: AppDeps,
  webhookId: string,
  context: CommandContext,
): Promise<{ webhook: WebhookWithProgress; secret: string }> {
  await findWebhook(deps, webhookId);
  const { secret, sealed } = newSecret(deps, webhookId);
  const previousValidUntil = new Date(context.now.getTime() + WEBHOOK_SECRET_GRACE_MS).toISOString();
  await runCommand(deps, webhookStream(webhookId), webhookDecider, { type: 'RotateWebhookSecret', secret: sealed, previousValidUntil }, context);
  return { webhook: await findWebhook(deps, webhookId), secret };
}

/** A webhook as the API shows it: its view, with the sender's progress when that counts from the webhook's latest rewind. */
export type WebhookWithProgress = Omit<WebhookView, '_revision' | 'rewinds'> & { lastDeliveryAt: string | null; failingSince: string | null };

/** The webhooks, newest first, each with its delivery progress (its read model and the sender's checkpoint, joined here). */
export async function listWebhooks(deps: Pick<AppDeps, 'readStore'>, filter: { _id?: string } = {}): Promise<WebhookWithProgress[]> {
  const views = await deps.readStore.collection<WebhookView>(WEBHOOKS).find(filter, { sort: { createdAt: -1, _id: 1 } });
  const progress = new Map(
    (await deps.readStore.collection<WebhookProgress>(WEBHOOK_PROGRESS).find({ _id: { $in: views.map(({ _id }) => _id) } })).map((doc) => [doc._id, doc]),
  );
  return views.map(({ _revision: _r, rewinds, ...view }) => {
    const sent = progress.get(view._id);
    const current = sent?.rewinds === rewinds ? sent : null;
    return { ...view, cursor: current?.cursor ?? view.cursor, lastDeliveryAt: sent?.lastDeliveryAt ?? null, failingSince: current?.failingSince ?? null };
  });
}

export async function findWebhook(deps: Pick<AppDeps, 'readStore'>, webhookId: string): Promise<WebhookWithProgress> {
  const [webhook] = await listWebhooks(deps, { _id: webhookId });
  if (!webhook) throw new NotFoundError('Webhook');
  return webhook;
}

/** Sends again every event after the position, in order, before going on live. */
export async function rewindWebhook(
  deps: AppDeps,
  webhookId: string,
  input: { after?: number | undefined; fromDate?: string | undefined },
  context: CommandContext,
) {
  await findWebhook(deps, webhookId);
  const after = await startPoint(deps, input);
  await runCommand(deps, webhookStream(webhookId), webhookDecider, { type: 'RewindWebhook', after }, context);
  return findWebhook(deps, webhookId);
}

/** How a webhook reads the feed: as an admin, with internal notes only when it includes them. */
export const webhookReader = (webhookId: string, includeNotes: boolean): FeedViewer => ({ id: `webhook:${webhookId}`, role: 'admin', notes: includeNotes });

/**
 * Sends one event again, only one this webhook tried to send: an attempt of its delivery log, for an
 * event its feed carries (its types, ticket events only, notes only if included). Any other position
 * of the log (a user's creation with its password hash, a note it leaves out) is refused, 409.
 */
export async function redeliver(deps: AppDeps, webhookId: string, position: number, context: CommandContext): Promise<void> {
  const webhook = await findWebhook(deps, webhookId);
  // The delivery log first: a position it holds is an event's, which the event store can read from.
  const attempted = (await deps.readStore.collection<WebhookDeliveryView>(WEBHOOK_DELIVERY_LOG).findOne({ webhookId, position })) !== null;
  const tried = attempted && (await feedItemAt(deps, webhookReader(webhookId, webhook.includeNotes), position, webhook.types)) !== null;
  await runCommand(deps, webhookStream(webhookId), webhookDecider, { type: 'RequestRedelivery', position, tried }, context);
}

export async function enableWebhook(deps: AppDeps, webhookId: string, context: CommandContext) {
  await findWebhook(deps, webhookId);
  await runCommand(deps, webhookStream(webhookId), webhookDecider, { type: 'EnableWebhook' }, context);
  return findWebhook(deps, webhookId);
}

export async function deleteWebhook(deps: AppDeps, webhookId: string, context: CommandContext): Promise<void> {
  await findWebhook(deps, webhookId);
  await runCommand(deps, webhookStream(webhookId), webhookDecider, { type: 'DeleteWebhook' }, context);
  // The sender's own documents go with it (its loop forgets them again when it sees the deletion, after an attempt in flight).
  await forgetDeliveries(deps, webhookId);
}
