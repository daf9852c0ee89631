import { Telegram } from 'telegraf';
import { TelegramError } from 'telegraf';

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

  private async call<T>(token: string, work: (telegram: Telegram) => Promise<T>): Promise<T> {
    const telegram = new Telegram(token, { apiRoot: this.apiRoot });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Telegram did not answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    });
    try {
      return await Promise.race([work(telegram), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
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
