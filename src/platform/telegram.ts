import { createHmac } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type Agent, type ClientRequest, globalAgent as httpAgent } from 'node:http';
import { globalAgent as httpsAgent } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Telegram, TelegramError } from 'telegraf';
import type { InlineKeyboardMarkup, Update } from 'telegraf/types';
import { PermanentJobError, RetryAfterError, UncertainOutcomeError } from './queue/port';

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
 * against TELEGRAM_API_ROOT, each bounded by a timeout that cancels the request, so a dead network
 * never hangs a request and a late answer can never land after the call was given up.
 *
 * A send (sendMessage, sendPhoto, sendDocument) that went out in full and got no answer (the
 * timeout, or the connection dropped) may have been delivered, and Telegram has no idempotency key
 * to ask with, nor a way for a bot to read a chat: it fails with UncertainOutcomeError and is not
 * sent again on its own (at most once). A send that never left (connection refused, DNS) or that
 * Telegram answered is certain either way, and is retried as its answer says.
 */
export class TelegramApi {
  constructor(
    private readonly apiRoot: string,
    private readonly timeoutMs = 10_000,
    /** Told after every call whether Telegram answered (a success or an error of its own) or not at all. */
    private readonly observe: (answered: boolean) => void = () => undefined,
  ) {}

  async getMe(token: string): Promise<BotIdentity> {
    const me = await this.call(token, (telegram, signal) => telegram.callApi('getMe', {}, { signal }));
    return { id: me.id, username: me.username, firstName: me.first_name };
  }

  async setMyCommands(token: string, commands: BotCommandSpec[]): Promise<void> {
    await this.call(token, (telegram, signal) => telegram.callApi('setMyCommands', { commands }, { signal }));
  }

  async sendMessage(token: string, chatId: number | string, text: string, replyMarkup?: InlineKeyboardMarkup): Promise<void> {
    await this.call(
      token,
      (telegram, signal) => telegram.callApi('sendMessage', { chat_id: chatId, text, ...(replyMarkup ? { reply_markup: replyMarkup } : {}) }, { signal }),
      {
        sends: true,
      },
    );
  }

  /** Sends a stored file as a photo (shown inline) or a document; files may take a while to upload. */
  async sendFile(token: string, chatId: number | string, file: { path: string; name: string; asPhoto: boolean }): Promise<void> {
    const input = { source: createReadStream(file.path), filename: file.name };
    await this.call(
      token,
      async (telegram, signal) => {
        if (file.asPhoto) await telegram.callApi('sendPhoto', { chat_id: chatId, photo: input }, { signal });
        else await telegram.callApi('sendDocument', { chat_id: chatId, document: input }, { signal });
      },
      { sends: true, timeoutMs: FILE_TIMEOUT_MS },
    );
  }

  async answerCallbackQuery(token: string, callbackQueryId: string): Promise<void> {
    await this.call(token, (telegram, signal) => telegram.callApi('answerCallbackQuery', { callback_query_id: callbackQueryId }, { signal }));
  }

  async setWebhook(token: string, url: string, secretToken: string): Promise<void> {
    await this.call(token, (telegram, signal) =>
      telegram.callApi('setWebhook', { url, secret_token: secretToken, allowed_updates: ALLOWED_UPDATES }, { signal }),
    );
  }

  async deleteWebhook(token: string): Promise<void> {
    await this.call(token, (telegram, signal) => telegram.callApi('deleteWebhook', { drop_pending_updates: false }, { signal }));
  }

  /** Telegram's path of a file a user sent (valid for an hour), for downloadFile. */
  async getFilePath(token: string, fileId: string): Promise<string> {
    const file = await this.call(token, (telegram, signal) => telegram.callApi('getFile', { file_id: fileId }, { signal }));
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
    try {
      const updates = (await telegram.callApi('getUpdates', payload, options)) as Update[];
      this.observe(true);
      return updates;
    } catch (error) {
      if (!signal.aborted) this.observe(error instanceof TelegramError);
      throw error;
    }
  }

  private async call<T>(
    token: string,
    work: (telegram: Telegram, signal: CallSignal) => Promise<T>,
    { sends = false, timeoutMs = this.timeoutMs }: { sends?: boolean; timeoutMs?: number } = {},
  ): Promise<T> {
    const telegram = new Telegram(token, { apiRoot: this.apiRoot });
    let handedOver = false;
    watchHandOver(telegram, this.apiRoot, () => (handedOver = true));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      // telegraf types its signal with the abort-controller polyfill; node-fetch accepts Node's own.
      const result = await work(telegram, controller.signal as unknown as CallSignal);
      this.observe(true);
      return result;
    } catch (error) {
      this.observe(error instanceof TelegramError);
      if (error instanceof TelegramError) throw error;
      const text = controller.signal.aborted ? `Telegram did not answer within ${timeoutMs / 1000} s` : telegramErrorText(error);
      if (sends && handedOver)
        throw new UncertainOutcomeError(`${text} after the message had gone out: it may have arrived, so it is not sent again on its own`);
      throw controller.signal.aborted ? new Error(text) : error;
    } finally {
      clearTimeout(timer);
    }
  }
}

type CallSignal = NonNullable<Parameters<Telegram['callApi']>[2]>['signal'];

/**
 * Calls `handedOver` once the request has been written out in full (its last byte handed to the
 * network): from then on Telegram may act on it whatever becomes of the answer. The connection pool
 * stays the shared one; only this call's request is watched.
 */
function watchHandOver(telegram: Telegram, apiRoot: string, handedOver: () => void): void {
  const options = telegram.options as { agent?: Agent };
  const pool: Agent = options.agent ?? (apiRoot.startsWith('https:') ? httpsAgent : httpAgent);
  const watching = Object.create(pool) as Agent & { addRequest(request: ClientRequest, requestOptions: unknown): void };
  watching.addRequest = (request, requestOptions) => {
    request.once('finish', handedOver);
    // addRequest is the agent's internal hand-over hook: Node's types leave it out.
    (pool as unknown as { addRequest(request: ClientRequest, requestOptions: unknown): void }).addRequest(request, requestOptions);
  };
  options.agent = watching;
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
const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

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
