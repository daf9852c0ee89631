/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, oneSlaPolicy, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

const targets = { firstResponse: 60, nextResponse: 45, resolution: 480 };

/** A customer's reply on a ticket waiting on them puts it back in front of its agent (issue 50, docs/tickets.md, reopening). */
describe('Web app in Chromium: a customer’s reply reopens the ticket', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let alice: Member;
  let admin: string;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    category = await addCategory(server, admin, { name: 'Printers' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    const settings = oneSlaPolicy(targets);
    expect((await server.request('PUT', '/api/sla/settings', { token: admin, body: settings })).status).toBe(200);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when the customer replies on a ticket waiting on them, then within 1 s it is in the agent’s “Mine, waiting on us” and its SLA chip counts again', async () => {
    const carol = await addMember(server, admin, 'customer', 'Carol');
    const ticket = await openTicket(server, carol, category, { title: 'Toner smudges' });
    const ask = async (method: string, url: string, token: string, body: unknown) =>
      expect((await server.request(method, url, { token, body })).status).toBeLessThan(300);
    await ask('POST', `/api/tickets/${ticket._id}/assign`, alice.token, { agentId: alice.id });
    await ask('POST', `/api/tickets/${ticket._id}/messages`, alice.token, { content: 'Which toner cartridge is it?' });
    await ask('PUT', `/api/tickets/${ticket._id}`, alice.token, { status: 'pending_customer' });

    // While it waits on the customer, its clock stands still and it is not waiting on us.
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('button', { name: 'Table' }).click();
    const row = page.getByRole('row', { name: /Toner smudges/ });
    await row.locator('.sla-chip[data-sla="paused"]').waitFor();
    await page.getByRole('button', { name: 'Mine, waiting on us' }).click();
    await page.getByText('No tickets found').waitFor();
    expect(await row.count()).toBe(0);

    await ask('POST', `/api/tickets/${ticket._id}/messages`, carol.token, { content: 'The black one, TN-2420' });
    const answered = Date.now();
    await row.waitFor({ timeout: 1000 });
    const chip = row.locator('.sla-chip');
    await chip.filter({ hasText: /Next response due in \d+ m/ }).waitFor({ timeout: 1000 - (Date.now() - answered) });
    expect(['due', 'soon']).toContain(await chip.getAttribute('data-sla'));
    expect(await row.textContent()).toMatch(/open/);
  });
});
