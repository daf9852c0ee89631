import { TelegramApi } from '../../platform/telegram';
import type { WorkerChannel } from '../channels';
import { TELEGRAM_SEND_QUEUE, TELEGRAM_UPDATES_QUEUE, type TelegramUpdateJob } from './jobs';
import { telegramNotices } from './notifications';
import { TelegramRunner } from './runner';
import { telegramSender } from './sender';

/** The Telegram bot: updates in (polling or webhook, via the update queue), messages out (send queue). */
export const telegramChannel: WorkerChannel = {
  name: 'telegram',
  reaction: telegramNotices,
  async start(deps, lease) {
    const api = new TelegramApi(deps.config.TELEGRAM_API_ROOT);
    // Every process answers queued updates; only the lease holder fetches them (or sets the webhook).
    const runner = new TelegramRunner(deps, api, () => lease.held);
    const stopFollowing = lease.onChange(() => runner.refresh());
    // One at a time, in order: each chat reads its messages in the order they were written.
    deps.queue.process(TELEGRAM_SEND_QUEUE, telegramSender(deps, api));
    deps.queue.process<TelegramUpdateJob>(TELEGRAM_UPDATES_QUEUE, async (job) => {
      await (await runner.conversationFor(job.data.botId)).handle(job.data.update as never);
    });
    await runner.start();
    return async () => {
      stopFollowing();
      await runner.stop();
    };
  },
};
