import { setTimeout as sleep } from 'node:timers/promises';
import { CLOUD_EVENT_TYPE_PREFIX, type CloudEvent } from '#contract/events';
import type { AppDeps } from '../app/deps';
import { feedItemAt, readFeed } from '../app/events/feed';
import { type SendResult, postWebhook, signature } from '../app/webhooks/send';
import { networkRules, signingSecrets, webhookReader } from '../app/webhooks/service';
import { webhookDecider } from '../domain/webhook/decide';
import { type LiveWebhook, type WebhookState, webhookStream } from '../domain/webhook/webhook';
import { type CommandContext, handleCommand } from '../platform/commands';
import { WEBHOOKS, type WebhookView } from '../projections/webhooks';

/** The longest wait between two tries of one delivery. */
const MAX_RETRY_MS = 3_600_000;
/** Events sent per webhook per round, so one busy webhook does not hold the others' turn for long. */
const BATCH = 50;

interface Followed {
  state: WebhookState;
  revision: number | null;
  /** How far the log was read with nothing to send (a webhook that wants few types): not recorded, only remembered. */
  scannedUpTo: number;
}

/**
 * Delivers the ticket events to each active webhook, in log order (so in order per ticket), one at a
 * time: an event that fails is retried with backoff (doubling from WEBHOOK_RETRY_BASE_MS up to an
 * hour) until WEBHOOK_RETRY_WINDOW_MS, and the webhook's later events wait behind it. Every attempt
 * is an event of the webhook's stream, so its progress survives a restart; an event sent but not
 * yet recorded when the process stops is sent again (at least once: receivers drop ids they saw).
 * Runs in the holder of the workers' lease only.
 */
export class WebhookDispatcher {
  private readonly followed = new Map<string, Followed>();
  private loop: Promise<void> | null = null;
  private running = false;

