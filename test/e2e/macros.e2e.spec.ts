/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/** Issue 55: an agent builds a macro in the composer, previews it on a ticket, edits its reply and applies it (docs/macros.md). */
describe('Web app in Chromium: macros', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let ana: Member;
  let ticket: { _id: string; ticketId: number };

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Billing' });
    ana = await addMember(server, admin, 'agent', 'Ana');
    const carla = await addMember(server, admin, 'customer', 'Carla');
    ticket = await openTicket(server, carla, category, { title: 'Charged twice' });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, ana.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when an agent creates a macro and applies it from the composer after its preview, then the ticket shows the reply, its new status and the history line naming the macro', async () => {
    await page.goto(`${server.url}/tickets/${ticket._id}`);
    await page.getByRole('button', { name: 'Macros' }).click();
    await page.getByRole('button', { name: 'New macro...' }).click();
    await page.fill('#macro-name', 'Refund issued');
    await page.fill('#macro-shortcode', 'refund');
    await page.fill('#macro-text', 'Hi {{customer.firstName}}, your refund for #{{ticket.number}} is on its way.');
    await page.selectOption('#macro-status', 'resolved');
    await page.getByRole('button', { name: 'Save macro' }).click();
    await page.getByRole('heading', { name: 'New macro' }).waitFor({ state: 'detached' });

    // `#shortcode` in the composer offers the macro as it offers canned replies.
    await page.getByRole('textbox', { name: 'Message' }).fill('#ref');
    await page.getByRole('button', { name: '#refund Macro: Refund issued' }).click();
    const reply = page.locator('#macro-reply');
    await reply.waitFor();
    expect(await reply.inputValue()).toBe(`Hi Carla, your refund for #${ticket.ticketId} is on its way.`);
    await page.getByRole('list', { name: 'Macro actions' }).getByText('set status to resolved').waitFor();
    await reply.fill(`Hi Carla, your refund for #${ticket.ticketId} is on its way. Sorry!`);
    await page.getByRole('button', { name: 'Apply macro' }).click();

    await messageList(page).getByText(`Hi Carla, your refund for #${ticket.ticketId} is on its way. Sorry!`).waitFor();
    await messageList(page).getByText('Status changed to resolved').waitFor();
    await page.getByRole('button', { name: 'Show history' }).click();
    await page.locator('.history-panel').getByText('Applied macro "Refund issued" (v1): changed the status from open to resolved').first().waitFor();
  });
});
