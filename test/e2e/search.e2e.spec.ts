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
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when an agent presses Ctrl+K and types a word of a message, then the hit opens the ticket scrolled to that message, highlighted', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: /^Search\b/ }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('searchbox', { name: 'Search tickets and messages' }).fill('kowalcz');
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

  it('when an agent presses / on a screen without a search box of its own, then the desk search opens there, and Escape closes it', async () => {
    await page.goto(`${server.url}/profile`);
    await page.getByRole('button', { name: /^Search\b/ }).waitFor({ timeout: 10_000 });
    await page.locator('body').press('/');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });
});
