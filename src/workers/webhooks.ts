import { setTimeout as sleep } from 'node:timers/promises';
import { CLOUD_EVENT_TYPE_PREFIX, type CloudEvent } from '#contract/events';
import type { AppDeps } from '../app/deps';
import { feedItemAt, readFeed } from '../app/events/feed';
import {
  DELIVERY_LOG_KEPT,
  WEBHOOK_DELIVERY_LOG,
  WEBHOOK_PROGRESS,
  type WebhookDeliveryView,
  type WebhookProgress,
  afterAttempt,
  cursorCheckpoint,
  deliveryStatus,
  forgetDeliveries,
  progressOf,
  redeliveredCheckpoint,
} from '../app/webhooks/progress';
import { type SendResult, postWebhook, signature } from '../app/webhooks/send';
import { networkRules, signingSecrets, webhookReader } from '../app/webhooks/service';
import { webhookDecider } from '../domain/webhook/decide';
import { type LiveWebhook, type WebhookState, webhookStream } from '../domain/webhook/webhook';
import { type CommandContext, handleCommand } from '../platform/commands';
import { WEBHOOKS, type WebhookView } from '../projections/webhooks';

/** The longest wait between two tries of one delivery. */
const MAX_RETRY_MS = 3_600_000;
/** Events sent per webhook per turn of its loop. */
const BATCH = 50;

/**
 * Delivers the ticket events to each active webhook, in log order (so in order per ticket), one at a
 * time per webhook, each webhook in a loop of its own: a receiver that answers slowly or not at all
 * holds up only its own webhook. Runs in the holder of the workers' lease only.
 */
export class WebhookDispatcher {
  private readonly loops = new Map<string, WebhookLoop>();
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
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
    this.loops.clear();
  }

  /** Follows the list of webhooks: a loop for each new one, the loop of one deleted stopped. */
  private async run(): Promise<void> {
    const log = this.deps.readStore.collection(WEBHOOK_DELIVERY_LOG);
    // The deliveries API lists a webhook's newest attempts; a redelivery looks its position up.
    await Promise.all([log.createIndex({ keys: { webhookId: 1, at: -1 } }), log.createIndex({ keys: { webhookId: 1, position: 1 } })]).catch((error: unknown) =>
      this.deps.logger.error({ err: error }, 'webhook delivery log indexes could not be made'),
    );
    while (this.running) {
      try {
        const listed = new Set((await this.deps.readStore.collection<WebhookView>(WEBHOOKS).find({}, { projection: { _id: 1 } })).map(({ _id }) => _id));
        // A loop ends itself once its stream says the webhook is deleted: a webhook missing from the list (its read model being rebuilt) keeps its loop.
        for (const webhookId of listed) {
          if (this.loops.has(webhookId)) continue;
          const loop = new WebhookLoop(this.deps, webhookId, this.idleMs);
          this.loops.set(webhookId, loop);
          void loop.start().finally(() => {
            if (this.loops.get(webhookId) === loop) this.loops.delete(webhookId);
          });
        }
      } catch (error) {
        this.deps.logger.error({ err: error }, 'webhook list could not be read');
      }
      await sleep(this.idleMs);
    }
  }
}

/**
 * One webhook's sender. An event that fails is retried with backoff (doubling from
 * WEBHOOK_RETRY_BASE_MS up to an hour) until WEBHOOK_RETRY_WINDOW_MS, and the webhook's later events
 * wait behind it. Its progress is a checkpoint (src/app/webhooks/progress.ts) written after each
 * attempt, so it survives a restart; an event sent but not yet recorded when the process stops is
 * sent again (at least once: receivers drop ids they saw). Its stream holds only what people decided
 * (short), and is read on from the last revision seen.
 */
class WebhookLoop {
  private state: WebhookState = webhookDecider.initialState;
  private revision: number | null = null;
  /** How far the log was read with nothing to send (a webhook that wants few types), for the rewinds counted: not recorded, only remembered. */
  private scanned = { rewinds: 0, upTo: 0 };
  private loop: Promise<void> | null = null;
  private readonly stopping = new AbortController();
  private current: WebhookProgress | null = null;

  constructor(
    private readonly deps: AppDeps,
    private readonly webhookId: string,
    private readonly idleMs: number,
  ) {}

