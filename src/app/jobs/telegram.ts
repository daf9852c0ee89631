import type { Queue } from '../../platform/queue/port';
import type { PlannedJob } from './planned';

/** Outgoing Bot API messages, one job each (replies of the bot and notifications alike). */
export const TELEGRAM_SEND_QUEUE = 'telegram';
/** Incoming updates, from long polling or the webhook, handled in order one at a time. */
export const TELEGRAM_UPDATES_QUEUE = 'telegram-updates';

export interface InlineButton {
  text: string;
  callbackData: string;
}

export interface TelegramSendJob {
  chatId: string;
  text: string;
  /** Inline keyboard rows (the category choice of /ticket). */
  buttons?: InlineButton[][];
  ticketId?: string | null;
  /** What the message is: a reply of the bot, the template of a notification, or `file`. */
  kind: string;
  /** A staff file of a reply, sent as a photo or document (then `text` is its caption, if any). */
  file?: { fileId: string; name: string; mimeType: string };
}

export interface TelegramUpdateJob {
  botId: number;
  update: { update_id: number } & Record<string, unknown>;
}

/** One chat's messages leave in the order they were planned; transient failures retry for the whole window. */
export const sendJob = (jobId: string, data: TelegramSendJob): PlannedJob => ({
  queue: TELEGRAM_SEND_QUEUE,
  name: data.kind,
  data,
  options: { jobId, group: `chat:${data.chatId}`, backoffMs: 1000 },
});

/** The chat an update comes from (a message's chat, the presser of a button). */
export const chatOfUpdate = (update: Record<string, unknown>): string | null => {
  const message = update.message as { chat?: { id?: number } } | undefined;
  const query = update.callback_query as { from?: { id?: number } } | undefined;
  const id = message?.chat?.id ?? query?.from?.id;
  return id === undefined ? null : String(id);
};

/**
 * Takes an update in (from polling or the webhook), once per update id of that bot. One chat's
 * updates are handled in order; one that waits (the bot cannot start yet) holds back only its chat.
 */
export async function enqueueUpdate(deps: { queue: Queue }, botId: number, update: { update_id: number }): Promise<void> {
  const data: TelegramUpdateJob = { botId, update: update as TelegramUpdateJob['update'] };
  const chat = chatOfUpdate(data.update);
  await deps.queue.add(TELEGRAM_UPDATES_QUEUE, 'update', data, {
    jobId: `update:${botId}:${update.update_id}`,
    backoffMs: 1000,
    ...(chat ? { group: `chat:${chat}` } : {}),
  });
}
