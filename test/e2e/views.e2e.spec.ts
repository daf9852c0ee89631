/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

const PASSWORD = 'password-123';

describe('Web app in Chromium: saved views (docs/views.md)', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const staffPage = async (email: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signIn(page, server.url, email, PASSWORD);
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('heading', { name: 'Live Tickets' }).waitFor();
    return page;
  };

  it('when an agent shares a view with their team, then a teammate sees its count go up as a customer opens a matching ticket, without reloading', async () => {
    const token = await server.login();
    const [paula, quinn, customer] = await Promise.all([
      addMember(server, token, 'agent', 'Paula'),
      addMember(server, token, 'agent', 'Quinn'),
      addMember(server, token, 'customer', 'Hugo'),
    ]);
    const team = (await server.request('POST', '/api/teams', { token, body: { name: 'Payments', members: [paula.id, quinn.id] } })).body.team._id as string;
    const category = (await server.request('POST', '/api/categories', { token, body: { name: 'Invoices', routeTeamId: team } })).body.category._id as string;

    const asPaula = await staffPage(paula.email);
    await asPaula.getByLabel('Filter by team').selectOption({ label: 'Payments' });
    await asPaula.getByRole('button', { name: 'Save view' }).click();
    const dialog = asPaula.getByRole('dialog', { name: 'Save view' });
    await dialog.getByLabel('Name').fill('Payments open');
    await dialog.getByLabel('Share with').selectOption({ label: 'Team: Payments' });
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await asPaula.waitForURL(/\?view=/);
    expect(await asPaula.getByRole('button', { name: /^Payments open/ }).getAttribute('aria-pressed')).toBe('true');

    const asQuinn = await staffPage(quinn.email);
    const viewButton = asQuinn.getByRole('button', { name: /^Payments open/ });
    const count = viewButton.locator('.view-count');
    await count.filter({ hasText: /^0$/ }).waitFor();
    await asQuinn.evaluate(() => Object.assign(window, { notReloaded: true }));

    await openTicket(server, customer, category, { title: 'Charged twice in March' });
    await count.filter({ hasText: /^1$/ }).waitFor({ timeout: 5000 });
    expect(await asQuinn.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

    // Chosen, the view lists the ticket and keeps itself in the address.
    await viewButton.click();
    await asQuinn.waitForURL(/\?view=/);
    await asQuinn.getByRole('heading', { name: 'Charged twice in March' }).waitFor();
  });
});
