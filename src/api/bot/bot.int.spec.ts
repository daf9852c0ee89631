import { type FakeTelegram, startFakeTelegram } from '../../../test/support/fakeTelegram';
import { type TestServer, startTestServer } from '../../../test/support/server';

const TOKEN = '555000111:AAE-bot_commands-token-for-tests';

describe('Bot commands and bot messages over HTTP', () => {
  let server: TestServer;
  let telegram: FakeTelegram;
  let admin: string;
  let agent: string;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    telegram.addBot(TOKEN, { id: 555000111, username: 'cmd_bot', firstName: 'Cmd' });
    server = await startTestServer({ env: { TELEGRAM_API_ROOT: telegram.apiRoot } });
    admin = await server.login();
    await server.request('POST', '/api/users', {
      token: admin,
      body: { firstName: 'B', lastName: 'Ot', username: 'bot_agent', email: 'ba@example.com', password: 'secret-123', role: 'agent' },
    });
    agent = await server.login('ba@example.com', 'secret-123');
  });
  afterAll(async () => {
    await server.stop();
    await telegram.close();
  });

  const list = async () =>
    (await server.request('GET', '/api/bot-commands', { token: admin })).body.commands as Array<{ _id: string; command: string; isSystem: boolean }>;
  const create = (body: unknown) => server.request('POST', '/api/bot-commands', { token: admin, body });

  it('when the server starts, then the six system commands exist once, even after a restart', async () => {
    const commands = await list();
    expect(commands.filter((c) => c.isSystem).map((c) => c.command)).toEqual(['start', 'help', 'ticket', 'mytickets', 'cancel', 'search']);
    const again = await startTestServer({ dataDir: server.dataDir, defaultRateLimit: true }).catch(() => null);
    // A second process on the same data directory seeds nothing twice.
    expect(again).not.toBeNull();
    const seen = (await again!.request('GET', '/api/bot-commands', { token: await again!.login() })).body.commands;
    expect(seen.filter((c: { isSystem: boolean }) => c.isSystem)).toHaveLength(6);
    await again!.stop({ keepData: true });
  });

  it('when a custom command is created, edited and deleted, then the rules of docs/product.md section 5 hold', async () => {
    const created = await create({
      command: '/Promo_Code',
      description: 'Current promotions',
      handler: 'custom',
      response: 'Use SPRING for 10% off',
      order: 7,
    });
    expect(created.status).toBe(201);
    expect(created.body.command).toMatchObject({
      command: 'promo_code',
      handler: 'custom',
      response: 'Use SPRING for 10% off',
      order: 7,
      isActive: true,
      isSystem: false,
    });
    const id = created.body.command._id as string;
    expect(await create({ command: 'promo_code', description: 'Again', handler: 'help' })).toMatchObject({ status: 409, body: { code: 'BOT_COMMAND_EXISTS' } });
    expect(await create({ command: 'start', description: 'Clash', handler: 'help' })).toMatchObject({ status: 409 });
    const switched = await server.request('PUT', `/api/bot-commands/${id}`, { token: admin, body: { handler: 'help', command: 'offers' } });
    expect(switched.body.command).toMatchObject({ command: 'offers', handler: 'help', response: null });
    expect((await create({ command: 'promo_code', description: 'Freed name', handler: 'help' })).status).toBe(201);
    expect((await server.request('DELETE', `/api/bot-commands/${id}`, { token: admin })).status).toBe(204);
    expect((await server.request('GET', `/api/bot-commands/${id}`, { token: admin })).status).toBe(404);
    expect((await create({ command: 'offers', description: 'Name free again', handler: 'help' })).status).toBe(201);
  });

  it('when a field breaks a rule, then it answers 400 with the rule, just inside passes', async () => {
    const base = { command: 'edge', description: 'Edge', handler: 'custom', response: 'ok' };
    const cases: Array<[object, string]> = [
      [{ ...base, command: 'bad-name' }, 'Command name can only contain lowercase letters and underscores'],
      [{ ...base, command: '' }, 'Command name is required'],
      [{ ...base, command: 'a'.repeat(33) }, 'Command name must be at most 32 characters'],
      [{ ...base, description: '' }, 'Description is required'],
      [{ ...base, description: 'd'.repeat(257) }, 'Description must be at most 256 characters'],
      [{ ...base, handler: 'shell' }, 'Handler must be one of start, help, ticket, mytickets, search, cancel, custom'],
      [{ ...base, response: 'r'.repeat(2001) }, 'Response must be at most 2000 characters'],
      [{ ...base, response: '' }, 'A response is required for a custom command'],
      [{ ...base, order: -1 }, 'Order must be 0 or more'],
      [{ ...base, order: 1.5 }, 'Order must be a whole number'],
      [{ ...base, isSystem: true }, 'Unknown field: isSystem'],
    ];
    for (const [body, error] of cases) {
      const response = await create(body);
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error });
    }
    const inside = await create({ ...base, description: 'd'.repeat(256), response: 'r'.repeat(2000), order: 0 });
    expect(inside.status).toBe(201);
  });

  it('when a system command is edited, then its name and handler are locked and it cannot be deleted', async () => {
    const start = (await list()).find((c) => c.command === 'start')!;
    expect(await server.request('PUT', `/api/bot-commands/${start._id}`, { token: admin, body: { command: 'begin' } })).toMatchObject({
      status: 403,
      body: { error: 'The name of a system command cannot be changed' },
    });
    expect((await server.request('PUT', `/api/bot-commands/${start._id}`, { token: admin, body: { handler: 'custom', response: 'x' } })).status).toBe(403);
    expect(await server.request('DELETE', `/api/bot-commands/${start._id}`, { token: admin })).toMatchObject({
      status: 403,
      body: { error: 'System commands cannot be deleted' },
    });
    const edited = await server.request('PUT', `/api/bot-commands/${start._id}`, { token: admin, body: { description: 'Say hello', command: 'start' } });
    expect(edited.body.command).toMatchObject({ command: 'start', description: 'Say hello' });
  });

  it('when commands are synced, then Telegram receives the active ones in order; without a token the reason is named', async () => {
    expect(await server.request('POST', '/api/bot-commands/sync', { token: admin })).toMatchObject({
      status: 400,
      body: { error: 'Please enter a Telegram bot token first.' },
    });
    await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: TOKEN } });
    const cancel = (await list()).find((c) => c.command === 'cancel')!;
    await server.request('PUT', `/api/bot-commands/${cancel._id}`, { token: admin, body: { isActive: false } });
    const synced = await server.request('POST', '/api/bot-commands/sync', { token: admin });
    expect(synced.status).toBe(200);
    const sent = telegram.calls.filter((call) => call.method === 'setMyCommands').at(-1)!;
    const names = (sent.payload.commands as Array<{ command: string }>).map((c) => c.command);
    expect(names).toEqual(expect.arrayContaining(['start', 'help', 'ticket', 'mytickets', 'promo_code']));
    expect(names).not.toContain('cancel');
    expect(names.indexOf('help')).toBeLessThan(names.indexOf('ticket'));
    expect(synced.body.synced).toBe(names.length);
    const active = (await server.request('GET', '/api/bot-commands?active=true', { token: admin })).body.commands;
    expect(active.map((c: { command: string }) => c.command)).toEqual(names);
    expect((await server.request('GET', '/api/bot-settings', { token: admin })).body.settings.lastSyncedAt).toEqual(expect.any(String));

    await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: '999000111:AAE-token_the_fake_api-does_not_know' } });
    expect(await server.request('POST', '/api/bot-commands/sync', { token: admin })).toEqual({
      status: 502,
      body: { error: 'Telegram refused the commands: Telegram answered 401: Unauthorized', code: 'UPSTREAM_ERROR' },
    });
    await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: TOKEN } });
  });

  it('when bot messages are edited, then each is checked (at most 1000, known variables) and reset restores the defaults', async () => {
    const defaults = (await server.request('GET', '/api/bot-settings', { token: admin })).body.settings.messages;
    expect(Object.keys(defaults).sort()).toEqual(
      [
        'agentAssignedMessage',
        'cancelMessage',
        'helpMessage',
        'invalidCommandMessage',
        'newMessageNotification',
        'ticketClosedMessage',
        'ticketCreatedMessage',
        'ticketUpdatedMessage',
        'welcomeMessage',
      ].sort(),
    );
    const edited = await server.request('PUT', '/api/bot-settings', {
      token: admin,
      body: { messages: { welcomeMessage: 'w'.repeat(1000), ticketUpdatedMessage: '#{ticketId} is {status}' } },
    });
    expect(edited.body.settings.messages).toMatchObject({
      welcomeMessage: 'w'.repeat(1000),
      ticketUpdatedMessage: '#{ticketId} is {status}',
      helpMessage: defaults.helpMessage,
    });
    const cases: Array<[object, string]> = [
      [{ messages: { welcomeMessage: 'w'.repeat(1001) } }, 'Welcome message must be at most 1000 characters'],
      [{ messages: { helpMessage: '  ' } }, 'Help message cannot be empty'],
      [
        { messages: { ticketCreatedMessage: 'Hi {customer}' } },
        'Ticket created message uses an unknown variable {customer}; the variables are {ticketId}, {category}, {status}, {agentName}, {message}',
      ],
      [{ messages: { farewell: 'bye' } }, 'Unknown field: farewell'],
      [{ messages: 'hi' }, 'messages must be an object'],
    ];
    for (const [body, error] of cases) {
      const response = await server.request('PUT', '/api/bot-settings', { token: admin, body });
      expect({ status: response.status, error: response.body.error }).toEqual({ status: 400, error });
    }
    const reset = await server.request('POST', '/api/bot-settings/reset', { token: admin });
    expect(reset.body.settings.messages).toEqual(defaults);
    const history = (await server.deps.events.readStream('settings-bot')).map((e) => e.type);
    expect(history).toEqual(expect.arrayContaining(['BotMessagesUpdated', 'BotMessagesReset', 'BotCommandsSynced']));
  });

  it('when an agent calls any bot route, then it is 403', async () => {
    for (const [method, url] of [
      ['GET', '/api/bot-commands'],
      ['POST', '/api/bot-commands'],
      ['POST', '/api/bot-commands/sync'],
      ['GET', '/api/bot-settings'],
      ['PUT', '/api/bot-settings'],
      ['POST', '/api/bot-settings/reset'],
    ] as const) {
      expect({ url, method, status: (await server.request(method, url, { token: agent, ...(method === 'GET' ? {} : { body: {} }) })).status }).toEqual({
        url,
        method,
        status: 403,
      });
    }
  });
});
