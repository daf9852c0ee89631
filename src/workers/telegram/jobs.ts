import type { Queue } from '../../platform/queue/port';
import type { PlannedJob } from '../reactor';

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
  /** What the message is: a reply of the bot or the template of a notification. */
  kind: string;
}

export interface TelegramUpdateJob {
  botId: number;
  update: { update_id: number } & Record<string, unknown>;
}

export const sendJob = (jobId: string, data: TelegramSendJob): PlannedJob => ({
  queue: TELEGRAM_SEND_QUEUE,
  name: data.kind,
  data,
  options: { jobId, attempts: 8, backoffMs: 1000 },
});


/** Takes an update in (from polling or the webhook), once per update id of that bot. */
export async function enqueueUpdate(deps: { queue: Queue }, botId: number, update: { update_id: number }): Promise<void> {
  const data: TelegramUpdateJob = { botId, update: update as TelegramUpdateJob['update'] };
  await deps.queue.add(TELEGRAM_UPDATES_QUEUE, 'update', data, { jobId: `update:${botId}:${update.update_id}`, attempts: 5, backoffMs: 2000 });
}
