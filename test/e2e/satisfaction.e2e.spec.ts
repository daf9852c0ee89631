/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/** From a resolution to the customer's rating on the ticket page, to the CSAT on the agent's dashboard. */
describe('Web app in Chromium: customer satisfaction', () => {
  let server: TestServer;
  let browser: Browser;
  let customerPage: Page;
  let agentPage: Page;
  let alice: Member;
  let carol: Member;
  let ticket: { _id: string; ticketId: number };

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Scanners' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
    ticket = await openTicket(server, carol, category, { title: 'Scanner offline' });
    await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: alice.token, body: { agentId: alice.id } });
    browser = await launchBrowser();
    customerPage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    agentPage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(customerPage, server.url, carol.email, 'password-123');
    await signIn(agentPage, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when the agent resolves the ticket, then the customer is asked on the ticket, rates and comments, and the dashboard shows it', async () => {
    await customerPage.goto(`${server.url}/tickets/${ticket._id}`);
    await customerPage.getByText('Scanner offline').first().waitFor();
    const prompt = customerPage.getByRole('region', { name: 'How would you rate the support you received?' });
    expect(await prompt.count()).toBe(0);

    const resolved = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: alice.token, body: { status: 'resolved' } });
    expect(resolved.status).toBe(200);
    // The resolution comes in live; the prompt appears without a reload.
    await prompt.waitFor();
    // The details column speaks to the customer, not about them.
    const waiting = customerPage.getByRole('region', { name: 'Satisfaction' });
    await waiting.getByText('Not rated yet').waitFor();
    expect(await waiting.getByText('Waiting for the customer’s rating').count()).toBe(0);
    await prompt.getByRole('button', { name: '4 · Good' }).click();
    await prompt.getByText('You rated 4 of 5 (Good)').waitFor();
    await prompt.getByLabel('Anything to add?').fill('<b>Fast</b> and friendly');
    await prompt.getByRole('button', { name: 'Send comment' }).click();
    await prompt.getByText('Your comment is saved.').waitFor();
    const details = customerPage.getByRole('region', { name: 'Satisfaction' });
    await details.getByText('4 of 5 (Good)').waitFor();
    // Shown as text, never as markup.
    await details.getByText('<b>Fast</b> and friendly').waitFor();

    await agentPage.goto(`${server.url}/dashboard`);
    const card = agentPage.getByRole('region', { name: 'Customer satisfaction (30 days)' });
    await card.getByText('CSAT 100%').waitFor();
    await card.getByText('1 rated of 1 resolutions').waitFor();
    await card.getByRole('row', { name: /Alice Tester 100% 100% 1 \/ 1/ }).waitFor();
    await card.getByText('<b>Fast</b> and friendly').waitFor();

    // Live Tickets: the table's Rating column (under All: a rated ticket is resolved work), and the filters by rating.
    await agentPage.goto(`${server.url}/live-tickets?filter=all`);
    await agentPage.getByRole('button', { name: 'Table' }).click();
    const row = agentPage.getByRole('row', { name: /Scanner offline/ });
    await row.getByLabel('Rated 4 of 5').waitFor();
    await agentPage.getByRole('button', { name: 'Rated 1–2' }).click();
    await agentPage.getByText('No tickets found').waitFor();
    await agentPage.getByRole('button', { name: 'Awaiting Rating' }).click();
    await agentPage.getByText('No tickets found').waitFor();
  });
});
