import { setTimeout as sleep } from 'node:timers/promises';
import type { AppDeps } from '../../app/deps';
import { SYSTEM_SETTINGS_STREAM } from '../../domain/settings/settings';
import { PermanentJobError } from '../../platform/queue/port';
import { TelegramApi, botIdOf, telegramErrorText, webhookSecret } from '../../platform/telegram';
import { loadSystemSettings } from '../../projections/settings';
import { TelegramConversation } from './bot';
import { enqueueUpdate } from '../../app/jobs/telegram';

/** Seconds Telegram holds a getUpdates call open (long polling). */
const POLL_TIMEOUT_SECONDS = 25;
/** Longest wait after a failed start (bad token, Telegram down) before trying again (shorter when DELIVERY_BACKOFF_CAP_MS is). */
const START_RETRY_MS = 30_000;
/** Wait after a failed poll. */
const POLL_RETRY_MS = 5000;
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
    await this.applying;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.applying;
    await this.stopPolling();
  }

  /**
   * The conversation for updates of `botId`. An update confirmed to Telegram is never dropped: while
   * its bot cannot run yet (Telegram unreachable at start, no token for now) this throws so that the
   * queue tries again later; only an update of a bot whose token was replaced fails for good, as
   * its chats can no longer be answered.
   */
  async conversationFor(botId: number): Promise<TelegramConversation> {
    await this.applying;
    if (this.conversation?.botInfo.id === botId) return this.conversation;
    const { telegramBotToken: token } = await loadSystemSettings(this.deps.readStore);
    if (token && botIdOf(token) !== botId) throw new PermanentJobError(`update for bot ${botId}, but the configured bot is now ${botIdOf(token)}`);
    throw new Error(token ? 'the bot is not running yet (Telegram unreachable at start?)' : 'no Telegram bot token is set');
  }

  /** Reads the settings again and moves to what they say (serialised: one change at a time). */
  refresh(): void {
    this.applying = this.applying
      .then(() => this.apply())
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'telegram bot could not start');
        this.scheduleRetry();
      });
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

  private async apply(): Promise<void> {
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
    this.conversation = null;
    this.mode = { kind: 'off' };
    if (wanted.kind === 'off') {
      this.deps.logger.info('telegram bot off: no token in the system settings');
      return;
    }
    const me = await this.api.getMe(wanted.token).catch((error: unknown) => {
      throw new Error(`getMe failed: ${telegramErrorText(error)}`);
    });
    const botInfo = {
      id: me.id,
      is_bot: true as const,
      first_name: me.firstName,
      username: me.username,
      can_join_groups: false,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
    this.conversation = new TelegramConversation(this.deps, this.api, wanted.token, botInfo);
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
