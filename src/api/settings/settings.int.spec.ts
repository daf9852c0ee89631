import { type FakeTelegram, startFakeTelegram } from '../../../test/support/fakeTelegram';
import { addCategory, addMember, oneSlaPolicy, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

const TOKEN = '123456789:AAE-this_is-a-fake_token-for-tests';
const MB = 1024 * 1024;

describe('System settings over HTTP', () => {
  let server: TestServer;
  let telegram: FakeTelegram;
  let admin: string;
  let agent: string;
  let customer: string;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    telegram.addBot(TOKEN, { id: 123456789, username: 'desk_bot', firstName: 'Desk' });
    server = await startTestServer({ env: { TELEGRAM_API_ROOT: telegram.apiRoot } });
    admin = await server.login();
    await server.request('POST', '/api/users', {
      token: admin,
      body: { firstName: 'A', lastName: 'Gent', username: 'settings_agent', email: 'sa@example.com', password: 'secret-123', role: 'agent' },
    });
    agent = await server.login('sa@example.com', 'secret-123');
    customer = (
      await server.request('POST', '/api/auth/register', {
        body: { firstName: 'C', lastName: 'Ust', username: 'settings_customer', email: 'sc@example.com', password: 'secret-123' },
      })
    ).body.accessToken;
  });
  afterAll(async () => {
    await server.stop();
    await telegram.close();
  });

  const put = (body: unknown, token = admin) => server.request('PUT', '/api/settings', { token, body });

  it('when nothing was changed yet, then the defaults of docs/product.md section 9 are answered', async () => {
    const fresh = await startTestServer({ defaultRateLimit: true });
    try {
      const { body } = await fresh.request('GET', '/api/settings', { token: await fresh.login() });
      expect(body.settings).toMatchObject({
        telegramBotToken: '',
        telegramWebhookUrl: '',
        emailNotifications: true,
        maxFileSize: 10485760,
        maxFiles: 5,
        rateLimitWindowMs: 900000,
        rateLimitMaxRequests: 100,
        corsOrigins: [],
        maintenanceMode: false,
        systemName: 'Customer Support System',
        supportEmail: '',
      });
    } finally {
      await fresh.stop();
    }
  });

  it("when a new desk is set up, then its admin's checklist ticks each step from what the desk holds (issue 50)", async () => {
    const fresh = await startTestServer({ env: { TELEGRAM_API_ROOT: telegram.apiRoot } });
    try {
      const token = await fresh.login();
      const setup = async () => (await fresh.request('GET', '/api/settings/setup', { token })).body.setup;
      expect(await setup()).toEqual({ categories: 0, agents: 0, telegramBot: false, servicePolicies: 0, supportEmail: false, tickets: 0 });
      const category = await addCategory(fresh, token, { name: 'General' });
      const agentMember = await addMember(fresh, token, 'agent', 'Ann');
      const customerMember = await addMember(fresh, token, 'customer', 'Cy');
      expect((await fresh.request('PUT', '/api/settings', { token, body: { supportEmail: 'help@new.example', telegramBotToken: TOKEN } })).status).toBe(200);
      const sla = oneSlaPolicy({ firstResponse: 60, nextResponse: null, resolution: null });
      expect((await fresh.request('PUT', '/api/sla/settings', { token, body: sla })).status).toBe(200);
      await openTicket(fresh, customerMember, category);
      expect(await setup()).toEqual({ categories: 1, agents: 1, telegramBot: true, servicePolicies: 1, supportEmail: true, tickets: 1 });
      for (const other of [agentMember.token, customerMember.token])
        expect((await fresh.request('GET', '/api/settings/setup', { token: other })).status).toBe(403);
      // A deactivated agent or an inactive category no longer counts: the step is to do again.
      expect((await fresh.request('PUT', `/api/users/${agentMember.id}`, { token, body: { isActive: false } })).status).toBe(200);
      expect((await fresh.request('PUT', `/api/categories/${category}`, { token, body: { name: 'General', isActive: false } })).status).toBe(200);
      expect(await setup()).toMatchObject({ categories: 0, agents: 0 });
    } finally {
      await fresh.stop();
    }
  });

  it('when a bound is just inside, then it is saved; just outside, then 400 with the bound', async () => {
    const inside = [
      { maxFileSize: MB },
      { maxFileSize: 100 * MB },
      { maxFiles: 1 },
      { maxFiles: 20 },
      { rateLimitMaxRequests: 1 },
      { rateLimitMaxRequests: 1000 },
      { rateLimitWindowMs: 60_000 },
      { rateLimitWindowMs: 3_600_000 },
    ];
    for (const body of inside) {
      const response = await put(body);
      expect({ body, status: response.status }).toEqual({ body, status: 200 });
      expect(response.body.settings).toMatchObject(body);
    }
    const outside: Array<[object, string]> = [
      [{ maxFileSize: MB - 1 }, 'Max file size must be between 1 and 100 MB'],
      [{ maxFileSize: 100 * MB + 1 }, 'Max file size must be between 1 and 100 MB'],
      [{ maxFiles: 0 }, 'Max files must be between 1 and 20'],
      [{ maxFiles: 21 }, 'Max files must be between 1 and 20'],
      [{ rateLimitMaxRequests: 0 }, 'Rate limit requests must be between 1 and 1000'],
      [{ rateLimitMaxRequests: 1001 }, 'Rate limit requests must be between 1 and 1000'],
      [{ rateLimitWindowMs: 59_999 }, 'Rate limit window must be between 1 and 60 minutes'],
      [{ rateLimitWindowMs: 3_600_001 }, 'Rate limit window must be between 1 and 60 minutes'],
      [{ maxFiles: 2.5 }, 'Max files must be a whole number'],
      [{ maxFiles: '5' }, 'Max files must be a number'],
      [{ systemName: '' }, 'System name is required'],
      [{ supportEmail: 'nope' }, 'Support e-mail must be a valid email address'],
      [{ corsOrigins: ['https://ok.example.com/path'] }, 'Each CORS origin must be like https://example.com (scheme, host and optional port, no path)'],
      [{ telegramWebhookUrl: 'http://insecure.example.com' }, 'Webhook URL must start with https://'],
      [{ maintenanceMode: 'yes' }, 'maintenanceMode must be true or false'],
      [{ telegramBotToken: 'not a token' }, 'That does not look like a Telegram bot token (it looks like 123456789:ABC-DEF...)'],
      [{ secret: 1 }, 'Unknown field: secret'],
    ];
    const before = await server.deps.events.headPosition();
    for (const [body, error] of outside) {
      const response = await put(body);
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error });
    }
    expect(await server.deps.events.headPosition()).toBe(before);
    await put({ maxFileSize: 10 * MB, maxFiles: 5, rateLimitMaxRequests: 1000, rateLimitWindowMs: 60_000 });
  });

  it('when a bot token is saved, then it is masked on read and the masked value sent back keeps it', async () => {
    const saved = await put({
      telegramBotToken: TOKEN,
      systemName: 'Acme Help',
      supportEmail: 'Help@Acme.example',
      corsOrigins: 'https://a.example.com, https://b.example.com/',
    });
    expect(saved.body.settings).toMatchObject({
      telegramBotToken: '123456789:********ests',
      systemName: 'Acme Help',
      supportEmail: 'help@acme.example',
      corsOrigins: ['https://a.example.com', 'https://b.example.com'],
    });
    expect(JSON.stringify(saved.body)).not.toContain(TOKEN);
    const roundTrip = await put({ ...saved.body.settings, systemName: 'Acme Support' });
    expect(roundTrip.status).toBe(200);
    expect(await server.request('GET', '/api/settings/telegram/status', { token: admin })).toEqual({
      status: 200,
      body: { status: 'active', botUsername: 'desk_bot' },
    });
    const history = await server.deps.events.readStream('settings-system');
    expect(history.at(-1)?.data).toEqual({ changes: { systemName: 'Acme Support' }, previous: { systemName: 'Acme Help' } });
    expect(history.at(-1)?.metadata.actor?.role).toBe('admin');
  });

  it('when the bot is tested, then getMe runs against the typed or stored token, and a missing token is named', async () => {
    expect(await server.request('POST', '/api/settings/telegram/test', { token: admin, body: {} })).toEqual({
      status: 200,
      body: { success: true, bot: { id: 123456789, username: 'desk_bot', firstName: 'Desk' } },
    });
    const wrong = await server.request('POST', '/api/settings/telegram/test', {
      token: admin,
      body: { telegramBotToken: '987654321:AAE-unknown_token-for-the-fake-api' },
    });
    expect(wrong).toEqual({ status: 200, body: { success: false, error: 'Telegram answered 401: Unauthorized' } });
    expect(telegram.calls.filter((call) => call.method === 'getMe').length).toBeGreaterThanOrEqual(2);

    await put({ telegramBotToken: '' });
    expect(await server.request('POST', '/api/settings/telegram/test', { token: admin, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'Please enter a Telegram bot token first.' },
    });
    expect((await server.request('GET', '/api/settings/telegram/status', { token: admin })).body.status).toBe('inactive');
    await put({ telegramBotToken: TOKEN });
  });

  it('when a non-admin calls any settings route, then it is 403 (401 without a token)', async () => {
    for (const token of [agent, customer]) {
      expect((await server.request('GET', '/api/settings', { token })).status).toBe(403);
      expect((await put({ maxFiles: 3 }, token)).status).toBe(403);
      expect((await server.request('GET', '/api/settings/telegram/status', { token })).status).toBe(403);
      expect((await server.request('POST', '/api/settings/telegram/test', { token, body: {} })).status).toBe(403);
    }
    expect((await server.request('GET', '/api/settings')).status).toBe(401);
    const open = await server.request('GET', '/api/settings/public');
    expect(open.body.settings).toEqual({
      systemName: 'Acme Support',
      supportEmail: 'help@acme.example',
      maintenanceMode: false,
      maxFileSize: 10 * MB,
      maxFiles: 5,
    });
  });

  it('when the rate limit is lowered, then it holds from the next change; reads have ten times as many; raised again, it lifts at once', async () => {
    await put({ rateLimitMaxRequests: 3 });
    // An empty ticket is refused (400), but it is a change all the same: the limit counts it.
    const change = (token: string) => server.request('POST', '/api/tickets', { token, body: {} });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await change(customer)).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    const refused = await change(customer);
    expect(refused).toMatchObject({
      status: 429,
      body: { code: 'RATE_LIMITED', error: expect.stringMatching(/^Too many requests\. Please try again in \d+ seconds\.$/) },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(20);
    // Reading goes on: reads have an allowance of their own, ten times the setting.
    const reads: number[] = [];
    for (let i = 0; i < 31; i++) reads.push((await server.request('GET', '/api/categories', { token: customer })).status);
    expect(reads).toEqual([...Array<number>(30).fill(200), 429]);
    // Another user has a count of their own; admins are never limited, so they can undo a bad value.
    expect((await change(agent)).status).toBe(400);
    expect((await server.request('GET', '/api/settings', { token: admin })).status).toBe(200);
    await put({ rateLimitMaxRequests: 1000 });
    expect((await change(customer)).status).toBe(400);
  });

  it('when maintenance mode is on, then everyone but admins gets 503 at once, sign-in and health still answer, and it lifts at once', async () => {
    await put({ maintenanceMode: true });
    const blocked = await server.request('GET', '/api/auth/profile', { token: customer });
    expect(blocked).toEqual({ status: 503, body: { error: 'Acme Support is down for maintenance. Please try again later.', code: 'MAINTENANCE' } });
    expect((await server.request('GET', '/api/categories', { token: agent })).status).toBe(503);
    expect(
      (
        await server.request('POST', '/api/auth/register', {
          body: { firstName: 'M', lastName: 'M', username: 'maint', email: 'm@example.com', password: 'secret-123' },
        })
      ).status,
    ).toBe(503);
    expect((await server.request('GET', '/api/health')).status).toBe(200);
    expect((await server.request('GET', '/api/settings/public')).body.settings.maintenanceMode).toBe(true);
    const adminAgain = await server.request('POST', '/api/auth/login', { body: { email: 'admin@example.com', password: 'admin-password-1' } });
    expect(adminAgain.status).toBe(200);
    expect((await server.request('GET', '/api/users', { token: adminAgain.body.accessToken })).status).toBe(200);
    await put({ maintenanceMode: false });
    expect((await server.request('GET', '/api/auth/profile', { token: customer })).status).toBe(200);
  });

  it('when a browser calls from another origin, then only the configured origins get CORS headers', async () => {
    const allowed = await fetch(`${server.url}/api/health`, { headers: { origin: 'https://a.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://a.example.com');
    const denied = await fetch(`${server.url}/api/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    await put({ corsOrigins: [] });
    const removed = await fetch(`${server.url}/api/health`, { headers: { origin: 'https://a.example.com' } });
    expect(removed.headers.get('access-control-allow-origin')).toBeNull();
  });
});