  constructor(
    private readonly deps: AppDeps,
    private readonly idleMs = 200,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.loop = null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const webhooks = await this.deps.readStore.collection<WebhookView>(WEBHOOKS).find({});
        await Promise.all(webhooks.map((webhook) => this.serve(webhook._id)));
      } catch (error) {
        this.deps.logger.error({ err: error }, 'webhook round failed');
      }
      await sleep(this.idleMs);
    }
  }

  /** The webhook's state, reading only what its stream got since the last look. */
  private async load(webhookId: string): Promise<Followed> {
    const known = this.followed.get(webhookId) ?? { state: webhookDecider.initialState, revision: null, scannedUpTo: 0 };
    const fresh = await this.deps.events.readStream(webhookStream(webhookId), known.revision === null ? {} : { fromRevision: known.revision + 1 });
    let { state, scannedUpTo } = known;
    for (const event of fresh) {
      const before = state;
      state = webhookDecider.evolve(state, event as never);
      // A rewind starts the scan again from the webhook's new cursor.
      if (event.type === 'WebhookRewound' || (before.status === 'none' && state.status === 'active')) scannedUpTo = 0;
    }
    const followed = { state, revision: fresh.at(-1)?.revision ?? known.revision, scannedUpTo };
    this.followed.set(webhookId, followed);
    return followed;
  }

  private context(): CommandContext {
    return { actor: { userId: 'system', role: 'system', platform: 'system' }, now: this.deps.clock() };
  }

  private async serve(webhookId: string): Promise<void> {
    const followed = await this.load(webhookId);
    const webhook = followed.state;
    if (webhook.status !== 'active') return;
    const now = this.deps.clock();

    for (const position of webhook.redeliveries) {
      // Checked again at send time: a request recorded before redeliveries were checked may name any event of the log.
      const item = await feedItemAt(this.deps, webhookReader(webhookId, webhook.includeNotes), position, webhook.types);
      if (!item) {
        const reason = 'Not an event this webhook carries';
        await handleCommand(this.deps.events, webhookStream(webhookId), webhookDecider, { type: 'RefuseRedelivery', position, reason }, this.context());
        this.deps.logger.warn({ webhookId, position }, 'webhook redelivery refused: not an event this webhook carries');
        continue;
      }
      const sent = await this.send(webhook, item);
      await this.record(webhook, item, sent, 1, true, null);
    }

    if (webhook.failingSince && now.getTime() - Date.parse(webhook.failingSince) >= this.deps.config.WEBHOOK_DISABLE_AFTER_MS) {
      const reason = `Every delivery failed since ${webhook.failingSince}`;
      await handleCommand(this.deps.events, webhookStream(webhookId), webhookDecider, { type: 'DisableWebhook', reason }, this.context());
      this.deps.logger.error({ webhookId, url: webhook.url, failingSince: webhook.failingSince }, 'webhook disabled: its deliveries kept failing');
      return;
    }
    if (webhook.retrying && now.getTime() < Date.parse(webhook.retrying.nextTryAt)) return;

    const after = Math.max(webhook.cursor, followed.scannedUpTo);
    const page = await readFeed(this.deps, webhookReader(webhookId, webhook.includeNotes), {
      after,
      limit: BATCH,
      waitMs: 0,
      ...(webhook.types.length > 0 ? { types: webhook.types } : {}),
    });
    for (const item of page.events) {
      const position = Number(item.id);
      const retrying = webhook.retrying?.position === position ? webhook.retrying : null;
      const sent = await this.send(webhook, item);
      const attempt = (retrying?.attempts ?? 0) + 1;
      const at = this.deps.clock();
      const since = retrying ? Date.parse(retrying.since) : at.getTime();
      const wait = Math.min(this.deps.config.WEBHOOK_RETRY_BASE_MS * 2 ** (attempt - 1), MAX_RETRY_MS);
      const nextTryAt = at.getTime() - since + wait > this.deps.config.WEBHOOK_RETRY_WINDOW_MS ? null : new Date(at.getTime() + wait).toISOString();
      await this.record(webhook, item, sent, attempt, false, nextTryAt);
      if (!sent.ok && nextTryAt !== null) return;
    }
    if (page.events.length === 0) followed.scannedUpTo = page.next;
  }

  private async send(webhook: LiveWebhook, item: CloudEvent): Promise<SendResult> {
    const body = JSON.stringify(item);
    const timestamp = Math.floor(this.deps.clock().getTime() / 1000);
    let secrets: string[];
    try {
      secrets = signingSecrets(this.deps, webhook);
    } catch (error) {
      // A key missing from the keyring (or a seal that does not open): nothing is sent unsigned; the attempt fails with the reason, and is retried.
      this.deps.logger.error({ err: error, webhookId: webhook.webhookId }, 'webhook secret cannot be read');
      return { ok: false, statusCode: null, error: `The signing secret cannot be read: ${(error as Error).message}`, durationMs: 0 };
    }
    const headers = { 'x-desk-signature': signature(secrets, timestamp, body), 'x-desk-webhook-id': webhook.webhookId };
    return postWebhook(new URL(webhook.url), body, headers, networkRules(this.deps));
  }

  private async record(webhook: LiveWebhook, item: CloudEvent, sent: SendResult, attempt: number, manual: boolean, nextTryAt: string | null): Promise<void> {
    const delivery = {
      webhookId: webhook.webhookId,
      position: Number(item.id),
      eventType: item.type.slice(CLOUD_EVENT_TYPE_PREFIX.length),
      subject: item.subject,
      statusCode: sent.statusCode,
      error: sent.error,
      durationMs: sent.durationMs,
      attempt,
      at: this.deps.clock().toISOString(),
      manual,
    };
    await handleCommand(
      this.deps.events,
      webhookStream(webhook.webhookId),
      webhookDecider,
      { type: 'RecordDelivery', attempt: delivery, ok: sent.ok, nextTryAt: sent.ok ? null : nextTryAt },
      this.context(),
    );
  }
}
