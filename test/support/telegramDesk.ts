import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { escapeRegex } from '../../src/platform/readstore/port';
import { TICKETS, TICKET_MESSAGES, type MessageView, type TicketView } from '../../src/projections/tickets';
import { addCategory } from './desk';
import { eventually } from './eventually';
import { type FakeTelegram, type TelegramUser, startFakeTelegram } from './fakeTelegram';
import { type TestServer, startTestServer } from './server';

/** The bot's confirmation of a new ticket in its default words, whatever its number and category. */
const CONFIRMED = new RegExp(
  `^${escapeRegex(DEFAULT_BOT_MESSAGES.ticketCreatedMessage).replace(escapeRegex('{ticketId}'), '\\d+').replace(escapeRegex('{category}'), '.*')}$`,
  's',
);

/** A Telegram user talking to the bot of `token` through the fake Bot API, waiting for the bot's answers. */
export function botChat(fake: FakeTelegram, token: string, user: TelegramUser) {
  const say = async (text: string, answers = 1) => {
    const before = fake.messagesTo(user.id).length;
    fake.sendText(token, user, text);
    await eventually(() => fake.messagesTo(user.id).length >= before + answers, { describe: `${answers} answer(s) to "${text}"` });
    return fake.messagesTo(user.id).slice(before);
  };
  const press = async (data: string) => {
    const before = fake.messagesTo(user.id).length;
    fake.pressButton(token, user, data);
    await eventually(() => fake.messagesTo(user.id).length > before, { describe: `answer to the button ${data}` });
    return fake.messagesTo(user.id).slice(before);
  };
  /**
   * Opens a ticket through the bot's form in a category without custom fields, and ends once the bot confirmed it:
   * counting answers is not enough, since a notice about an earlier ticket (its status, sent through the queue) may
   * arrive in the middle of the form.
   */
  const openTicket = async (categoryId: string, title: string) => {
    const before = fake.messagesTo(user.id).length;
    await say('/ticket');
    await press(`category:${categoryId}`);
    await say(title);
    await say('Described in the bot.');
    await eventually(
      () =>
        fake
          .messagesTo(user.id)
          .slice(before)
          .some((text) => CONFIRMED.test(text)),
      { describe: `the bot's confirmation of "${title}"` },
    );
  };
  return { say, press, openTicket };
}

/** The ticket's messages in the order they were posted, straight from the read model. */
export const ticketMessages = (server: TestServer, ticketId: string) =>
  server.deps.readStore.collection<MessageView>(TICKET_MESSAGES).find({ ticket: ticketId }, { sort: { seq: 1 } });

/**
 * The bot of `token` set up with Telegram polling, `user` whitelisted, and a ticket `title` opened by
 * them through the bot's form in a new category `category`; e-mail notifications off.
 */
export async function telegramCustomerWithTicket(
  server: TestServer,
  fake: FakeTelegram,
  token: string,
  user: TelegramUser,
  { category: name, title }: { category: string; title: string },
) {
  const admin = await server.login();
  const category = await addCategory(server, admin, { name });
  await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: token, emailNotifications: false } });
  await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: String(user.id), firstName: user.first_name } });
  await eventually(() => fake.calls.some((call) => call.method === 'getUpdates'), { describe: 'polling started' });
  await botChat(fake, token, user).openTicket(category, title);
  const [ticket] = await server.deps.readStore.collection<TicketView>(TICKETS).find({ title });
  return { admin, ticket: ticket! };
}

/**
 * A fake Bot API with `bot` on it and a test server polling it, started before the suite's tests and
 * stopped after them; read `desk.fake` and `desk.server` inside the tests.
 */
export function useTelegramDesk(token: string, bot: { id: number; username: string; firstName: string }) {
  const desk = {} as { fake: FakeTelegram; server: TestServer };
  beforeAll(async () => {
    desk.fake = await startFakeTelegram();
    desk.fake.addBot(token, bot);
    desk.server = await startTestServer({ env: { TELEGRAM_API_ROOT: desk.fake.apiRoot } });
  });
  afterAll(async () => {
    await desk.server.stop();
    await desk.fake.close();
  });
  return desk;
}
