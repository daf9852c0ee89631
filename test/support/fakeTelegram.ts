import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotApiCall {
  token: string;
  method: string;
  payload: Record<string, unknown>;
}

export interface FakeTelegram {
  /** The TELEGRAM_API_ROOT to give the server under test. */
  apiRoot: string;
  calls: BotApiCall[];
  /** Registers a bot token the fake accepts, with the bot it answers for getMe. */
  addBot(token: string, bot: { id: number; username: string; firstName: string }): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * A local stand-in for the Telegram Bot API (the one fake the project allows): it speaks the real
 * wire format (`POST /bot<token>/<method>`, `{ ok, result }` or `{ ok: false, error_code,
 * description }`), so telegraf talks to it through TELEGRAM_API_ROOT exactly as to Telegram.
 */
export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, { id: number; username: string; firstName: string }>();
  const calls: BotApiCall[] = [];
  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token = '', method = ''] = match;
      const payload = await readJson(req);
      calls.push({ token, method, payload });
      const bot = bots.get(token);
      if (!bot) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      switch (method) {
        case 'getMe':
          return reply(res, 200, { ok: true, result: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username } });
        case 'setMyCommands': {
          const commands = payload.commands;
          const valid = Array.isArray(commands) && commands.every((c: { command?: unknown }) => typeof c.command === 'string' && /^[a-z0-9_]{1,32}$/.test(c.command));
          if (!valid) return reply(res, 400, { ok: false, error_code: 400, description: 'Bad Request: BOT_COMMAND_INVALID' });
          return reply(res, 200, { ok: true, result: true });
        }
        default:
          return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    addBot: (token, bot) => bots.set(token, bot),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
