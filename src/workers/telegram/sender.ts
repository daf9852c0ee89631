import type { AppDeps } from '../../api/deps';
import type { Processor } from '../../platform/queue/port';
import { type TelegramApi, telegramJobError } from '../../platform/telegram';
import { loadSystemSettings } from '../../projections/settings';
import { deliverOnce } from '../delivery';
import type { TelegramSendJob } from './jobs';

/**
 * Sends one queued message with the bot token the settings hold now. Telegram's 429 waits as long
 * as it asks, a chat that cannot be reached fails at once, anything else retries with backoff;
 * a job that already went out is never sent again (deliverOnce).
 */
export function telegramSender(deps: AppDeps, api: TelegramApi): Processor<TelegramSendJob> {
  return async (job) => {
    const { telegramBotToken: token } = await loadSystemSettings(deps.readStore);
    if (!token) throw new Error('No Telegram bot token is set in the system settings');
    const { chatId, text, buttons, ticketId, kind } = job.data;
    const markup = buttons ? { inline_keyboard: buttons.map((row) => row.map((button) => ({ text: button.text, callback_data: button.callbackData }))) } : undefined;
    await deliverOnce(deps, job, { channel: 'telegram', recipient: chatId, ticketId: ticketId ?? null, kind }, async () => {
      try {
        await api.sendMessage(token, chatId, text, markup);
      } catch (error) {
        throw telegramJobError(error);
      }
    });
  };
}
