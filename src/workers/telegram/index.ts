import { PermanentJobError } from '../../platform/queue/port';
import { TelegramApi, telegramJobError } from '../../platform/telegram';
import type { WorkerChannel } from '../channels';
import { ChannelWatch } from '../channelWatch';
import { loadSystemSettings } from '../../projections/settings';
import { TEXTS, type TelegramConversation } from './bot';
import { TELEGRAM_SEND_QUEUE, TELEGRAM_UPDATES_QUEUE, type TelegramUpdateJob, chatOfUpdate, sendJob } from '../../app/jobs/telegram';
import { NOTICE_READS, NOTICE_TYPES } from '../ticketNotices';
import { telegramNotices } from './notifications';
import { TelegramRunner } from './runner';
import { telegramSender } from './sender';

/** The Telegram bot: updates in (polling or webhook, via the update queue), messages out (send queue). */
export const telegramChannel: WorkerChannel = {
  name: 'telegram',
  reaction: telegramNotices,
  types: [...NOTICE_TYPES, 'AccessRequestApproved'],
  reads: NOTICE_READS,
  async start(deps, lease) {
    // Every call reports whether Telegram answered; its return after an outage runs what waits on it at once.
    const watch: ChannelWatch = new ChannelWatch(
      'telegram',
      deps,
      [TELEGRAM_SEND_QUEUE, TELEGRAM_UPDATES_QUEUE],
      async () => {
        const { telegramBotToken: token } = await loadSystemSettings(deps.readStore);
        if (!token) throw new Error('no Telegram bot token is set');
        await api.getMe(token);
      },
      () => runner.retryNow(),
    );
    const api = new TelegramApi(deps.config.TELEGRAM_API_ROOT, undefined, (answered) => watch.observe(answered));
    // Every process answers queued updates; only the lease holder fetches them (or sets the webhook).
    const runner = new TelegramRunner(deps, api, () => lease.held);
    const stopFollowing = lease.onChange(() => runner.refresh());
    // One at a time, in order: each chat reads its messages in the order they were written.
    deps.queue.process(TELEGRAM_SEND_QUEUE, telegramSender(deps, api));
    deps.queue.process<TelegramUpdateJob>(TELEGRAM_UPDATES_QUEUE, async (job) => {
      // An update given up for good is never silent for its sender: they get the `failed` text.
      const tellFailed = async () => {
        const chatId = chatOfUpdate(job.data.update);
        if (!chatId) return;
        const notice = sendJob(`reply:${job.data.botId}:${job.data.update.update_id}:failed`, { chatId, text: TEXTS.failed, kind: 'reply' });
        await deps.queue.add(notice.queue, notice.name, notice.data, notice.options);
      };
      let conversation: TelegramConversation;
      try {
        conversation = await runner.conversationFor(job.data.botId);
      } catch (error) {
        // An update of a replaced bot cannot be answered by the new one; anything else waits for the bot.
        if (job.lastTry && !(error instanceof PermanentJobError)) await tellFailed();
        throw error;
      }
      try {
        await conversation.handle(job.data.update as never, job.lastTry);
      } catch (error) {
        const judged = telegramJobError(error);
        if (judged instanceof PermanentJobError || job.lastTry) await tellFailed();
        throw judged;
      }
    });
    await runner.start();
    return async () => {
      stopFollowing();
      watch.stop();
      await runner.stop();
    };
  },
};
