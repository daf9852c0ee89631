import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { addCategory, addMember } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type FakeTelegram, type TelegramUser, startFakeTelegram } from '../../../test/support/fakeTelegram';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { botChat, ticketMessages } from '../../../test/support/telegramDesk';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { TEXTS, existingTicketText } from './bot';
import { ACCESS_APPROVED_TEXT } from './notifications';

// The queue is BullMQ on the real Redis of every development machine, under a prefix of its own.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-tg-${randomUUID().slice(0, 8)}`;
const TOKEN = '424242:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 424242, username: 'desk_test_bot', firstName: 'Desk' };

afterAll(async () => {
  const redis = new IORedis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('Telegram bot on BullMQ against a fake Bot API', () => {
  let fake: FakeTelegram;
  let server: TestServer;
  let admin: string;
  let categoryId: string;

  beforeAll(async () => {
    fake = await startFakeTelegram();
    fake.addBot(TOKEN, BOT);
    server = await startTestServer({ env: { TELEGRAM_API_ROOT: fake.apiRoot, REDIS_URL, REDIS_PREFIX: `${PREFIX}-a` } });
    admin = await server.login();
    categoryId = await addCategory(server, admin, {
      name: 'Billing',
      customFields: [
        { fieldName: 'order', fieldType: 'text', prompt: 'Order number', validation: { pattern: '^[0-9]+$' } },
        { fieldName: 'amount', fieldType: 'number', prompt: 'Amount', required: false, validation: { min: 1 } },
      ],
    });
    expect((await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: TOKEN, emailNotifications: false } })).status).toBe(200);
    await eventually(() => fake.calls.some((call) => call.method === 'getUpdates'), { describe: 'polling started' });
  });

  afterAll(async () => {
    await server.stop();
    await fake.close();
  });

  /** Sends a text and waits for the bot to have answered `answers` more messages to that chat. */
  const say = async (user: TelegramUser, text: string, answers = 1) => {
    const before = fake.messagesTo(user.id).length;
    fake.sendText(TOKEN, user, text);
    await eventually(() => fake.messagesTo(user.id).length >= before + answers, { describe: `${answers} answer(s) to "${text}"` });
    return fake.messagesTo(user.id).slice(before);
  };
  const press = async (user: TelegramUser, data: string) => {
    const before = fake.messagesTo(user.id).length;
    fake.pressButton(TOKEN, user, data);
    await eventually(() => fake.messagesTo(user.id).length > before, { describe: `answer to the button ${data}` });
    return fake.messagesTo(user.id).slice(before);
  };
  const ticketsOf = async (firstName: string) =>
    (
      (await server.request('GET', '/api/tickets', { token: admin })).body.tickets as Array<{
        _id: string;
        ticketId: number;
        customer: { firstName: string };
        platform: string;
        title: string;
        status: string;
        customFieldValues: unknown[];
      }>
    ).filter((ticket) => ticket.customer.firstName === firstName);

  /** Whitelists a Telegram user and opens a ticket for them through the bot, in a new category without custom fields. */
  const customerWithTicket = async (user: TelegramUser, categoryName: string, title: string) => {
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: String(user.id), firstName: user.first_name } });
    const category = await addCategory(server, admin, { name: categoryName });
    await botChat(fake, TOKEN, user).openTicket(category, title);
    const [ticket] = await ticketsOf(user.first_name);
    return { category, ticket: ticket! };
  };

  it('refuses a stranger politely, records the access request, and serves them once approved: a whole conversation to a closed ticket', async () => {
    const alice: TelegramUser = { id: 5001, first_name: 'Alice', last_name: 'Liddell', username: 'alice_tg' };
    expect(await say(alice, '/start')).toEqual([TEXTS.notWhitelisted]);
    const requests = (await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests;
    expect(requests).toEqual([
      expect.objectContaining({ telegramId: '5001', username: 'alice_tg', firstName: 'Alice', attemptCount: 1, lastMessage: '/start' }),
    ]);
    expect(await ticketsOf('Alice')).toEqual([]);

    const before = fake.messagesTo(alice.id).length;
    expect((await server.request('POST', '/api/whitelist/access-requests/5001/approve', { token: admin })).status).toBe(200);
    await eventually(() => fake.messagesTo(alice.id).length > before);
    expect(fake.messagesTo(alice.id).at(-1)).toBe(ACCESS_APPROVED_TEXT);

    expect(await say(alice, '/start')).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage]);
    expect(await say(alice, '/help')).toEqual([DEFAULT_BOT_MESSAGES.helpMessage]);
    expect(await say(alice, '/nonsense')).toEqual([DEFAULT_BOT_MESSAGES.invalidCommandMessage]);

    // The guided form: category from buttons, title, description, then the category's own questions.
    expect(await say(alice, '/ticket')).toEqual([TEXTS.chooseCategory]);
    const keyboard = fake.delivered.filter((message) => message.chatId === '5001').at(-1)!.replyMarkup!.inline_keyboard;
    expect(keyboard.flat()).toContainEqual({ text: 'Billing', callback_data: `category:${categoryId}` });
    expect(await press(alice, `category:${categoryId}`)).toEqual([TEXTS.askTitle('Billing')]);
    expect(await say(alice, 'x'.repeat(201))).toEqual(['Title must be at most 200 characters']);
    expect(await say(alice, 'Card payment refused')).toEqual([TEXTS.askDescription]);
    expect(await say(alice, 'My card is refused at checkout since Monday.')).toEqual(['Order number']);
    expect(await say(alice, 'abc')).toEqual(['Order number does not have the expected format']);
    expect(await say(alice, '7781')).toEqual([`Amount\nPlease send a number (at least 1).\n${TEXTS.optionalHint}`]);
    expect(await say(alice, '/skip')).toEqual(['Your ticket #1001 in Billing has been created. An agent will reply here soon.']);

    const [ticket] = await ticketsOf('Alice');
    expect(ticket).toMatchObject({
      ticketId: 1001,
      title: 'Card payment refused',
      platform: 'telegram',
      status: 'open',
      customFieldValues: [{ fieldName: 'order', value: '7781' }],
    });
    const detail = (await server.request('GET', `/api/tickets/${ticket!._id}`, { token: admin })).body;
    expect(detail.ticket.customer).toMatchObject({ firstName: 'Alice', lastName: 'Liddell' });

    // The one-open-ticket rule holds in the bot too.
    expect((await say(alice, '/ticket'))[0]).toContain('Please resolve your existing ticket before creating a new one');

    // A plain message goes to the open ticket, marked as coming from Telegram.
    fake.sendText(TOKEN, alice, 'Any news about this?');
    const posted = await eventually(async () => {
      const messages = (await server.request('GET', `/api/tickets/${ticket!._id}/messages`, { token: admin })).body.messages as Array<{
        content: string;
        platform: string;
        sender: { firstName: string };
      }>;
      return messages.find((message) => message.content === 'Any news about this?');
    });
    expect(posted).toMatchObject({ platform: 'telegram', sender: { firstName: 'Alice' } });

    // A document is downloaded, checked like a web upload, and posted with its caption.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    fake.addFile(TOKEN, 'doc-png', png);
    fake.sendOther(TOKEN, alice, {
      document: { file_id: 'doc-png', file_unique_id: 'u1', file_name: 'screenshot.png', file_size: png.length },
      caption: 'See the error',
    });
    const withFile = await eventually(async () => {
      const messages = (await server.request('GET', `/api/tickets/${ticket!._id}/messages`, { token: admin })).body.messages as Array<{
        content: string;
        attachments: Array<{ url: string; originalName: string; mimeType: string }>;
      }>;
      return messages.find((message) => message.content === 'See the error');
    });
    expect(withFile.attachments).toEqual([expect.objectContaining({ originalName: 'screenshot.png', mimeType: 'image/png', size: png.length })]);
    const download = await fetch(`${server.url}${withFile.attachments[0]!.url}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
    fake.addFile(TOKEN, 'doc-svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
    const refused = fake.messagesTo(alice.id).length;
    fake.sendOther(TOKEN, alice, { document: { file_id: 'doc-svg', file_unique_id: 'u2', file_name: 'evil.svg' } });
    await eventually(() => fake.messagesTo(alice.id).length > refused);
    expect(fake.messagesTo(alice.id).at(-1)).toContain('evil.svg');

    // Staff work on the web reaches the chat with the Bot Messages templates; internal notes never do.
    const bob = await addMember(server, admin, 'agent', 'Bob');
    const seen = fake.messagesTo(alice.id).length;
    expect((await server.request('POST', `/api/tickets/${ticket!._id}/assign`, { token: bob.token, body: { agentId: bob.id } })).status).toBe(200);
    await eventually(() => fake.messagesTo(alice.id).length >= seen + 2);
    expect(fake.messagesTo(alice.id).slice(seen)).toEqual(['Bob Tester is now handling your ticket #1001.', 'Ticket #1001 is now in progress.']);
    await server.request('POST', `/api/tickets/${ticket!._id}/messages`, { token: bob.token, body: { content: 'Customer seems legit', isInternal: true } });
    await server.request('POST', `/api/tickets/${ticket!._id}/messages`, { token: bob.token, body: { content: 'We are on it.', isInternal: false } });
    await eventually(() => fake.messagesTo(alice.id).length >= seen + 3);
    expect(fake.messagesTo(alice.id).at(-1)).toBe('New reply on ticket #1001 from Bob Tester:\nWe are on it.');
    await server.request('PUT', `/api/tickets/${ticket!._id}`, { token: bob.token, body: { status: 'pending_customer' } });
    await eventually(() => fake.messagesTo(alice.id).length >= seen + 4);
    expect(fake.messagesTo(alice.id).at(-1)).toBe('Ticket #1001 is now waiting for customer response.');
    await server.request('PUT', `/api/tickets/${ticket!._id}`, { token: bob.token, body: { status: 'closed' } });
    await eventually(() => fake.messagesTo(alice.id).length >= seen + 5);
    expect(fake.messagesTo(alice.id).at(-1)).toBe(DEFAULT_BOT_MESSAGES.ticketClosedMessage.replace('{ticketId}', '1001'));

    expect(await say(alice, '/mytickets')).toEqual(['Your tickets:\n#1001 Card payment refused — closed']);
    // /search: the customer's own tickets by a word prefix; an internal note's word finds nothing.
    const [found] = await say(alice, '/search REFUS');
    expect(found).toMatch(/^Found in your tickets:\n#1001 Card payment refused — closed\n {2}“.*[Rr]efused.*”$/);
    expect(await say(alice, '/search legit')).toEqual([TEXTS.searchNone]);
    expect(await say(alice, '/search')).toEqual([TEXTS.searchHow]);
    // A tag is staff's (docs/teams.md): the customer is told so in words, as the API answers 403.
    expect(await say(alice, '/search refund tag:vip')).toEqual(['Only staff can filter by team or tag']);
    // The desk refuses words for a closed ticket; the bot says so and what to do.
    expect(await say(alice, 'Hello?')).toEqual([TEXTS.closed(1001)]);
    expect(fake.delivered.some((message) => message.text.includes('legit'))).toBe(false);
    // Nothing was sent twice.
    const texts = fake.messagesTo(alice.id);
    expect(texts.filter((text) => text === 'New reply on ticket #1001 from Bob Tester:\nWe are on it.')).toHaveLength(1);
  });

  it('answers custom commands and uses edited Bot Messages', async () => {
    const carl: TelegramUser = { id: 5002, first_name: 'Carl' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5002', firstName: 'Carl' } });
    const created = await server.request('POST', '/api/bot-commands', {
      token: admin,
      body: { command: 'hours', description: 'Opening hours', handler: 'custom', response: 'We answer 9:00–17:00 CET.' },
    });
    expect(created.status).toBe(201);
    await server.request('PUT', '/api/bot-settings', { token: admin, body: { messages: { welcomeMessage: 'Hi there, welcome to Billing Support!' } } });
    expect(await say(carl, '/hours')).toEqual(['We answer 9:00–17:00 CET.']);
    expect(await say(carl, `/start@${BOT.username}`)).toEqual(['Hi there, welcome to Billing Support!']);
    expect(await say(carl, '/ticket')).toEqual([TEXTS.chooseCategory]);
    expect(await say(carl, '/cancel')).toEqual([DEFAULT_BOT_MESSAGES.cancelMessage]);
    expect(await say(carl, 'Just a question')).toEqual([TEXTS.noOpenTicket]);
    fake.sendOther(TOKEN, carl, { sticker: { file_id: 'x' } });
    await eventually(() => fake.messagesTo(carl.id).at(-1) === TEXTS.textOnly);
    await server.request('POST', '/api/bot-settings/reset', { token: admin });
  });

  it('retries a Bot API 500 and a 429 with retry_after, and delivers the message once', async () => {
    const dora: TelegramUser = { id: 5003, first_name: 'Dora' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5003', firstName: 'Dora' } });
    fake.failNext('sendMessage', 2, { status: 500, description: 'Internal Server Error' });
    const started = Date.now();
    expect(await say(dora, '/start')).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage]);
    fake.failNext('sendMessage', 1, { status: 429, description: 'Too Many Requests: retry after 2', retryAfter: 2 });
    const limited = Date.now();
    expect(await say(dora, '/help')).toEqual([DEFAULT_BOT_MESSAGES.helpMessage]);
    expect(Date.now() - limited).toBeGreaterThanOrEqual(1900);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900); // 1 s + 2 s of backoff, then 2 s asked by Telegram
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.messagesTo(dora.id)).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage, DEFAULT_BOT_MESSAGES.helpMessage]);
  }, 20_000);

  it('when Telegram refuses a message for good, then it fails at once, shows in Deliveries with its reason, health says degraded, and a retry from there delivers it once', async () => {
    const eve: TelegramUser = { id: 5004, first_name: 'Eve' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5004', firstName: 'Eve' } });
    fake.failNext('sendMessage', 1, { status: 403, description: 'Forbidden: bot was blocked by the user' });
    fake.sendText(TOKEN, eve, '/start');
    const failed = await eventually(async () => (await server.deps.queue.failed('telegram')).find((job) => (job.data as { chatId: string }).chatId === '5004'));
    expect(failed).toMatchObject({ attemptsMade: 1, failedReason: 'Telegram answered 403: Forbidden: bot was blocked by the user' });
    expect(fake.messagesTo(eve.id)).toEqual([]);

    const listed = await server.request('GET', '/api/deliveries', { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.counts).toEqual({ waiting: 0, retrying: 0, failed: 1, inbound: 0 });
    expect(listed.body.deliveries).toEqual([
      {
        id: failed.id,
        channel: 'telegram',
        direction: 'outbound',
        recipient: '5004',
        // The bot made Eve a customer of the desk: the row names her beside the chat id.
        recipientName: 'Eve User',
        ticket: null,
        kind: 'reply',
        state: 'failed',
        attempts: 1,
        lastError: 'Telegram answered 403: Forbidden: bot was blocked by the user',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        ageSeconds: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(DEFAULT_BOT_MESSAGES.welcomeMessage);
    expect((await server.health()).body).toMatchObject({ status: 'degraded', deliveries: { failed: 1 } });
    const customer = await addMember(server, admin, 'customer', 'Nosy');
    expect((await server.request('GET', '/api/deliveries', { token: customer.token })).status).toBe(403);
    expect((await server.request('POST', `/api/deliveries/telegram/${failed.id}/retry`, { token: customer.token })).status).toBe(403);
    expect((await server.request('POST', '/api/deliveries/sms/x/retry', { token: admin })).status).toBe(404);
    expect((await server.request('POST', '/api/deliveries/telegram/no-such-job/retry', { token: admin })).status).toBe(404);

    expect(await server.request('POST', `/api/deliveries/telegram/${failed.id}/retry`, { token: admin })).toEqual({
      status: 200,
      body: { message: 'Delivery queued again' },
    });
    await eventually(() => fake.messagesTo(eve.id).length === 1, { describe: 'the retried message' });
    expect(fake.messagesTo(eve.id)).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage]);
    await eventually(async () => (await server.request('GET', '/api/deliveries', { token: admin })).body.deliveries.length === 0);
    expect((await server.health()).body).toMatchObject({ status: 'ok', deliveries: { failed: 0 } });

    // Discarded one by one, or all failed at once.
    fake.failNext('sendMessage', 2, { status: 400, description: 'Bad Request: chat not found' });
    fake.sendText(TOKEN, eve, '/help');
    fake.sendText(TOKEN, eve, '/nonsense');
    const two = await eventually(async () => {
      const { deliveries } = (await server.request('GET', '/api/deliveries', { token: admin })).body as { deliveries: Array<{ id: string; state: string }> };
      return deliveries.length === 2 && deliveries.every((delivery) => delivery.state === 'failed') ? deliveries : undefined;
    });
    expect((await server.request('DELETE', `/api/deliveries/telegram/${two[0]!.id}`, { token: admin })).status).toBe(204);
    expect((await server.request('DELETE', `/api/deliveries/telegram/${two[0]!.id}`, { token: admin })).status).toBe(404);
    expect(await server.request('POST', '/api/deliveries/failed/discard', { token: admin })).toEqual({
      status: 200,
      body: { message: 'Discarded 1 delivery', count: 1 },
    });
    expect((await server.request('GET', '/api/deliveries', { token: admin })).body.deliveries).toEqual([]);
    expect(fake.messagesTo(eve.id)).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage]);
  });

  it("when a file cannot be downloaded, then the user gets the failed text and the caption reaches the ticket as text; another bot's command is ignored; an old button names the open ticket", async () => {
    const hana: TelegramUser = { id: 5007, first_name: 'Hana' };
    const { category: plain, ticket } = await customerWithTicket(hana, 'Plain', 'Files ticket');
    const before = fake.messagesTo(hana.id).length;
    fake.sendOther(TOKEN, hana, { document: { file_id: 'gone-file', file_unique_id: 'g1', file_name: 'gone.pdf' }, caption: 'Invoice attached' });
    await eventually(() => fake.messagesTo(hana.id).length > before, { describe: 'the failed text' });
    expect(fake.messagesTo(hana.id).slice(before)).toEqual([TEXTS.failed]);
    const contents = async () => (await ticketMessages(server, ticket._id)).map((message) => message.content);
    await eventually(async () => (await contents()).includes('Invoice attached'), { describe: 'the caption on the ticket' });
    expect(await server.deps.queue.failed('telegram-updates')).toEqual([]);

    // `/start@OtherBot` in a chat is another bot's business: no answer, nothing posted.
    fake.sendText(TOKEN, hana, '/start@other_bot');
    fake.sendText(TOKEN, hana, 'After the other bot');
    await eventually(async () => (await contents()).includes('After the other bot'), { describe: 'the later text posted' });
    expect(await contents()).not.toContain('/start@other_bot');
    expect(fake.messagesTo(hana.id).slice(before)).toEqual([TEXTS.failed]);

    expect(await botChat(fake, TOKEN, hana).press(`category:${plain}`)).toEqual([existingTicketText(ticket as never)]);
  }, 20_000);

  it('when a Bot Messages text uses variables, then the values of the open ticket fill them and a sentence without a value is left out', async () => {
    const ivan: TelegramUser = { id: 5008, first_name: 'Ivan' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5008', firstName: 'Ivan' } });
    const welcome = 'Welcome back! Your ticket #{ticketId} in {category} is {status}. {agentName} is on it. Send /help for the commands.';
    expect((await server.request('PUT', '/api/bot-settings', { token: admin, body: { messages: { welcomeMessage: welcome } } })).status).toBe(200);
    try {
      await greetIvan(ivan, admin);
    } finally {
      await server.request('POST', '/api/bot-settings/reset', { token: admin });
    }
  });

  const greetIvan = async (ivan: TelegramUser, admin: string) => {
    const chat = botChat(fake, TOKEN, ivan);
    expect(await chat.say('/start')).toEqual(['Welcome back! Send /help for the commands.']);
    const plain = await addCategory(server, admin, { name: 'Templates' });
    await chat.openTicket(plain, 'Template ticket');
    const [ticket] = await ticketsOf('Ivan');
    expect(await chat.say('/start')).toEqual([`Welcome back! Your ticket #${ticket!.ticketId} in Templates is open. Send /help for the commands.`]);
    const kate = await addMember(server, admin, 'agent', 'Kate');
    await server.request('POST', `/api/tickets/${ticket!._id}/assign`, { token: kate.token, body: { agentId: kate.id } });
    await eventually(() => fake.messagesTo(ivan.id).at(-1) === `Ticket #${ticket!.ticketId} is now in progress.`, { describe: 'the assignment notices' });
    expect(await chat.say('/start')).toEqual([
      `Welcome back! Your ticket #${ticket!.ticketId} in Templates is in progress. Kate Tester is on it. Send /help for the commands.`,
    ]);
  };

  it('when maintenance mode is on, then the bot answers with the maintenance notice and posts nothing', async () => {
    const jill: TelegramUser = { id: 5009, first_name: 'Jill' };
    const stranger: TelegramUser = { id: 5010, first_name: 'Stan' };
    const { ticket } = await customerWithTicket(jill, 'Maintenance', 'Maintenance ticket');
    await server.request('PUT', '/api/settings', { token: admin, body: { maintenanceMode: true } });
    try {
      const notice = 'Customer Support System is down for maintenance. Please try again later.';
      expect(await botChat(fake, TOKEN, jill).say('Are you there?')).toEqual([notice]);
      expect(await botChat(fake, TOKEN, jill).say('/ticket')).toEqual([notice]);
      expect(await botChat(fake, TOKEN, stranger).say('Let me in')).toEqual([notice]);
      expect((await ticketMessages(server, ticket._id)).map((message) => message.content)).not.toContain('Are you there?');
      expect(
        (await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests.map(
          (request: { telegramId: string }) => request.telegramId,
        ),
      ).not.toContain('5010');
    } finally {
      await server.request('PUT', '/api/settings', { token: admin, body: { maintenanceMode: false } });
    }
  });

  it('when fields are named after object members (constructor, valueOf), then the form asks each; a message of invisible marks alone is refused', async () => {
    const omar: TelegramUser = { id: 5021, first_name: 'Omar' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '005021', firstName: 'Omar' } });
    const category = await addCategory(server, admin, {
      name: 'Members',
      customFields: [
        { fieldName: 'constructor', fieldType: 'text', prompt: 'Builder' },
        { fieldName: 'valueOf', fieldType: 'number', prompt: 'Amount', required: false },
      ],
    });
    expect(await say(omar, '/ticket')).toEqual([TEXTS.chooseCategory]);
    expect(await press(omar, `category:${category}`)).toEqual([TEXTS.askTitle('Members')]);
    expect(await say(omar, 'Set missing')).toEqual([TEXTS.askDescription]);
    expect(await say(omar, 'Two bricks short.')).toEqual(['Builder']);
    expect(await say(omar, '/skip')).toEqual(['Builder is required.']);
    expect(await say(omar, 'Lego')).toEqual([`Amount\nPlease send a number.\n${TEXTS.optionalHint}`]);
    expect((await say(omar, '/skip'))[0]).toMatch(/^Your ticket #\d+ in Members has been created/);
    const [ticket] = await ticketsOf('Omar');
    expect(ticket!.customFieldValues).toEqual([{ fieldName: 'constructor', fieldPrompt: 'Builder', value: 'Lego' }]);
    expect(await say(omar, '\u200B\u200F')).toEqual(['A message needs text or at least one file']);
  });

  it('when an admin adds by hand an ID whose access request is pending, then the request is approved and the user is told', async () => {
    const lena: TelegramUser = { id: 5011, first_name: 'Lena' };
    expect(await botChat(fake, TOKEN, lena).say('/start')).toEqual([TEXTS.notWhitelisted]);
    const pending = async () =>
      ((await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests as Array<{ telegramId: string }>).map(
        (request) => request.telegramId,
      );
    expect(await pending()).toContain('5011');
    expect((await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5011', firstName: 'Lena' } })).status).toBe(201);
    expect(await pending()).not.toContain('5011');
    await eventually(() => fake.messagesTo(lena.id).at(-1) === ACCESS_APPROVED_TEXT, { describe: 'the approval notice' });
    expect(await botChat(fake, TOKEN, lena).say('/help')).toEqual([DEFAULT_BOT_MESSAGES.helpMessage]);
  });

  it("when staff reply with files, then the customer gets the reply and each file as a photo or document after it; a note's file never goes", async () => {
    const maya: TelegramUser = { id: 5012, first_name: 'Maya' };
    const { ticket } = await customerWithTicket(maya, 'Files out', 'Send me the files');
    const before = fake.messagesTo(maya.id).length;
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const post = async (content: string, isInternal: boolean, files: Array<[Buffer, string]>) => {
      const form = new FormData();
      form.append('content', content);
      form.append('isInternal', String(isInternal));
      for (const [bytes, name] of files) form.append('attachments', new Blob([new Uint8Array(bytes)]), name);
      const response = await fetch(`${server.url}/api/tickets/${ticket._id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}` },
        body: form,
      });
      expect(response.status).toBe(201);
    };
    await post('Internal: the signed copy', true, [[pdf, 'secret.pdf']]);
    await post('Here are the screenshot and the terms.', false, [
      [png, 'shot.png'],
      [pdf, 'terms.pdf'],
    ]);
    await eventually(() => fake.messagesTo(maya.id).length >= before + 3, { describe: 'the reply and its two files' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.messagesTo(maya.id).slice(before)).toEqual([
      `New reply on ticket #${ticket.ticketId} from System Administrator:\nHere are the screenshot and the terms.\n📎 shot.png\n📎 terms.pdf`,
      '[sendPhoto: shot.png]',
      '[sendDocument: terms.pdf]',
    ]);
    const files = fake.delivered.filter((message) => message.chatId === '5012' && message.file).map((message) => message.file!);
    expect(files[0]!.content.equals(png)).toBe(true);
    expect(files[1]!.content.equals(pdf)).toBe(true);
    expect(fake.delivered.some((message) => message.file?.fileName === 'secret.pdf' || message.text.includes('signed copy'))).toBe(false);
  });

  it('switches to a webhook with a secret when a webhook URL is set, and back to polling without restarting', async () => {
    const url = 'https://desk.example.com/api/telegram/webhook';
    await server.request('PUT', '/api/settings', { token: admin, body: { telegramWebhookUrl: url } });
    const webhook = await eventually(() => fake.webhookOf(TOKEN), { describe: 'setWebhook' });
    expect(webhook.url).toBe(url);
    expect(webhook.secretToken).toMatch(/^[0-9a-f]{64}$/);

    const frank: TelegramUser = { id: 5005, first_name: 'Frank' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5005', firstName: 'Frank' } });
    const update = {
      update_id: 990001,
      message: { message_id: 1, date: 0, from: { ...frank, is_bot: false }, chat: { id: frank.id, type: 'private', first_name: 'Frank' }, text: '/start' },
    };
    const post = (headers: Record<string, string>, body: unknown = update) => server.request('POST', '/api/telegram/webhook', { headers, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-telegram-bot-api-secret-token': 'f'.repeat(64) })).status).toBe(401);
    expect((await post({ 'x-telegram-bot-api-secret-token': webhook.secretToken }, { nope: true })).status).toBe(400);
    expect((await post({ 'x-telegram-bot-api-secret-token': webhook.secretToken })).body).toEqual({ ok: true });
    expect((await post({ 'x-telegram-bot-api-secret-token': webhook.secretToken })).status).toBe(200); // Telegram retrying the same update
    await eventually(() => fake.messagesTo(frank.id).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.messagesTo(frank.id)).toEqual([DEFAULT_BOT_MESSAGES.welcomeMessage]);

    const polls = fake.calls.filter((call) => call.method === 'getUpdates').length;
    await server.request('PUT', '/api/settings', { token: admin, body: { telegramWebhookUrl: '' } });
    await eventually(() => fake.webhookOf(TOKEN) === null && fake.calls.filter((call) => call.method === 'getUpdates').length > polls, {
      describe: 'back to polling',
    });
    expect(await say(frank, '/help')).toEqual([DEFAULT_BOT_MESSAGES.helpMessage]);
  });

  it('restarts the bot on a new token without restarting the app, and stops polling with the old one', async () => {
    const newToken = '434343:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    fake.addBot(newToken, { id: 434343, username: 'desk_new_bot', firstName: 'Desk 2' });
    await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: newToken } });
    await eventually(() => fake.calls.some((call) => call.token === newToken && call.method === 'getUpdates'), { describe: 'polling with the new token' });
    const gina: TelegramUser = { id: 5006, first_name: 'Gina' };
    await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '5006', firstName: 'Gina' } });
    fake.sendText(newToken, gina, '/help');
    await eventually(() => fake.messagesTo(gina.id).length === 1);
    expect(fake.calls.filter((call) => call.method === 'sendMessage' && call.payload.chat_id === '5006').map((call) => call.token)).toEqual([newToken]);

    const polledOld = fake.calls.filter((call) => call.token === TOKEN && call.method === 'getUpdates').length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(fake.calls.filter((call) => call.token === TOKEN && call.method === 'getUpdates').length).toBeLessThanOrEqual(polledOld + 1);
  });
});
