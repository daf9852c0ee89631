import { setTimeout as sleep } from 'node:timers/promises';
import type { AppDeps } from '../../app/deps';
import { SYSTEM_SETTINGS_STREAM } from '../../domain/settings/settings';
import { PermanentJobError } from '../../platform/queue/port';
import { type BotIdentity, TelegramApi, botIdOf, telegramErrorText, webhookSecret } from '../../platform/telegram';
import { knownBotIdentity, recordBotIdentity } from '../../app/telegram/botIdentity';
import { loadSystemSettings } from '../../projections/settings';
import { TelegramConversation } from './bot';
import { TELEGRAM_UPDATES_QUEUE, enqueueUpdate } from '../../app/jobs/telegram';

/** Seconds Telegram holds a getUpdates call open (long polling). */
const POLL_TIMEOUT_SECONDS = 25;
/** Longest wait after a failed start (bad token, Telegram down) before trying again (shorter when DELIVERY_BACKOFF_CAP_MS is). */
const START_RETRY_MS = 30_000;
/** Wait after a failed poll: short, as the poller is what first notices Telegram's return (messages written meanwhile come with it). */
const POLL_RETRY_MS = 2000;
/**
 * Shortest time between two getUpdates calls that returned nothing: a Bot API (or proxy) that
 * answers at once instead of holding the call would otherwise be hammered in a tight loop.
 */
const MIN_EMPTY_POLL_MS = 1000;

type Mode = { kind: 'off' } | { kind: 'polling' | 'standby'; token: string } | { kind: 'webhook'; token: string; url: string };

/**
 * Keeps one bot running as the system settings say: none without a token, long polling by default,
 * a webhook when `telegramWebhookUrl` is set. A change of token or webhook URL restarts it without
 * restarting the app. Updates from either source go to the update queue, keyed by update id, so an
 * update fetched twice is handled once; the conversation consumes that queue. A process that is not
 * `active` (another holds the workers' lease) keeps the conversation for queued updates but neither
 * polls nor touches the webhook.
 */