  /** Resolves when the loop ends: stopped, or the webhook deleted (its delivery log and progress forgotten). */
  start(): Promise<void> {
    this.loop = this.run();
    return this.loop;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        if ((await this.serve()) === 'deleted') {
          await forgetDeliveries(this.deps, this.webhookId);
          return;
        }
      } catch (error) {
        this.deps.logger.error({ err: error, webhookId: this.webhookId }, 'webhook turn failed');
      }
      await sleep(this.idleMs, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /** The webhook's state, reading only what its stream got since the last look. */
  private async load(): Promise<WebhookState> {
    const fresh = await this.deps.events.readStream(webhookStream(this.webhookId), this.revision === null ? {} : { fromRevision: this.revision + 1 });
    for (const event of fresh) this.state = webhookDecider.evolve(this.state, event as never);
    this.revision = fresh.at(-1)?.revision ?? this.revision;
    return this.state;
  }

  /** The progress as this loop last saved it, while the webhook's rewinds and enables are the same; read from the stores otherwise (at the loop's start). */
  private async progress(webhook: LiveWebhook): Promise<WebhookProgress> {
    const known = this.current;
    if (known && known.rewinds === webhook.rewinds && known.enables === webhook.enables) return known;
    const stored = await this.deps.readStore.collection<WebhookProgress>(WEBHOOK_PROGRESS).findOne({ _id: this.webhookId });
    const cursor = await this.deps.queue.checkpoint(cursorCheckpoint(this.webhookId, webhook.rewinds));
    const redelivered = await this.deps.queue.checkpoint(redeliveredCheckpoint(this.webhookId));
    this.current = progressOf(webhook, stored, { cursor, redelivered });
    return this.current;
  }

  /** Stores the progress: the document, then the cursor and the redeliveries handled in the queue's store. */
  private async save(progress: WebhookProgress): Promise<void> {
    await this.deps.readStore.collection<WebhookProgress>(WEBHOOK_PROGRESS).replaceOne({ _id: this.webhookId }, progress, { upsert: true });
    await this.deps.queue.saveCheckpoint(cursorCheckpoint(this.webhookId, progress.rewinds), progress.cursor);
    await this.deps.queue.saveCheckpoint(redeliveredCheckpoint(this.webhookId), progress.redelivered);
    this.current = progress;
  }

  private context(): CommandContext {
    return { actor: { userId: 'system', role: 'system', platform: 'system' }, now: this.deps.clock() };
  }

  private async serve(): Promise<'deleted' | void> {
    const webhook = await this.load();
    if (webhook.status === 'deleted') return 'deleted';
    if (webhook.status !== 'active') return;
    let progress = await this.progress(webhook);
    const webhookId = this.webhookId;

    for (const { position, seq } of webhook.redeliveries.filter((request) => request.seq > progress.redelivered)) {
      // Checked again at send time: a request recorded before redeliveries were checked may name any event of the log.
      const item = await feedItemAt(this.deps, webhookReader(webhookId, webhook.includeNotes), position, webhook.types);
      if (!item) {
        const reason = 'Not an event this webhook carries';
        await handleCommand(this.deps.events, webhookStream(webhookId), webhookDecider, { type: 'RefuseRedelivery', position, reason }, this.context());
        this.deps.logger.warn({ webhookId, position }, 'webhook redelivery refused: not an event this webhook carries');
      } else progress = await this.record(webhook, progress, item, await this.send(webhook, item), 1, true, null);
      progress = { ...progress, redelivered: seq };
      await this.save(progress);
    }

    const now = this.deps.clock();
    if (progress.failingSince && now.getTime() - Date.parse(progress.failingSince) >= this.deps.config.WEBHOOK_DISABLE_AFTER_MS) {
      const reason = `Every delivery failed since ${progress.failingSince}`;
      await handleCommand(this.deps.events, webhookStream(webhookId), webhookDecider, { type: 'DisableWebhook', reason }, this.context());
      this.deps.logger.error({ webhookId, url: webhook.url, failingSince: progress.failingSince }, 'webhook disabled: its deliveries kept failing');
      return;
    }
    if (progress.retrying && now.getTime() < Date.parse(progress.retrying.nextTryAt)) return;

    if (this.scanned.rewinds !== progress.rewinds) this.scanned = { rewinds: progress.rewinds, upTo: 0 };
    const page = await readFeed(this.deps, webhookReader(webhookId, webhook.includeNotes), {
      after: Math.max(progress.cursor, this.scanned.upTo),
      limit: BATCH,
      waitMs: 0,
      ...(webhook.types.length > 0 ? { types: webhook.types } : {}),
    });
    for (const item of page.events) {
      const position = Number(item.id);
      const retrying = progress.retrying?.position === position ? progress.retrying : null;
      const sent = await this.send(webhook, item);
      const attempt = (retrying?.attempts ?? 0) + 1;
      const at = this.deps.clock();
      const since = retrying ? Date.parse(retrying.since) : at.getTime();
      const wait = Math.min(this.deps.config.WEBHOOK_RETRY_BASE_MS * 2 ** (attempt - 1), MAX_RETRY_MS);
      const nextTryAt = at.getTime() - since + wait > this.deps.config.WEBHOOK_RETRY_WINDOW_MS ? null : new Date(at.getTime() + wait).toISOString();
      progress = await this.record(webhook, progress, item, sent, attempt, false, nextTryAt);
      await this.save(progress);
      if (!sent.ok && nextTryAt !== null) return;
    }
    if (page.events.length === 0) this.scanned.upTo = page.next;
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

  /** Adds the attempt to the delivery log (pruned to the last DELIVERY_LOG_KEPT) and answers the progress after it (saved by the caller). */
  private async record(
    webhook: LiveWebhook,
    progress: WebhookProgress,
    item: CloudEvent,
    sent: SendResult,
    attempt: number,
    manual: boolean,
    nextTryAt: string | null,
  ): Promise<WebhookProgress> {
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
    const next = sent.ok ? null : nextTryAt;
    const log = this.deps.readStore.collection<WebhookDeliveryView>(WEBHOOK_DELIVERY_LOG);
    await log.insertOne({ _id: this.deps.newId(), ...delivery, status: deliveryStatus(manual, sent.ok, next), nextTryAt: next });
    const after = afterAttempt(progress, delivery, sent.ok, next);
    if (after.logged <= DELIVERY_LOG_KEPT + 100) return after;
    // A prune now and then, not at every attempt: the oldest past the kept number go.
    const oldest = await log.find(
      { webhookId: webhook.webhookId },
      { sort: { at: 1, _id: 1 }, limit: after.logged - DELIVERY_LOG_KEPT, projection: { _id: 1 } },
    );
    await log.deleteMany({ _id: { $in: oldest.map(({ _id }) => _id) } });
    return { ...after, logged: DELIVERY_LOG_KEPT };
  }
}
