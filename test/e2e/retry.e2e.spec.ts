/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { type TestServer, startTestServer } from '../support/server';

/**
 * The answer to a sent message is lost on the way back (the server stored it, the browser sees the
 * connection reset): the web app sends it again with the same Idempotency-Key, and the conversation
 * holds the message once.
 */
describe('Web app in Chromium: a message whose answer was lost', () => {
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

  it('when the first answer never arrives, then the retry carries the same key and the message is posted once', async () => {
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const customer = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, customer, category);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, server.url, customer.email, 'password-123');
    const keys: string[] = [];
    await page.route(`**/api/tickets/${ticket._id}/messages`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      keys.push((await route.request().headerValue('idempotency-key')) ?? 'none');
      if (keys.length > 1) return route.continue();
      await route.fetch(); // The server receives and stores it...
      await route.abort('connectionreset'); // ...and the answer is lost.
    });
    await page.goto(`${server.url}/tickets/${ticket._id}`);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('Is anyone there?');
    await input.press('Enter');
    await messageList(page).getByText('Is anyone there?').waitFor();
    // The live channel may show the stored message before the retry goes out a second later.
    await eventually(async () => (keys.length === 2 ? true : undefined), { describe: 'the retried POST' });

    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const { messages } = (await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: customer.token })).body;
    expect(messages.filter((message: { content: string }) => message.content === 'Is anyone there?')).toHaveLength(1);
    await page.reload();
    await messageList(page).getByText('Is anyone there?').waitFor();
    expect(await messageList(page).getByText('Is anyone there?').count()).toBe(1);
    await context.close();
  });
});