export class TelegramRunner {
  private mode: Mode = { kind: 'off' };
  private conversation: TelegramConversation | null = null;
  private poll: { controller: AbortController; done: Promise<void> } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private applying: Promise<void> = Promise.resolve();
  /** Settles once the latest change has set up the conversation it can without Telegram (from the known identity). */
  private identified: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly deps: AppDeps,
    private readonly api: TelegramApi = new TelegramApi(deps.config.TELEGRAM_API_ROOT),
    private readonly active: () => boolean = () => true,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.unsubscribe = this.deps.projections.onApplied((event) => {
      if (event.streamId === SYSTEM_SETTINGS_STREAM) this.refresh();
    });
    this.refresh();
    // Only as far as the bot can get without Telegram: getMe and polling go on in the background.
    await this.identified;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.applying;
    await this.stopPolling();
  }

  /**
   * The conversation for updates of `botId`: there as soon as the bot's identity is known (what
   * getMe said once, kept in the log), so Telegram need not be reachable to apply stored updates.
   * An update confirmed to Telegram is never dropped: while its bot cannot run yet (getMe never
   * answered for this bot, no token for now) this throws so that the queue tries again later; only
   * an update of a bot whose token was replaced fails for good, as its chats can no longer be answered.
   */
  async conversationFor(botId: number): Promise<TelegramConversation> {
    await this.identified;
    if (this.conversation?.botInfo.id === botId) return this.conversation;
    const { telegramBotToken: token } = await loadSystemSettings(this.deps.readStore);
    if (token && botIdOf(token) !== botId) throw new PermanentJobError(`update for bot ${botId}, but the configured bot is now ${botIdOf(token)}`);
    throw new Error(token ? 'the bot is not known yet: getMe has never answered for it' : 'no Telegram bot token is set');
  }

  /** Reads the settings again and moves to what they say (serialised: one change at a time). */
  refresh(): void {
    let identified = () => undefined as void;
    this.identified = new Promise<void>((resolve) => (identified = resolve));
    this.applying = this.applying
      .then(() => this.apply(identified))
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'telegram bot could not start');
        this.scheduleRetry();
      })
      .finally(identified);
  }

  /** Telegram answers again: a start waiting for its retry goes now. */
  retryNow(): void {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.mode = { kind: 'off' };
    this.refresh();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        this.mode = { kind: 'off' };
        this.refresh();
      },
      Math.min(START_RETRY_MS, this.deps.config.DELIVERY_BACKOFF_CAP_MS),
    );
  }

  private async apply(identified: () => void): Promise<void> {
    if (this.stopped) return;
    const settings = await loadSystemSettings(this.deps.readStore);
    const token = settings.telegramBotToken;
    const url = settings.telegramWebhookUrl;
    const wanted: Mode = !token
      ? { kind: 'off' }
      : !this.active()
        ? { kind: 'standby', token }
        : url
          ? { kind: 'webhook', token, url }
          : { kind: 'polling', token };
    if (JSON.stringify(wanted) === JSON.stringify(this.mode)) return;
    await this.stopPolling();
    const hadBot = this.conversation?.botInfo.id;
    this.conversation = null;
    this.mode = { kind: 'off' };
    if (wanted.kind === 'off') {
      this.deps.logger.info('telegram bot off: no token in the system settings');
      return;
    }
    const known = await knownBotIdentity(this.deps, botIdOf(wanted.token));
    if (known) this.conversation = this.conversationOf(wanted.token, known);
    identified();
    // Updates that waited for this bot (their next try may be minutes away) are handled now.
    if (known && hadBot !== known.id) await this.deps.queue.wake(TELEGRAM_UPDATES_QUEUE);
    const me = await this.api.getMe(wanted.token).catch((error: unknown) => {
      throw new Error(`getMe failed: ${telegramErrorText(error)}`);
    });
    await recordBotIdentity(this.deps, me, known);
    if (!known || known.username !== me.username || known.firstName !== me.firstName) this.conversation = this.conversationOf(wanted.token, me);
    if (!known) await this.deps.queue.wake(TELEGRAM_UPDATES_QUEUE);
    if (wanted.kind === 'standby') {
      this.deps.logger.info({ bot: me.username }, 'telegram bot standing by: another process fetches its updates');
    } else if (wanted.kind === 'webhook') {
      await this.api.setWebhook(wanted.token, wanted.url, webhookSecret(this.deps.jwtSecret, wanted.token));
      this.deps.logger.info({ bot: me.username, url: wanted.url }, 'telegram bot on webhook');
    } else {
      // Telegram refuses getUpdates while a webhook is set.
      await this.api.deleteWebhook(wanted.token);
      this.startPolling(wanted.token, me.id);
      this.deps.logger.info({ bot: me.username }, 'telegram bot polling');
    }
    this.mode = wanted;
  }

  private conversationOf(token: string, me: BotIdentity): TelegramConversation {
    const botInfo = {
      id: me.id,
      is_bot: true as const,
      first_name: me.firstName,
      username: me.username,
      can_join_groups: false,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
    return new TelegramConversation(this.deps, this.api, token, botInfo);
  }

  private startPolling(token: string, botId: number): void {
    const controller = new AbortController();
    const done = (async () => {
      let offset: number | undefined;
      while (!controller.signal.aborted) {
        try {
          const asked = Date.now();
          const updates = await this.api.getUpdates(token, offset, POLL_TIMEOUT_SECONDS, controller.signal);
          const early = MIN_EMPTY_POLL_MS - (Date.now() - asked);
          if (updates.length === 0 && early > 0) await sleep(early, undefined, { signal: controller.signal }).catch(() => undefined);
          for (const update of updates) {
            await enqueueUpdate(this.deps, botId, update);
            // Confirmed to Telegram (by the next offset) only once it is in the durable queue.
            offset = update.update_id + 1;
          }
        } catch (error) {
          if (controller.signal.aborted) break;
          this.deps.logger.warn({ err: telegramErrorText(error) }, 'telegram polling failed; retrying');
          await sleep(POLL_RETRY_MS, undefined, { signal: controller.signal }).catch(() => undefined);
        }
      }
    })();
    this.poll = { controller, done };
  }

  private async stopPolling(): Promise<void> {
    if (!this.poll) return;
    this.poll.controller.abort();
    await this.poll.done;
    this.poll = null;
  }
}
