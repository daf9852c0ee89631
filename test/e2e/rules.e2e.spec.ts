/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const PASSWORD = 'password-123';

describe('Web app in Chromium: a trigger an admin builds routes tickets, and says so (docs/automation.md)', () => {
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

  it('when an admin builds the urgent-Billing routing rule in the form, then a customer’s urgent ticket is with the team within 1 s and its history names the rule and its version', async () => {
    const token = await server.login();
    await addCategory(server, token, { name: 'Billing' });
    const customer = await addMember(server, token, 'customer', 'Hugo');
    expect((await server.request('POST', '/api/teams', { token, body: { name: 'Payments' } })).status).toBe(201);

    await admin.goto(`${server.url}/admin?tab=Rules`);
    await admin.getByRole('button', { name: 'Add Rule' }).click();
    const form = admin.getByRole('dialog', { name: 'Add New Rule' });
    await form.getByLabel('Rule Name').fill('Route urgent billing');
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Condition 1 field').selectOption({ label: 'Priority' });
    await form.getByLabel('Condition 1 value').selectOption({ label: 'urgent' });
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Condition 2 field').selectOption({ label: 'Category' });
    await form.getByLabel('Condition 2 value').selectOption({ label: 'Billing' });
    await form.getByLabel('Action 1', { exact: true }).selectOption({ label: 'Put with team' });
    await form.getByLabel('Action 1 value').selectOption({ label: 'Payments' });
    await form.getByRole('button', { name: 'Create Rule' }).click();
    await form.waitFor({ state: 'detached' });
    const card = admin.getByRole('article', { name: 'Route urgent billing' });
    await card.getByText('When a ticket is created').waitFor();
    // Switched off and on again: version 3 is the one that acts.
    await card.getByRole('button', { name: 'Switch off' }).click();
    await card.getByRole('button', { name: 'Switch on' }).click();
    await card.getByText(/v3 · fired 0 times/).waitFor();

    const asCustomer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(asCustomer, server.url, customer.email, PASSWORD);
    await asCustomer.getByRole('button', { name: 'Create New Ticket' }).click();
    const create = asCustomer.getByRole('dialog', { name: 'Create New Ticket' });
    await create.getByLabel('Category').selectOption({ label: 'Billing' });
    await create.getByLabel('Priority').selectOption('urgent');
    await create.getByLabel('Title').fill('Charged twice in March');
    await create.getByLabel('Description').fill('My March invoice shows the same charge twice.');
    const sentAt = Date.now();
    await create.getByRole('button', { name: 'Create Ticket' }).click();
    await asCustomer.waitForURL(/\/tickets\/[^/]+$/);
    const ticketId = asCustomer.url().split('/').at(-1)!;
    await eventually(async () => (await server.request('GET', `/api/tickets/${ticketId}`, { token })).body.ticket.team?.name === 'Payments', {
      describe: 'the ticket is with Payments',
    });
    const routedIn = Date.now() - sentAt;
    expect(routedIn).toBeLessThan(1000);
    await asCustomer.context().close();

    await admin.goto(`${server.url}/tickets/${ticketId}`);
    await admin.getByText('Team: Payments').waitFor();
    await admin.getByRole('button', { name: 'Show history' }).click();
    const panel = admin.locator('.history-panel');
    await panel.getByText('Rule "Route urgent billing" (v3): put the ticket with the team "Payments"').waitFor();
    await panel.getByText('Rule "Route urgent billing" (v3) ran because a ticket is created and priority is urgent and category is "Billing"').waitFor();

    await admin.goto(`${server.url}/admin?tab=Rules`);
    await admin.getByRole('button', { name: 'Details of Route urgent billing' }).click();
    const details = admin.getByRole('dialog', { name: 'Rule "Route urgent billing" (v3)' });
    await details.getByText('Fired 1 time').waitFor();
    await details.getByRole('list', { name: 'Firings' }).getByText(/#1001/).waitFor();
  }, 60_000);

  it('when an admin builds in the form a time rule closing tickets resolved for 2 seconds, then a resolved ticket is closed once its time passes and its history names the rule and its version', async () => {
    const token = await server.login();
    const category = await addCategory(server, token, { name: 'Returns' });

    await admin.goto(`${server.url}/admin?tab=Rules`);
    await admin.getByRole('button', { name: 'Add Rule' }).click();
    const form = admin.getByRole('dialog', { name: 'Add New Rule' });
    await form.getByLabel('Rule Name').fill('Auto-close after 2 seconds');
    await form.getByRole('radio', { name: 'A ticket has matched the conditions for…' }).check();
    await form.getByLabel('Wait', { exact: true }).fill('2');
    await form.getByLabel('Wait unit').selectOption('seconds');
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Condition 1 field').selectOption({ label: 'Status' });
    await form.getByLabel('Condition 1 value').selectOption({ label: 'resolved' });
    await form.getByLabel('Action 1', { exact: true }).selectOption({ label: 'Set status' });
    await form.getByLabel('Action 1 value').selectOption({ label: 'closed' });
    await form.getByRole('button', { name: 'Create Rule' }).click();
    await form.waitFor({ state: 'detached' });
    await admin.getByRole('article', { name: 'Auto-close after 2 seconds' }).getByText('When a ticket has matched for 2 seconds').waitFor();

    const ticket = await openTicket(server, await addMember(server, token, 'customer', 'Ines'), category, { title: 'Parcel came back' });
    expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token, body: { status: 'resolved' } })).status).toBe(200);
    await eventually(async () => (await server.request('GET', `/api/tickets/${ticket._id}`, { token })).body.ticket.status === 'closed', {
      describe: 'the resolved ticket is closed',
    });

    await admin.goto(`${server.url}/tickets/${ticket._id}`);
    await admin.getByRole('button', { name: 'Show history' }).click();
    const panel = admin.locator('.history-panel');
    await panel.getByText('Rule "Auto-close after 2 seconds" (v1): changed the status from resolved to closed').waitFor();
    await panel
      .getByText(/^Rule "Auto-close after 2 seconds" \(v1\) ran because the ticket has matched for 2 seconds \(since .+\) and status is resolved$/)
      .waitFor();
  }, 60_000);
});
