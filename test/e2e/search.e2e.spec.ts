/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { type TestServer, startTestServer } from '../support/server';

/** The desk-wide search (docs/search.md): from any screen to the very message that holds a word. */
describe('Web app in Chromium: full-text search', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let alice: Member;
  let ticket: { _id: string; ticketId: number };
  let wanted: string;
  let gadgets: Array<{ _id: string; ticketId: number }>;
  let gadgeteer: Member;

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Shipping' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    const carol = await addMember(server, admin, 'customer', 'Carol');
    ticket = await openTicket(server, carol, category, { title: 'Parcel problems', description: 'Several questions about my order' });
    const post = async (content: string) => {
      const answer = await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: carol.token, body: { content } });
      if (answer.status !== 201) throw new Error(`post: ${answer.status}`);
      return answer.body.message._id as string;
    };
    // Enough messages that the one searched for is out of view when the conversation opens at its end.
    for (let i = 0; i < 30; i++) await post(`Update ${i}: still waiting for news about the shipment, nothing has changed since yesterday.`);
    wanted = await post('The courier left the parcel with my neighbour Mrs Kowalczyk, can you confirm?');
    for (let i = 30; i < 60; i++) await post(`Update ${i}: still waiting for news about the shipment, nothing has changed since yesterday.`);
    // 21 customers' tickets with one word in common: more than a page of hits (20); two of them resolved.
    const electronics = await addCategory(server, admin, { name: 'Electronics' });
    gadgets = [];
    for (let i = 0; i < 21; i++) {
      const customer = await addMember(server, admin, 'customer', `Gadgeteer${i}`);
      if (i === 20) gadgeteer = customer;
      gadgets.push(await openTicket(server, customer, electronics, { title: `Gizmo ${i} stopped working`, description: 'The gadget does not turn on' }));
    }
    for (const { _id } of gadgets.slice(0, 2)) {
      const resolved = await server.request('PUT', `/api/tickets/${_id}`, { token: admin, body: { status: 'resolved' } });
      if (resolved.status !== 200) throw new Error(`resolve: ${resolved.status}`);
    }
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Ctrl+K on a screen of the signed-in user, then the words typed into the dialog. */
  async function searchFor(on: Page, words: string) {
    await on.getByRole('button', { name: /^Search\b/ }).waitFor({ timeout: 10_000 });
    await on.keyboard.press('Control+k');
    const dialog = on.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('searchbox', { name: 'Search tickets and messages' }).fill(words);
    return dialog;
  }

  it('when an agent presses Ctrl+K and types a word of a message, then the hit opens the ticket scrolled to that message, highlighted', async () => {
    await page.goto(`${server.url}/dashboard`);
    const dialog = await searchFor(page, 'kowalcz');
    const hit = dialog.getByRole('list', { name: 'Search results' }).getByRole('button', { name: new RegExp(`#${ticket.ticketId} Parcel problems`) });
    await hit.waitFor({ timeout: 10_000 });
    expect(await hit.locator('mark').allTextContents()).toEqual(['Kowalczyk']);
    await hit.click();
    await page.waitForURL(`**/tickets/${ticket._id}?message=${wanted}`, { timeout: 10_000 });
    const found = messageList(page).locator(`[data-message-id="${wanted}"]`);
    await page.locator('.message-found').waitFor({ timeout: 10_000 });
    expect(await found.evaluate((element) => element.classList.contains('message-found'))).toBe(true);
    // Scrolled into the conversation's view, away from its end where it opened.
    const inView = () =>
      found.evaluate((element) => {
        const list = element.closest('.message-list')!.getBoundingClientRect();
        const box = element.getBoundingClientRect();
        return box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
      });
    await eventually(inView, { timeoutMs: 5000, describe: 'the found message in view' });
  });

  it('when more tickets match than a page holds, then the dialog pages through them; its filters narrow them, and a date range before they were opened finds none', async () => {
    await page.goto(`${server.url}/dashboard`);
    const dialog = await searchFor(page, 'gadget');
    const results = dialog.getByRole('list', { name: 'Search results' });
    const pager = dialog.getByRole('navigation', { name: 'Search result pages' });
    await pager.getByText('Page 1 of 2 · 21 matches').waitFor({ timeout: 10_000 });
    expect(await results.getByRole('listitem').count()).toBe(20);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2 of 2 · 21 matches').waitFor({ timeout: 10_000 });
    await eventually(async () => (await results.getByRole('listitem').count()) === 1, { describe: 'the second page, one hit' });
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    const numbers = async () => (await results.locator('.search-hit-title').allTextContents()).map((title) => title.split(' ')[0]).sort();

    await dialog.getByRole('button', { name: 'Filters' }).click();
    await dialog.getByLabel('Status').selectOption('resolved');
    await dialog.getByRole('button', { name: 'Filters (1)' }).waitFor();
    const resolved = gadgets
      .slice(0, 2)
      .map(({ ticketId }) => `#${ticketId}`)
      .sort();
    await eventually(async () => JSON.stringify(await numbers()) === JSON.stringify(resolved), { describe: 'the two resolved tickets alone' });
    expect(await pager.count()).toBe(0);

    const yesterday = new Date(Date.now() - 86_400_000);
    const day = `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-${String(yesterday.getDate()).padStart(2, '0')}`;
    await dialog.getByLabel('Created to').fill(day);
    await dialog.getByText('No matches.').waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Clear filters' }).click();
    await pager.getByText('Page 1 of 2 · 21 matches').waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
  });

  it('when a customer searches the same word, then only their own ticket comes, and their filters have no assignee', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const customer = await context.newPage();
      await signIn(customer, server.url, gadgeteer.email, 'password-123');
      const dialog = await searchFor(customer, 'gadget');
      const results = dialog.getByRole('list', { name: 'Search results' });
      await results.waitFor({ timeout: 10_000 });
      expect(await results.locator('.search-hit-title').allTextContents()).toEqual([`#${gadgets[20]!.ticketId} Gizmo 20 stopped working`]);
      await dialog.getByRole('button', { name: 'Filters' }).click();
      await dialog.getByLabel('Status').waitFor();
      expect(await dialog.getByLabel('Assigned to').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('when a customer with more tickets than their dashboard lists searches its list, then an older ticket is found by a word of its conversation', async () => {
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Music' });
    const frank = await addMember(server, admin, 'customer', 'Frank');
    const own: Array<{ _id: string; ticketId: number }> = [];
    for (let i = 0; i < 6; i++) {
      const opened = await openTicket(server, frank, category, { title: `Instrument question ${i}`, description: 'About my order' });
      if (i === 0)
        await server.request('POST', `/api/tickets/${opened._id}/messages`, {
          token: frank.token,
          body: { content: 'The xylophone arrived with a cracked bar' },
        });
      const resolved = await server.request('PUT', `/api/tickets/${opened._id}`, { token: admin, body: { status: 'resolved' } });
      if (resolved.status !== 200) throw new Error(`resolve: ${resolved.status}`);
      own.push(opened);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const customer = await context.newPage();
      await signIn(customer, server.url, frank.email, 'password-123');
      const card = customer.getByRole('region', { name: 'Your Tickets' });
      await card.getByText('Instrument question 5').waitFor({ timeout: 10_000 });
      expect(await card.getByText('Instrument question 0').count()).toBe(0);
      await card.getByRole('searchbox', { name: 'Search your tickets' }).fill('xylophon');
      const found = card.getByRole('list', { name: 'Your tickets matching the search' });
      await found.waitFor({ timeout: 10_000 });
      await eventually(async () => (await found.locator('.ticket-row-title').allTextContents()).join() === 'Instrument question 0', {
        describe: 'the oldest ticket alone',
      });
      await found.getByRole('button', { name: new RegExp(`#${own[0]!.ticketId}`) }).click();
      await customer.waitForURL(`**/tickets/${own[0]!._id}`, { timeout: 10_000 });
      await customer.goBack();
      await card.getByRole('searchbox', { name: 'Search your tickets' }).fill('trombone');
      await card.getByText('No tickets match your search').waitFor({ timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  it('when an agent presses / on a screen without a search box of its own, then the desk search opens there, and Escape closes it', async () => {
    await page.goto(`${server.url}/profile`);
    await page.getByRole('button', { name: /^Search\b/ }).waitFor({ timeout: 10_000 });
    await page.locator('body').press('/');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.waitFor({ timeout: 10_000 });
    // Escape is the dialog's own key: pressed before the dialog has taken the focus (a loaded machine), it reaches nothing.
    await page.waitForFunction(() => document.querySelector('[role="dialog"]')?.contains(document.activeElement) === true, undefined, { timeout: 10_000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  });
});
