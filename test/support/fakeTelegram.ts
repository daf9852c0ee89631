import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface BotApiCall {
  token: string;
  method: string;
  payload: Record<string, unknown>;
}

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

/** A message the fake answered with success: what the user would see in their chat. */
interface DeliveredMessage {
  chatId: string;
  /** The text, or a file's caption ('' without one). */
  text: string;
  /** A photo or document sent with sendPhoto / sendDocument. */
  file?: { method: 'sendPhoto' | 'sendDocument' } & UploadedFile;
  replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
}

interface InjectedFailure {
  status: number;
  description: string;
  retryAfter?: number;
}

export interface FakeTelegram {
  /** The TELEGRAM_API_ROOT to give the server under test. */
  apiRoot: string;
  calls: BotApiCall[];
  /** Messages answered with success, in the order they were answered. */
  delivered: DeliveredMessage[];
  /** Registers a bot token the fake accepts, with the bot it answers for getMe. */
  addBot(token: string, bot: { id: number; username: string; firstName: string }): void;
  /** Queues a text message from `from` for the bot's getUpdates (or returns it, for a webhook test). */
  sendText(token: string, from: TelegramUser, text: string): Record<string, unknown> & { update_id: number };
  /** Queues a press of an inline button carrying `data`. */
  pressButton(token: string, from: TelegramUser, data: string): Record<string, unknown> & { update_id: number };
  /** Queues any other message (a photo, a sticker) from `from`. */
  sendOther(token: string, from: TelegramUser, fields: Record<string, unknown>): Record<string, unknown> & { update_id: number };
  /** Makes a file downloadable (getFile + /file/bot<token>/<path>), as if a user had uploaded it. */
  addFile(token: string, fileId: string, content: Buffer): void;
  /** The next `times` calls of `method` fail as given. */
  failNext(method: string, times: number, failure: InjectedFailure): void;
  /**
   * Calls of `method` are carried out at once (a message counts as delivered when it arrives) but
   * answered only `ms` later, if the caller is still there: a slow Telegram. 0 answers at once again.
   */
  answerLate(method: string, ms: number): void;
  /** Calls of `method` are received but not answered until release() (a Telegram that hangs). */
  hold(method: string): void;
  release(method: string): void;
  /** Calls of `method` now waiting unanswered. */
  held(method: string): number;
  webhookOf(token: string): { url: string; secretToken: string } | null;
  /** What the chat shows, in order: texts, and files as `[sendPhoto: name]` / `[sendDocument: name]`. */
  messagesTo(chatId: number | string): string[];
  /** getUpdates answers at once even with nothing to give (a proxy that ignores long polling). */
  answerPollsAtOnce(on: boolean): void;
  /** A Telegram outage: the server closes (connections are refused) until goUp(); calls in flight are cut. */
  goDown(): Promise<void>;
  /** Listens again on the same address after goDown(). */
  goUp(): Promise<void>;
  close(): Promise<void>;
}

/** A file telegraf uploaded (sendDocument, sendPhoto) as multipart/form-data. */
interface UploadedFile {
  fileName: string;
  content: Buffer;
}

