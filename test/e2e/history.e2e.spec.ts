/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, launchBrowser, messageList, shootBothThemes, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/** The auditor's History panel: timeline, hash-chain status, scrubbing back in time, edited messages. */
describe('Web app in Chromium: the History panel of a ticket', () => {
  let server: TestServer;
  let browser: Browser;
  let agentPage: Page;
  let alice: Member;
  let carol: Member;
  let ticket: { _id: string; ticketId: number };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Printers', color: '#2456d6' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
    ticket = await openTicket(server, carol, category, { title: 'Printer jams', description: 'Every second page', priority: 'high' });
    const ask = async (method: string, url: string, token: string, body?: unknown) => {
      const answer = await server.request(method, url, { token, ...(body ? { body } : {}) });
      if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status}`);
      return answer.body;
    };
    await ask('POST', `/api/tickets/${ticket._id}/assign`, alice.token, { agentId: alice.id });
    await ask('POST', `/api/tickets/${ticket._id}/messages`, alice.token, { content: 'Which tray do you use?' });
    const posted = await ask('POST', `/api/tickets/${ticket._id}/messages`, carol.token, { content: 'Tray one' });
    await ask('PUT', `/api/messages/${posted.message._id}`, carol.token, { content: 'Tray two, sorry' });
    await ask('POST', `/api/tickets/${ticket._id}/messages`, alice.token, { content: 'Roller worn out', isInternal: true });
    await ask('PUT', `/api/tickets/${ticket._id}/outcome`, alice.token, { outcomeMessage: 'Replaced the roller' });
    browser = await launchBrowser();
    agentPage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(agentPage, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const panel = () => agentPage.locator('.history-panel');
  const asOf = (revision: number) => agentPage.getByRole('region', { name: `Ticket as of revision ${revision}` });

  it('when staff open the History panel, then the timeline lists every event and the chain is verified', async () => {
    await agentPage.goto(`${server.url}/tickets/${ticket._id}`);
    await agentPage.getByRole('button', { name: 'Show history' }).click();
    await panel().getByText('Verified').waitFor();
    await panel()
      .getByText(/Hash chain intact over \d+ events/)
      .waitFor();
    const timeline = panel().getByRole('list', { name: 'Timeline' });
    await timeline.getByText('Edited a message from "Tray one" to "Tray two, sorry"').waitFor();
    const entries = await timeline.getByRole('listitem').count();
    expect(entries).toBeGreaterThanOrEqual(8);
    // The scrubber starts at the latest revision: the ticket as it is now.
    await panel()
      .getByText(`Revision ${entries - 1} of ${entries - 1}`)
      .waitFor();
    await asOf(entries - 1)
      .getByText('Replaced the roller')
      .waitFor();
    await shootBothThemes(agentPage, 'ticket-history');
  });

  it('when the scrubber goes back, then the ticket shows as it was: opened, then assigned', async () => {
    await panel()
      .getByRole('button', { name: /^Revision 0: Opened ticket/ })
      .click();
    const opened = asOf(0);
    await opened.getByText('No messages yet at this moment.').waitFor();
    expect(await opened.locator('dd').allTextContents()).toEqual(['Printer jams', 'open', 'high', 'Printers', 'Unassigned', 'No team', 'None yet']);
    const slider = panel().getByRole('slider', { name: "Moment in the ticket's history" });
    await slider.focus();
    await agentPage.keyboard.press('ArrowRight');
    await asOf(1).getByText('Alice Tester').waitFor();
    await panel().getByRole('button', { name: 'Next' }).click();
    await asOf(2).getByText('in progress').waitFor();
  });

  it('when an edited message is reached, then it reads as it did and its earlier version can be revealed', async () => {
    const before = await panel()
      .getByRole('button', { name: /Sent a message "Tray one"/ })
      .getAttribute('aria-label');
    const revision = Number(/^Revision (\d+)/.exec(before ?? '')![1]);
    await panel()
      .getByRole('button', { name: /Sent a message "Tray one"/ })
      .click();
    await asOf(revision).getByText('Tray one', { exact: true }).waitFor();
    await panel()
      .getByRole('button', { name: /Edited a message/ })
      .click();
    const edited = asOf(revision + 1);
    await edited.getByText('Tray two, sorry').waitFor();
    expect(await edited.getByText('Tray one', { exact: true }).count()).toBe(0);
    await edited.getByRole('button', { name: '(edited: show 1 earlier version)' }).click();
    await edited.getByRole('list', { name: 'Earlier versions' }).getByText('Tray one').waitFor();
    await shootBothThemes(agentPage, 'ticket-history-edited');
  });

  it('when the ticket changes while the panel is open, then the timeline and the latest moment follow', async () => {
    await panel().getByRole('button', { name: 'Latest' }).click();
    const count = await panel().getByRole('list', { name: 'Timeline' }).getByRole('listitem').count();
    expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: alice.token, body: { status: 'resolved' } })).status).toBe(200);
    await panel().getByText('Changed the status from in progress to resolved').waitFor();
    await panel().getByText(`Revision ${count} of ${count}`).waitFor();
    await asOf(count).getByText('resolved').waitFor();
  });

  it('when the customer opens their ticket, then there is no History panel', async () => {
    const customerPage = await (await browser.newContext()).newPage();
    await signIn(customerPage, server.url, carol.email, 'password-123');
    await customerPage.goto(`${server.url}/tickets/${ticket._id}`);
    await messageList(customerPage).getByText('Tray two, sorry').waitFor();
    expect(await customerPage.getByRole('button', { name: 'Show history' }).count()).toBe(0);
    await customerPage.context().close();
  });
});
