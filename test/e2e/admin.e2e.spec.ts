/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, fieldValue, launchBrowser, shootBothThemes, signIn } from '../support/browser';
import { addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { type FakeTelegram, type TelegramUser, startFakeTelegram } from '../support/fakeTelegram';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const TOKEN = '737373:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 737373, username: 'desk_e2e_bot', firstName: 'Desk' };
const NEW_AGENT = { firstName: 'Nora', lastName: 'Newhire', username: 'nora_agent', email: 'nora@example.com', password: 'nora-password-1' };

/** The page's toast with this text (toasts are the app's alerts for admin actions). */
const toast = (page: Page, text: string) => page.locator('.toast').filter({ hasText: text });

describe('Web app in Chromium: administration screens', () => {
  let server: TestServer;
  let fake: FakeTelegram;
  let browser: Browser;
  let admin: Page;
  let adminToken: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fake = await startFakeTelegram();
    fake.addBot(TOKEN, BOT);
    server = await startTestServer({ env: { TELEGRAM_API_ROOT: fake.apiRoot } });
    adminToken = await server.login();
    browser = await launchBrowser();
    admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });

  it('when an admin adds an agent in the Admin Panel, then the agent can sign in', async () => {
    await admin.goto(`${server.url}/admin`);
    await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    for (const card of ['Total Users', 'Total Tickets', 'Categories', 'Active Agents']) await admin.getByRole('region', { name: card }).waitFor();
    await admin.getByText(/Welcome back, /).waitFor();
    const ownRow = admin.getByRole('row').filter({ hasText: ADMIN.email });
    expect(await ownRow.getByRole('button', { name: /^Delete/ }).isDisabled()).toBe(true);
    expect(await ownRow.getByTitle('Cannot delete your own account').count()).toBe(1);
    await shootBothThemes(admin, 'admin-users');

    await admin.getByRole('button', { name: 'Add User' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add New User' });
    await dialog.getByLabel('First Name').fill(NEW_AGENT.firstName);
    await dialog.getByLabel('Last Name').fill(NEW_AGENT.lastName);
    await dialog.getByLabel('Username').fill('Nora Agent!');
    expect(await dialog.getByLabel('Username').inputValue()).toBe('noraagent');
    await dialog.getByLabel('Username').fill(NEW_AGENT.username);
    await dialog.getByLabel('Email').fill(NEW_AGENT.email);
    await dialog.getByLabel('Password').fill('short');
    await dialog.getByLabel('Role').selectOption('agent');
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await dialog.getByText('Password must be at least 6 characters long').waitFor();
    await shootBothThemes(admin, 'admin-user-form');
    await dialog.getByLabel('Password').fill(NEW_AGENT.password);
    await dialog.getByRole('button', { name: 'Create User' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = admin.getByRole('row').filter({ hasText: NEW_AGENT.email });
    await row.getByText('Agent', { exact: true }).waitFor();
    await row.getByText('Never').waitFor();

    const agent = await (await browser.newContext()).newPage();
    await signIn(agent, server.url, NEW_AGENT.email, NEW_AGENT.password);
    await agent.getByRole('link', { name: 'Live Tickets' }).waitFor();
    await agent.context().close();
    await admin.reload();
    await row.getByText('Just now').waitFor();
  });

  it('when an admin deletes a user, then the confirmation asks first and the row goes', async () => {
    const doomed = await addMember(server, adminToken, 'customer', 'Doomed');
    await admin.reload();
    const row = admin.getByRole('row').filter({ hasText: doomed.email });
    await row.getByRole('button', { name: /^Delete/ }).click();
    const confirm = admin.getByRole('dialog', { name: 'Please confirm' });
    await confirm.getByText('Are you sure you want to delete this user? This action cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('when an admin adds a category with a custom field, then customers are asked it and the answer shows on the ticket', async () => {
    await admin.getByRole('tab', { name: 'Categories' }).click();
    await admin.getByRole('button', { name: 'Add Category' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add New Category' });
    await dialog.getByLabel('Name', { exact: true }).fill('Hardware');
    await dialog.getByLabel('Description').fill('Devices that arrived broken');
    await dialog.getByRole('button', { name: 'Add Field' }).click();
    await dialog.getByRole('button', { name: 'Create Category' }).click();
    await dialog.getByText('Field name is required').waitFor();
    const field = dialog.getByRole('group', { name: 'Custom field 1' });
    await field.getByLabel('Field Name').fill('serial');
    await field.getByLabel('Prompt').fill('Serial number');
    await field.getByLabel('Placeholder').fill('SN-00000');
    await field.getByLabel('Min Length').fill('5');
    await shootBothThemes(admin, 'admin-category-form');
    await dialog.getByRole('button', { name: 'Create Category' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByRole('article', { name: 'Hardware' }).getByText('Serial number').waitFor();
    await shootBothThemes(admin, 'admin-categories');

    const customer = await addMember(server, adminToken, 'customer', 'Hana');
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, customer.email, 'password-123');
    await page.getByRole('button', { name: 'Create New Ticket' }).click();
    const create = page.getByRole('dialog', { name: 'Create New Ticket' });
    await create.getByLabel('Category').selectOption({ label: 'Hardware' });
    await create.getByLabel('Title').fill('Laptop will not boot');
    await create.getByLabel('Description').fill('It arrived yesterday and shows a black screen.');
    await create.getByLabel(/Serial number/).fill('SN-1');
    await create.getByRole('button', { name: 'Create Ticket' }).click();
    await create.getByText('Serial number must be at least 5 characters').waitFor();
    await create.getByLabel(/Serial number/).fill('SN-12345');
    await create.getByRole('button', { name: 'Create Ticket' }).click();
    await page.waitForURL(/\/tickets\/[^/]+$/);
    const info = page.getByRole('region', { name: 'Ticket Information' });
    await info.getByText('Serial number').waitFor();
    await info.getByText('SN-12345').waitFor();
    await page.context().close();
  });

  it('when settings are out of bounds, then they are refused with the bound; a token is tested and saved', async () => {
    await admin.goto(`${server.url}/settings`);
    await admin.getByRole('heading', { name: 'System Settings' }).waitFor();
    await admin.getByLabel('Max File Size (MB)').fill('200');
    await admin.getByLabel('Max Files per Message').fill('50');
    await admin.getByRole('button', { name: 'Save Settings' }).click();
    await admin.getByText('Max file size must be between 1 and 100 MB').waitFor();
    await admin.getByText('Max files must be between 1 and 20').waitFor();
    await shootBothThemes(admin, 'settings-refused');
    await admin.reload();
    await fieldValue(admin.getByLabel('Max File Size (MB)'), '10');

    await admin.getByRole('button', { name: 'Test Bot' }).click();
    await admin.getByText('Please enter a Telegram bot token first.').waitFor();
    await admin.getByText('Please enter a Telegram bot token first.').waitFor({ state: 'detached', timeout: 7000 });
    await admin.getByLabel('Bot Token').fill('999:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await admin.getByRole('button', { name: 'Test Bot' }).click();
    await admin.getByText(/^Telegram bot test failed: /).waitFor();
    await admin.getByLabel('Bot Token').fill(TOKEN);
    await admin.getByRole('button', { name: 'Test Bot' }).click();
    await admin.getByText('Telegram bot is working correctly!').waitFor();
    await admin.getByLabel('Max File Size (MB)').fill('25');
    await admin.getByRole('button', { name: 'Save Settings' }).click();
    await admin.getByText('Settings saved successfully!').waitFor();
    await shootBothThemes(admin, 'settings');
    const stored = await server.request('GET', '/api/settings', { token: adminToken });
    expect(stored.body.settings).toMatchObject({ maxFileSize: 25 * 1024 * 1024, telegramBotToken: expect.stringMatching(/^737373:\*+/) });
    await eventually(() => fake.calls.some((call) => call.method === 'getUpdates'), { describe: 'the bot polling Telegram' });
  });

  it('when the bot is connected, then a new command is synced to Telegram and the bot messages are edited', async () => {
    await admin.goto(`${server.url}/admin`);
    await admin.getByRole('tab', { name: 'Bot Commands' }).click();
    await admin.getByText('Bot status:').getByText('Connected').waitFor();
    await admin.getByRole('article', { name: '/start' }).getByText('System').waitFor();
    await admin.getByRole('button', { name: 'Add Command' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add Bot Command' });
    await dialog.getByLabel('Command Name').fill('Opening Hours');
    expect(await dialog.getByLabel('Command Name').inputValue()).toBe('openinghours');
    await dialog.getByLabel('Command Name').fill('opening_hours');
    await dialog.getByLabel(/^Description/).fill('When we are open');
    await dialog.getByRole('button', { name: 'Create Command' }).click();
    await dialog.getByText('A response is required for a custom command').waitFor();
    await dialog.getByLabel(/^Custom Response/).fill('Monday to Friday, 9:00 to 17:00.');
    await dialog.getByRole('button', { name: 'Create Command' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByRole('article', { name: '/opening_hours' }).waitFor();

    await admin.getByRole('button', { name: 'Sync with Telegram' }).click();
    await toast(admin, 'Bot commands synced successfully with Telegram!').waitFor();
    const synced = fake.calls.filter((call) => call.method === 'setMyCommands').at(-1);
    expect(JSON.stringify(synced)).toContain('opening_hours');
    await shootBothThemes(admin, 'admin-bot-commands');

    await admin.getByRole('button', { name: 'Edit Bot Messages' }).click();
    const messages = admin.getByRole('dialog', { name: 'Edit Bot Messages' });
    await messages.getByLabel(/^Welcome message/).fill('Hello from the e2e desk! Use /ticket to begin.');
    await messages.getByText('46/1000').waitFor();
    await shootBothThemes(admin, 'admin-bot-messages');
    await messages.getByRole('button', { name: 'Save Messages' }).click();
    await toast(admin, 'Bot messages updated successfully!').waitFor();
    const stored = await server.request('GET', '/api/bot-settings', { token: adminToken });
    expect(stored.body.settings.messages.welcomeMessage).toBe('Hello from the e2e desk! Use /ticket to begin.');
  });

  it('when an agent adds a canned message and inserts it from Quick Messages, then its use count rises', async () => {
    const agentMember = await addMember(server, adminToken, 'agent', 'Quinn');
    const customer = await addMember(server, adminToken, 'customer', 'Rita');
    const categories = await server.request('GET', '/api/categories', { token: adminToken });
    const ticket = await openTicket(server, customer, categories.body.categories[0]._id, { customFieldValues: { serial: 'SN-55555' } });
    const agent = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(agent, server.url, agentMember.email, 'password-123');

    await agent.goto(`${server.url}/canned-messages`);
    await agent.getByText('No canned messages found. Create your first one!').waitFor();
    await agent.getByRole('button', { name: 'Add Canned Message' }).click();
    const dialog = agent.getByRole('dialog', { name: 'Add New Canned Message' });
    await dialog.getByLabel('Shortcode').fill('Thanks Much');
    expect(await dialog.getByLabel('Shortcode').inputValue()).toBe('thanks much');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Shortcode can only contain lowercase letters, numbers, underscores, and hyphens').waitFor();
    await dialog.getByText('Title is required').waitFor();
    await dialog.getByText('Content is required').waitFor();
    await dialog.getByLabel('Shortcode').fill('thanks');
    await dialog.getByLabel('Title').fill('Thank you');
    await dialog.getByLabel('Message Content').fill('Thank you for your patience, we are on it.');
    await dialog.getByText('42/2000 characters').waitFor();
    await shootBothThemes(agent, 'canned-form');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await agent.getByText('Canned message created successfully!').waitFor();
    const card = agent.getByRole('article', { name: '#thanks' });
    await card.getByText('0 uses').waitFor();
    expect(await card.getByRole('button', { name: /^Delete/ }).count()).toBe(0);

    await agent.goto(`${server.url}/tickets/${ticket._id}`);
    const quick = agent.getByRole('region', { name: 'Quick Messages' });
    await quick.getByRole('button', { name: /#thanks/ }).click();
    await fieldValue(agent.getByRole('textbox', { name: 'Message' }), 'Thank you for your patience, we are on it.');
    await quick.getByText('1 use', { exact: true }).waitFor();
    await agent.goto(`${server.url}/canned-messages`);
    await agent.getByRole('article', { name: '#thanks' }).getByText('1 use', { exact: true }).waitFor();
    await shootBothThemes(agent, 'canned-messages');
    await agent.context().close();

    await admin.goto(`${server.url}/canned-messages`);
    await admin.getByRole('button', { name: 'Delete #thanks' }).click();
    const confirm = admin.getByRole('dialog', { name: 'Please confirm' });
    await confirm.getByText('Are you sure you want to delete this canned message?').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await admin.getByText('Canned message deleted successfully!').waitFor();
    await admin.getByText('No canned messages found. Create your first one!').waitFor();
  });

  it('when a stranger writes to the bot, then the admin approves the request and the entry appears in the table', async () => {
    const stranger: TelegramUser = { id: 5005, first_name: 'Sam', last_name: 'Stranger', username: 'sam_tg' };
    const before = fake.messagesTo(stranger.id).length;
    fake.sendText(TOKEN, stranger, 'Hello, I need help with my order');
    await eventually(() => fake.messagesTo(stranger.id).length > before, { describe: 'the bot answering the stranger' });

    await admin.goto(`${server.url}/telegram-whitelist`);
    await admin.getByText('Manage allowed Telegram users').waitFor();
    await admin.getByText('No whitelisted users yet').waitFor();
    const request = admin.getByRole('listitem', { name: 'Request from @sam_tg' });
    await admin.getByText('1 pending').waitFor();
    await request.getByText('ID: 5005').waitFor();
    await request.getByText('Hello, I need help with my order').waitFor();
    await shootBothThemes(admin, 'whitelist-pending');
    await request.getByRole('button', { name: 'Approve' }).click();
    await admin.getByText('Approved sam_tg and added to whitelist').waitFor();
    await request.waitFor({ state: 'detached' });
    const row = admin.getByRole('row').filter({ hasText: '5005' });
    await row.getByText('@sam_tg').waitFor();
    await row.getByText('Active', { exact: true }).waitFor();
    await eventually(() => fake.messagesTo(stranger.id).length > before + 1, { describe: 'the bot telling the stranger they may now write' });

    await row.getByRole('button', { name: 'Deactivate 5005' }).click();
    await admin.getByText('User deactivated successfully').waitFor();
    await row.getByText('Inactive').waitFor();

    await admin.getByRole('button', { name: 'Add Telegram ID' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add Telegram ID' });
    await dialog.getByRole('button', { name: 'Add to Whitelist' }).click();
    await dialog.getByText('Telegram ID is required').waitFor();
    await dialog.getByLabel('Telegram ID').fill('777000');
    await dialog.getByLabel('Notes').fill('Our own test phone');
    await dialog.getByRole('button', { name: 'Add to Whitelist' }).click();
    await admin.getByText('Telegram ID added to whitelist').waitFor();
    await admin.getByPlaceholder('Search by Telegram ID, username, or name...').fill('SAM');
    await eventually(async () => (await admin.getByRole('row').count()) === 2, { describe: 'the header row and the one matching entry' });
    await admin.getByPlaceholder('Search by Telegram ID, username, or name...').fill('nobody');
    await admin.getByText('No entries match your search').waitFor();
    await admin.getByPlaceholder('Search by Telegram ID, username, or name...').fill('');
    await shootBothThemes(admin, 'whitelist');

    await admin.getByRole('button', { name: 'Delete 777000' }).click();
    const confirm = admin.getByRole('dialog', { name: 'Please confirm' });
    await confirm.getByText('Are you sure you want to permanently delete this entry? This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await admin.getByText('Entry permanently deleted').waitFor();
    await admin.getByRole('row').filter({ hasText: '777000' }).waitFor({ state: 'detached' });
  });

  it('when a bot message fails for good, then the admin sees it under Deliveries with its reason, retries it there and it arrives; failed ones can be discarded at once', async () => {
    const tess: TelegramUser = { id: 5006, first_name: 'Tess' };
    await server.request('POST', '/api/whitelist', { token: adminToken, body: { telegramId: '5006', firstName: 'Tess' } });
    fake.failNext('sendMessage', 1, { status: 403, description: 'Forbidden: bot was blocked by the user' });
    fake.sendText(TOKEN, tess, '/start');
    await eventually(async () => (await server.request('GET', '/api/health')).body.status === 'degraded', { describe: 'the refused reply failing' });

    await admin.goto(`${server.url}/admin`);
    await admin.getByRole('tab', { name: 'Deliveries' }).click();
    const panel = admin.getByRole('tabpanel', { name: 'Deliveries' });
    await panel.getByText('0 pending · 0 retrying · 1 failed · 0 incoming').waitFor();
    const row = panel.getByRole('row').filter({ hasText: '5006' });
    await row.getByText('Failed').waitFor();
    await row.getByText('Telegram answered 403: Forbidden: bot was blocked by the user').waitFor();
    await shootBothThemes(admin, 'admin-deliveries');
    expect(fake.messagesTo(tess.id)).toEqual([]);

    await row.getByRole('button', { name: 'Retry Bot reply to Tess User' }).click();
    await toast(admin, 'Delivery queued again').waitFor();
    await eventually(() => fake.messagesTo(tess.id).length === 1, { describe: 'the retried reply' });
    await panel.getByText('Every notice has been delivered').waitFor({ timeout: 15_000 });
    expect((await server.health()).body.status).toBe('ok');

    fake.failNext('sendMessage', 2, { status: 400, description: 'Bad Request: chat not found' });
    fake.sendText(TOKEN, tess, '/help');
    fake.sendText(TOKEN, tess, '/nonsense');
    await panel.getByText('0 pending · 0 retrying · 2 failed · 0 incoming').waitFor({ timeout: 15_000 });
    await panel.getByRole('button', { name: 'Discard all failed' }).click();
    const confirm = admin.getByRole('dialog', { name: 'Please confirm' });
    await confirm.getByText('Discard every failed notice? Their recipients will never get them.').waitFor();
    await confirm.getByRole('button', { name: 'Discard' }).click();
    await toast(admin, 'Discarded 2 deliveries').waitFor();
    await panel.getByText('Every notice has been delivered').waitFor();
    expect(fake.messagesTo(tess.id)).toHaveLength(1);
  });
});