/** The call's parameters: JSON, or multipart form fields with uploaded files as UploadedFile. */
async function readPayload(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': type } }).formData();
    const payload: Record<string, unknown> = {};
    for (const [name, value] of form.entries()) {
      payload[name] = typeof value === 'string' ? value : ({ fileName: value.name, content: Buffer.from(await value.arrayBuffer()) } satisfies UploadedFile);
    }
    return payload;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

interface BotState {
  info: { id: number; username: string; firstName: string };
  updates: Array<Record<string, unknown> & { update_id: number }>;
  waiters: Array<() => void>;
  webhook: { url: string; secretToken: string } | null;
}

/**
 * A local stand-in for the Telegram Bot API (the one fake the project allows): it speaks the real
 * wire format (`POST /bot<token>/<method>`, `{ ok, result }` or `{ ok: false, error_code,
 * description, parameters }`), so telegraf talks to it through TELEGRAM_API_ROOT exactly as to
 * Telegram. getUpdates long-polls; a message counts as delivered when the fake answers it.
 */
export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, BotState>();
  const files = new Map<string, { path: string; content: Buffer }>();
  const calls: BotApiCall[] = [];
  const delivered: DeliveredMessage[] = [];
  const failures = new Map<string, InjectedFailure[]>();
  const holding = new Set<string>();
  const lateness = new Map<string, number>();
  /** Answers to write only after a while (answerLate), by response. */
  const lateAnswers = new WeakMap<ServerResponse, number>();
  const parked = new Map<string, Array<() => void>>();
  let nextUpdateId = 1000;
  let pollsAtOnce = false;
  let nextMessageId = 1;

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed || res.writableEnded) return false;
    const write = () => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const lateMs = lateAnswers.get(res) ?? 0;
    if (lateMs > 0) setTimeout(write, lateMs).unref();
    else write();
    return true;
  };
  const fail = (res: ServerResponse, failure: InjectedFailure) =>
    reply(res, failure.status, {
      ok: false,
      error_code: failure.status,
      description: failure.description,
      ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}),
    });

  const push = (token: string, update: Record<string, unknown>) => {
    const bot = bots.get(token);
    if (!bot) throw new Error(`unknown bot token ${token}`);
    const full = { update_id: nextUpdateId++, ...update };
    bot.updates.push(full);
    for (const wake of bot.waiters.splice(0)) wake();
    return full;
  };
  const chatOf = (from: TelegramUser) => ({ id: from.id, type: 'private', first_name: from.first_name, ...(from.username ? { username: from.username } : {}) });
  const messageFrom = (from: TelegramUser, fields: Record<string, unknown>) => ({
    message_id: nextMessageId++,
    from: { is_bot: false, ...from },
    chat: chatOf(from),
    date: Math.floor(Date.now() / 1000),
    ...fields,
  });

  async function answer(res: ServerResponse, token: string, method: string, payload: Record<string, unknown>, req: IncomingMessage) {
    const bot = bots.get(token);
    if (!bot) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    switch (method) {
      case 'getMe':
        return reply(res, 200, { ok: true, result: { id: bot.info.id, is_bot: true, first_name: bot.info.firstName, username: bot.info.username } });
      case 'setMyCommands': {
        const commands = payload.commands;
        const valid =
          Array.isArray(commands) && commands.every((c: { command?: unknown }) => typeof c.command === 'string' && /^[a-z0-9_]{1,32}$/.test(c.command));
        if (!valid) return reply(res, 400, { ok: false, error_code: 400, description: 'Bad Request: BOT_COMMAND_INVALID' });
        return reply(res, 200, { ok: true, result: true });
      }
      case 'setWebhook':
        bot.webhook = { url: String(payload.url ?? ''), secretToken: String(payload.secret_token ?? '') };
        return reply(res, 200, { ok: true, result: true });
      case 'deleteWebhook':
        bot.webhook = null;
        return reply(res, 200, { ok: true, result: true });
      case 'getUpdates': {
        if (bot.webhook) return reply(res, 409, { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active" });
        const offset = typeof payload.offset === 'number' ? payload.offset : 0;
        bot.updates = bot.updates.filter((update) => update.update_id >= offset);
        if (bot.updates.length === 0 && !pollsAtOnce) {
          const timeoutMs = Math.min(Number(payload.timeout ?? 0), 2) * 1000;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            timer.unref();
            bot.waiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
            req.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        return reply(res, 200, { ok: true, result: bot.updates.slice(0, Number(payload.limit ?? 100)) });
      }
      case 'sendMessage': {
        const message: DeliveredMessage = { chatId: String(payload.chat_id), text: String(payload.text ?? '') };
        if (payload.reply_markup) message.replyMarkup = payload.reply_markup as DeliveredMessage['replyMarkup'];
        if (!message.text) return reply(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
        const sent = reply(res, 200, {
          ok: true,
          result: { message_id: nextMessageId++, chat: { id: Number(payload.chat_id), type: 'private' }, date: 0, text: message.text },
        });
        if (sent) delivered.push(message);
        return sent;
      }
      case 'sendPhoto':
      case 'sendDocument': {
        const upload = payload[method === 'sendPhoto' ? 'photo' : 'document'] as UploadedFile | undefined;
        if (!upload?.content)
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: `Bad Request: there is no ${method === 'sendPhoto' ? 'photo' : 'document'} in the request`,
          });
        const sent = reply(res, 200, { ok: true, result: { message_id: nextMessageId++, chat: { id: Number(payload.chat_id), type: 'private' }, date: 0 } });
        if (sent) delivered.push({ chatId: String(payload.chat_id), text: String(payload.caption ?? ''), file: { method, ...upload } });
        return sent;
      }
      case 'answerCallbackQuery':
        return reply(res, 200, { ok: true, result: true });
      case 'getFile': {
        const file = files.get(`${token}/${String(payload.file_id)}`);
        if (!file) return reply(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        return reply(res, 200, {
          ok: true,
          result: { file_id: payload.file_id, file_unique_id: payload.file_id, file_size: file.content.length, file_path: file.path },
        });
      }
      default:
        return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '');
      if (download) {
        const file = [...files.entries()].find(([key, value]) => key.startsWith(`${download[1]}/`) && value.path === download[2])?.[1];
        if (!file) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(file.content);
      }
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token = '', method = ''] = match;
      const payload = await readPayload(req);
      calls.push({ token, method, payload });
      const failure = failures.get(method)?.shift();
      if (failure) return fail(res, failure);
      const lateMs = lateness.get(method) ?? 0;
      if (lateMs > 0) lateAnswers.set(res, lateMs);
      if (holding.has(method)) {
        await new Promise<void>((resolve) => {
          const list = parked.get(method) ?? [];
          list.push(resolve);
          parked.set(method, list);
          // A caller that gives up (or dies) leaves: its call is dropped, nothing delivered.
          res.once('close', () => {
            const waiting = parked.get(method) ?? [];
            parked.set(
              method,
              waiting.filter((r) => r !== resolve),
            );
            resolve();
          });
        });
      }
      return answer(res, token, method, payload, req);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    delivered,
    addBot: (token, info) => bots.set(token, { info, updates: [], waiters: [], webhook: null }),
    sendText: (token, from, text) =>
      push(token, {
        message: messageFrom(from, {
          text,
          ...(text.startsWith('/') ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] } : {}),
        }),
      }),
    pressButton: (token, from, data) =>
      push(token, {
        callback_query: {
          id: String(nextMessageId++),
          from: { is_bot: false, ...from },
          chat_instance: '1',
          data,
          message: messageFrom({ id: 1, first_name: 'bot' }, { chat: chatOf(from), text: 'buttons' }),
        },
      }),
    sendOther: (token, from, fields) => push(token, { message: messageFrom(from, fields) }),
    addFile: (token, fileId, content) => files.set(`${token}/${fileId}`, { path: `documents/${fileId}`, content }),
    failNext: (method, times, failure) => failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: times }, () => failure)]),
    answerLate: (method, ms) => {
      lateness.set(method, ms);
    },
    hold: (method) => holding.add(method),
    release: (method) => {
      holding.delete(method);
      for (const resume of parked.get(method)?.splice(0) ?? []) resume();
    },
    held: (method) => parked.get(method)?.length ?? 0,
    webhookOf: (token) => bots.get(token)?.webhook ?? null,
    messagesTo: (chatId) =>
      delivered
        .filter((message) => message.chatId === String(chatId))
        .map((message) => (message.file ? `[${message.file.method}: ${message.file.fileName}]` : message.text)),
    answerPollsAtOnce: (on) => {
      pollsAtOnce = on;
    },
    goDown: () => stop(),
    goUp: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      }),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
