/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/** Merging a duplicate from the ticket page, following the redirect, undoing it, and splitting a message out (docs/tickets.md). */
describe('Web app in Chromium: merging tickets', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let alice: Member;
  let dave: Member;
  let target: { _id: string; ticketId: number };
  let source: { _id: string; ticketId: number };
  let dupes: Array<{ _id: string; ticketId: number }>;
  let strangers: { _id: string; ticketId: number };
  let davePage: Page;

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Printers' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    const carol = await addMember(server, admin, 'customer', 'Carol');
    const ask = async (method: string, url: string, token: string, body?: unknown) => {
      const answer = await server.request(method, url, { token, ...(body ? { body } : {}) });
      if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status}`);
      return answer.body;
    };
    target = await openTicket(server, carol, category, { title: 'Printer jams' });
    await ask('POST', `/api/tickets/${target._id}/messages`, carol.token, { content: 'First jam on Monday' });
    await ask('PUT', `/api/tickets/${target._id}`, alice.token, { status: 'closed' });
    source = await openTicket(server, carol, category, { title: 'Printer jams again' });
    // Answered, so that moving the later message out may resolve it (a split never resolves an unanswered question).
    await ask('POST', `/api/tickets/${source._id}/messages`, alice.token, { content: 'Which tray jams?' });
    await ask('POST', `/api/tickets/${source._id}/messages`, carol.token, { content: 'Jammed again on Friday' });
    // For merging from the table: two tickets of Dave (one closed, one open), and one of Erin.
    dave = await addMember(server, admin, 'customer', 'Dave');
    const erin = await addMember(server, admin, 'customer', 'Erin');
    const daveFirst = await openTicket(server, dave, category, { title: 'Scanner streaks' });
    await ask('PUT', `/api/tickets/${daveFirst._id}`, alice.token, { status: 'resolved' });
    dupes = [daveFirst, await openTicket(server, dave, category, { title: 'Scanner streaks still' })];
    await ask('POST', `/api/tickets/${dupes[1]!._id}/messages`, dave.token, { content: 'Grey lines on every page' });
    strangers = await openTicket(server, erin, category, { title: 'Scanner offline' });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, alice.email, 'password-123');
    davePage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(davePage, server.url, dave.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when an agent picks the customer’s other ticket and confirms, then the target shows both conversations, marked', async () => {
    await page.goto(`${server.url}/tickets/${source._id}`);
    const others = page.getByRole('list', { name: 'Other tickets of this customer' });
    await others.getByRole('listitem').filter({ hasText: 'Printer jams' }).getByRole('button', { name: 'Pick' }).click();
    expect(await page.getByLabel('Ticket number').inputValue()).toBe(String(target.ticketId));
    await page.getByRole('button', { name: 'Merge into...' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge tickets' });
    await dialog.getByText(`#${target.ticketId} Printer jams (Carol Tester)`).waitFor();
    await dialog.getByText(`#${source.ticketId} Printer jams again (Carol Tester)`).waitFor();
    await dialog.getByRole('button', { name: 'Confirm merge' }).click();
    await page.waitForURL(`**/tickets/${target._id}`);
    await messageList(page).getByText('Jammed again on Friday').waitFor();
    await messageList(page).getByText(`Merged from #${source.ticketId}`).first().waitFor();
    await messageList(page).getByText('First jam on Monday').waitFor();
  });

  it('when the source is opened, then it redirects to the target', async () => {
    await page.goto(`${server.url}/tickets/${source._id}`);
    await page.getByRole('link', { name: `#${target.ticketId}: the conversation continues there` }).click();
    await page.waitForURL(`**/tickets/${target._id}`);
  });

  it('when the agent undoes the merge, then the merged messages leave the target and the source stands alone', async () => {
    await page.getByRole('list', { name: 'Merged from' }).getByRole('button', { name: 'Undo merge' }).click();
    await page.getByText(`Merge undone: #${source.ticketId} stands alone again`).waitFor();
    await messageList(page).getByText('Jammed again on Friday').waitFor({ state: 'detached' });
    await page.goto(`${server.url}/tickets/${source._id}`);
    await messageList(page).getByText('Jammed again on Friday').waitFor();
    expect(await page.getByText('Merged into').count()).toBe(0);
  });

  it('when the agent moves a message to a new ticket, then the new ticket holds it and the old one says where it went', async () => {
    const item = messageList(page).getByRole('listitem').filter({ hasText: 'Jammed again on Friday' });
    await item.hover();
    await item.getByRole('button', { name: 'Message actions' }).click();
    await item.getByRole('menuitem', { name: 'Move to a new ticket' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move to a new ticket' });
    await dialog.getByLabel('Title of the new ticket').fill('Friday jam');
    await dialog.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('heading', { name: 'Friday jam' }).waitFor();
    await messageList(page).getByText('Jammed again on Friday').waitFor();
    const number = (await page.locator('.ticket-number').textContent())!;
    await page.goto(`${server.url}/tickets/${source._id}`);
    await messageList(page).getByText(`Moved to ${number}`).waitFor();
    expect(await messageList(page).getByText('Jammed again on Friday').count()).toBe(0);
  });

  it('when an agent ticks two tickets in the Live Tickets table and picks the one that continues, then they are merged', async () => {
    // All, not the default Open: one customer has one open ticket, so a duplicate of theirs is a finished one.
    await page.goto(`${server.url}/live-tickets?filter=all`);
    await page.getByRole('button', { name: 'Table' }).click();
    const tick = (ticket: { ticketId: number }) => page.getByRole('checkbox', { name: `Select ticket #${ticket.ticketId}` });
    const bar = page.getByRole('group', { name: 'Selected tickets' });
    await tick(dupes[1]!).check();
    await bar.getByText('Tick two tickets to merge them (1 ticked)').waitFor();
    // Two customers: an agent is told only an admin may merge them, and is not offered the merge.
    await tick(strangers).check();
    await bar.getByText('Only an admin can merge tickets of different customers').waitFor();
    expect(await bar.getByRole('button', { name: 'Merge' }).isDisabled()).toBe(true);
    await tick(strangers).uncheck();
    await tick(dupes[0]!).check();
    await bar.getByRole('button', { name: 'Merge' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge tickets' });
    // The older ticket continues: the newer one is merged into it.
    await dialog.getByRole('radio', { name: `#${dupes[0]!.ticketId} Scanner streaks` }).check();
    await dialog.getByText(`#${dupes[1]!.ticketId} Scanner streaks still (Dave Tester)`).waitFor();
    await dialog.getByRole('button', { name: 'Confirm merge' }).click();
    await page.getByText(`#${dupes[1]!.ticketId} merged into #${dupes[0]!.ticketId}`).waitFor();
    await bar.getByText('Tick two tickets to merge them (0 ticked)').waitFor();
    // Dave, signed in elsewhere, is told once which ticket continues.
    const told = `Your ticket #${dupes[1]!.ticketId} was merged into ticket #${dupes[0]!.ticketId}, where the conversation continues.`;
    await davePage.getByText(told).waitFor();
    expect(await davePage.getByText(told).count()).toBe(1);
    const merged = await server.request('GET', `/api/tickets/${dupes[1]!._id}`, { token: alice.token });
    expect(merged.body.ticket.mergedInto).toEqual(expect.objectContaining({ _id: dupes[0]!._id, ticketId: dupes[0]!.ticketId }));
    await page.goto(`${server.url}/tickets/${dupes[0]!._id}`);
    await messageList(page).getByText('Grey lines on every page').waitFor();
    await messageList(page).getByText(`Merged from #${dupes[1]!.ticketId}`).waitFor();
  });
});
