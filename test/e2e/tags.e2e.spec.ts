/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, launchBrowser, signIn } from '../support/browser';
import { addCategory, addMember, openTicket } from '../support/desk';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

describe('Web app in Chromium: the Admin Panel Tags tab (docs/teams.md)', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: Page;
  let tickets: Array<{ _id: string }>;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const adminToken = await server.login();
    const agent = await addMember(server, adminToken, 'agent', 'Alice');
    const category = await addCategory(server, adminToken);
    const customers = await Promise.all(['Eve', 'Finn'].map((name) => addMember(server, adminToken, 'customer', name)));
    tickets = [];
    for (const customer of customers) {
      const ticket = await openTicket(server, customer, category);
      await server.request('POST', `/api/tickets/${ticket._id}/tags`, { token: agent.token, body: { tag: 'refund' } });
      tickets.push(ticket);
    }
    browser = await launchBrowser();
    admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when an admin renames a tag and confirms, then every ticket carries the new name and the list shows its count', async () => {
    await admin.goto(`${server.url}/admin?tab=Tags`);
    const row = admin.getByRole('row').filter({ hasText: 'refund' });
    await row.getByRole('cell', { name: '2' }).waitFor();
    await row.getByRole('button', { name: 'Rename tag refund' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Rename the tag "refund"' });
    await dialog.getByLabel('New name').fill('Two words');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'A tag is 1 to 30 lowercase letters' }).waitFor();
    await dialog.getByLabel('New name').fill('refunds');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    const confirm = admin.getByRole('dialog', { name: 'Please confirm' });
    await confirm.getByText('Rename the tag "refund" to "refunds" on 2 tickets?').waitFor();
    await confirm.getByRole('button', { name: 'Rename' }).click();
    await admin.locator('.toast').filter({ hasText: 'Renamed "refund" to "refunds" on 2 tickets' }).waitFor();
    await admin.getByRole('row').filter({ hasText: 'refunds' }).getByRole('cell', { name: '2' }).waitFor();
    const token = await server.login();
    for (const ticket of tickets) expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token })).body.ticket.tags).toEqual(['refunds']);
  });
});
