/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { addMember } from '../support/desk';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const PASSWORD = 'password-123';

describe('Web app in Chromium: teams share the work (docs/teams.md)', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: Page;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const addTeam = async (name: string, member?: string) => {
    await admin.getByRole('button', { name: 'Add Team' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add New Team' });
    await dialog.getByLabel('Team Name').fill(name);
    if (member) await dialog.getByRole('checkbox', { name: new RegExp(member) }).check();
    await dialog.getByRole('button', { name: 'Create Team' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByRole('article', { name }).waitFor();
  };

  it('when an admin routes a category to a team, then a customer’s new ticket there is with that team, and its agent finds it under My Teams', async () => {
    const token = await server.login();
    const agent = await addMember(server, token, 'agent', 'Paula');
    const customer = await addMember(server, token, 'customer', 'Hugo');

    await admin.goto(`${server.url}/admin?tab=Teams`);
    await addTeam('Payments', 'Paula');
    await addTeam('Hardware Support');
    await admin.getByRole('article', { name: 'Payments' }).getByText('Paula Tester').waitFor();

    await admin.getByRole('tab', { name: 'Categories' }).click();
    await admin.getByRole('button', { name: 'Add Category' }).click();
    const category = admin.getByRole('dialog', { name: 'Add New Category' });
    await category.getByLabel('Name', { exact: true }).fill('Invoices');
    await category.getByLabel('Route new tickets to team').selectOption({ label: 'Payments' });
    await category.getByRole('button', { name: 'Create Category' }).click();
    await category.waitFor({ state: 'detached' });

    const asCustomer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(asCustomer, server.url, customer.email, PASSWORD);
    await asCustomer.getByRole('button', { name: 'Create New Ticket' }).click();
    const create = asCustomer.getByRole('dialog', { name: 'Create New Ticket' });
    await create.getByLabel('Category').selectOption({ label: 'Invoices' });
    await create.getByLabel('Title').fill('Charged twice in March');
    await create.getByLabel('Description').fill('My March invoice shows the same charge twice.');
    await create.getByRole('button', { name: 'Create Ticket' }).click();
    await asCustomer.waitForURL(/\/tickets\/[^/]+$/);
    const ticketUrl = asCustomer.url();
    await asCustomer.getByRole('heading', { name: 'Charged twice in March' }).waitFor();
    // Teams are staff's: the customer is not shown one.
    expect(await asCustomer.getByText('Team: Payments').count()).toBe(0);
    await asCustomer.context().close();

    const asAgent = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(asAgent, server.url, agent.email, PASSWORD);
    await asAgent.goto(ticketUrl);
    await asAgent.getByText('Team: Payments').waitFor();
    expect(await asAgent.getByLabel('Team', { exact: true }).inputValue()).not.toBe('');

    await asAgent.goto(`${server.url}/live-tickets`);
    await asAgent.getByRole('heading', { name: 'Live Tickets' }).waitFor();
    const teamFilter = asAgent.getByLabel('Filter by team');
    await teamFilter.selectOption({ label: 'Hardware Support' });
    await asAgent.getByText('There are no tickets matching your current filter').waitFor();
    await teamFilter.selectOption({ label: 'My Teams' });
    await asAgent.getByRole('heading', { name: 'Charged twice in March' }).waitFor();
    expect(new URL(asAgent.url()).searchParams.get('team')).toBe('mine');
    await teamFilter.selectOption({ label: 'Payments' });
    const card = asAgent.locator('.live-card').filter({ hasText: 'Charged twice in March' });
    await card.getByText('Payments').waitFor();
    await asAgent.context().close();
  });
});
