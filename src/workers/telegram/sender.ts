import type { AppDeps } from '../../app/deps';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { uploadsDir } from '../../app/tickets/files';
import { PermanentJobError, type Processor } from '../../platform/queue/port';
import { type TelegramApi, telegramJobError } from '../../platform/telegram';
import { loadSystemSettings } from '../../projections/settings';
import { deliverOnce } from '../delivery';
import type { TelegramSendJob } from '../../app/jobs/telegram';

/** Telegram shows these inline as photos (up to 10 MB); anything else goes as a document. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;

async function sendStoredFile(deps: AppDeps, api: TelegramApi, token: string, chatId: string, file: NonNullable<TelegramSendJob['file']>): Promise<void> {
  const stored = path.join(uploadsDir(deps), file.fileId);
  const size = await stat(stored).then(
    (found) => found.size,
    () => null,
  );
  if (size === null) throw new PermanentJobError(`The file ${file.fileId} is no longer stored`);
  await api.sendFile(token, chatId, { path: stored, name: file.name, asPhoto: PHOTO_TYPES.has(file.mimeType) && size <= PHOTO_MAX_BYTES });
}

/**
 * Sends one queued message with the bot token the settings hold now. Telegram's 429 waits as long
 * as it asks, a chat that cannot be reached fails at once, anything else retries with backoff;
 * a job that already went out is never sent again (deliverOnce).
 */
export function telegramSender(deps: AppDeps, api: TelegramApi): Processor<TelegramSendJob> {
  return async (job) => {
    const { telegramBotToken: token } = await loadSystemSettings(deps.readStore);
    if (!token) throw new Error('No Telegram bot token is set in the system settings');
    const { chatId, text, buttons, ticketId, kind, file } = job.data;
    const markup = buttons
      ? { inline_keyboard: buttons.map((row) => row.map((button) => ({ text: button.text, callback_data: button.callbackData }))) }
      : undefined;
    await deliverOnce(deps, job, { channel: 'telegram', recipient: chatId, ticketId: ticketId ?? null, kind }, async () => {
      try {
        if (file) await sendStoredFile(deps, api, token, chatId, file);
        else await api.sendMessage(token, chatId, text, markup);
      } catch (error) {
        throw telegramJobError(error);
      }
    });
  };
}
