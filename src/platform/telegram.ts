import { createHmac } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Telegram, TelegramError } from 'telegraf';
import type { InlineKeyboardMarkup, Update } from 'telegraf/types';
import { PermanentJobError, RetryAfterError } from './queue/port';

export interface BotIdentity {
  id: number;
  username: string;
  firstName: string;
}

export interface BotCommandSpec {
  command: string;
  description: string;
}

/**
 * The Bot API calls the API process makes itself (status, test, command sync), through telegraf
 * against TELEGRAM_API_ROOT, each bounded by a timeout so a dead network never hangs a request.
 */
export class TelegramApi {
  constructor(
    private readonly apiRoot: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async getMe(token: string): Promise<BotIdentity> {
    const me = await this.call(token, (telegram) => telegram.getMe());
    return { id: me.id, username: me.username, firstName: me.first_name };
  }

  async setMyCommands(token: string, commands: BotCommandSpec[]): Promise<void> {
    await this.call(token, (telegram) => telegram.setMyCommands(commands));
  }

  async sendMessage(token: string, chatId: number | string, text: string, replyMarkup?: InlineKeyboardMarkup): Promise<void> {
    await this.call(token, (telegram) => telegram.sendMessage(chatId, text, replyMarkup ? { reply_markup: replyMarkup } : {}));
  }

  /** Sends a stored file as a photo (shown inline) or a document; files may take a while to upload. */
  async sendFile(token: string, chatId: number | string, file: { path: string; name: string; asPhoto: boolean }): Promise<void> {
    const input = { source: createReadStream(file.path), filename: file.name };
    await this.call(
      token,
      async (telegram) => {
        if (file.asPhoto) await telegram.sendPhoto(chatId, input);
        else await telegram.sendDocument(chatId, input);
      },
      FILE_TIMEOUT_MS,
    );
  }

  async answerCallbackQuery(token: string, callbackQueryId: string): Promise<void> {
    await this.call(token, (telegram) => telegram.answerCbQuery(callbackQueryId));
  }

  async setWebhook(token: string, url: string, secretToken: string): Promise<void> {
    await this.call(token, (telegram) => telegram.setWebhook(url, { secret_token: secretToken, allowed_updates: ALLOWED_UPDATES }));
  }

  async deleteWebhook(token: string): Promise<void> {
    await this.call(token, (telegram) => telegram.deleteWebhook({ drop_pending_updates: false }));
  }

  /** Telegram's path of a file a user sent (valid for an hour), for downloadFile. */
  async getFilePath(token: string, fileId: string): Promise<string> {
    const file = await this.call(token, (telegram) => telegram.getFile(fileId));
    if (!file.file_path) throw new Error('Telegram gave no path for this file');
    return file.file_path;
  }

  /** Streams a file to `destination`, refusing more than `maxBytes`; returns its size. */
  async downloadFile(token: string, filePath: string, destination: string, maxBytes: number): Promise<number> {
    const response = await fetch(`${this.apiRoot}/file/bot${token}/${filePath}`, { signal: AbortSignal.timeout(60_000) });
    if (!response.ok || !response.body) {
      const text = `Telegram file download answered ${response.status}`;
      // A 4xx (file gone, link expired) will not change by asking again; a 5xx may.
      throw response.status >= 400 && response.status < 500 ? new PermanentJobError(text) : new Error(text);
    }
    let size = 0;
    const counted = Readable.fromWeb(response.body as never).pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(size > maxBytes ? new FileTooLargeError(maxBytes) : null, chunk);
        },
      }),
    );
    await pipeline(counted, createWriteStream(destination));
    return size;
  }

  /** Long polling: waits up to `timeoutSeconds` on Telegram's side; `signal` ends the wait at once. */
  async getUpdates(token: string, offset: number | undefined, timeoutSeconds: number, signal: AbortSignal): Promise<Update[]> {
    const telegram = new Telegram(token, { apiRoot: this.apiRoot });
    const payload = { offset, timeout: timeoutSeconds, limit: 100, allowed_updates: ALLOWED_UPDATES };
    const timeout = AbortSignal.timeout(timeoutSeconds * 1000 + this.timeoutMs);
    // telegraf types its signal with the abort-controller polyfill; node-fetch accepts Node's own.
    const options = { signal: AbortSignal.any([signal, timeout]) } as unknown as Parameters<Telegram['callApi']>[2];
    return (await telegram.callApi('getUpdates', payload, options)) as Update[];
  }

  private async call<T>(token: string, work: (telegram: Telegram) => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    const telegram = new Telegram(token, { apiRoot: this.apiRoot });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Telegram did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      return await Promise.race([work(telegram), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Uploading a file of up to 50 MB may take much longer than a text. */
const FILE_TIMEOUT_MS = 120_000;

export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`File larger than ${maxBytes} bytes`);
  }
}

/**
 * The secret Telegram sends back in `X-Telegram-Bot-Api-Secret-Token`: derived from the desk's
 * signing secret and the bot token, so every process computes it and a new token gets a new one.
 */
export const webhookSecret = (jwtSecret: string, token: string) => createHmac('sha256', jwtSecret).update(`telegram-webhook:${token}`).digest('hex');

/** The bot id is the part of the token before the colon. */
export const botIdOf = (token: string) => Number(token.split(':', 1)[0]);

/** The updates the bot handles: messages and presses of its inline buttons. */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/**
 * How a queued Bot API call that failed should be retried: when Telegram says (429 retry_after),
 * never for a chat that cannot be reached (400 chat not found, 403 blocked), with backoff otherwise.
 */
export function telegramJobError(error: unknown): Error {
  if (!(error instanceof TelegramError)) return error instanceof Error ? error : new Error(String(error));
  const text = telegramErrorText(error);
  if (error.code === 429) return new RetryAfterError(text, (error.parameters?.retry_after ?? 1) * 1000);
  if (error.code === 400 || error.code === 403) return new PermanentJobError(text);
  return new Error(text);
}

/** What a person should read when a Bot API call fails. */
export function telegramErrorText(error: unknown): string {
  if (error instanceof TelegramError) return `Telegram answered ${error.code}: ${error.description}`;
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ? `${error.message} (${cause.code})` : error.message;
  }
  return String(error);
}
