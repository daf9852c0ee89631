/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

const PASSWORD = 'password-123';

describe('Web app in Chromium: mentions in internal notes (docs/notifications.md)', () => {
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

  const pageOf = async (email: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, email, PASSWORD);
    return page;
  };

  it('when an agent mentions a colleague in an internal note, then the colleague’s bell counts it live and choosing it opens the ticket at the note', async () => {
    const token = await server.login();
    const alice = await addMember(server, token, 'agent', 'Alice');
    const bruno = await addMember(server, token, 'agent', 'Bruno');
    const customer = await addMember(server, token, 'customer', 'Hugo');
    const ticket = await openTicket(server, customer, await addCategory(server, token), { title: 'Charged twice in March' });

    const asBruno = await pageOf(bruno.email);
    const bell = asBruno.getByRole('button', { name: /^Notifications/ });
    await bell.waitFor();
    expect(await bell.getAttribute('aria-label')).toBe('Notifications');

    const asAlice = await pageOf(alice.email);
    await asAlice.goto(`${server.url}/tickets/${ticket._id}`);
    await asAlice.getByRole('heading', { name: 'Charged twice in March' }).waitFor();
    await asAlice.getByRole('checkbox', { name: /Internal note/ }).check();
    const box = asAlice.getByRole('textbox', { name: 'Message' });
    await box.fill('Could you look at the refund, @Bru');
    await asAlice.getByRole('button', { name: /^@\S+ Bruno Tester$/ }).click();
    expect(await box.inputValue()).toBe(`Could you look at the refund, @${bruno.email.split('@')[0]} `);
    await box.press('End');
    await box.pressSequentially('please?');
    await box.press('Enter');
    await asAlice.getByText('please?').waitFor();

    await asBruno.getByRole('button', { name: 'Notifications, 1 unread' }).click();
    const item = asBruno
      .getByRole('dialog', { name: 'Notifications' })
      .getByRole('button', { name: /Alice Tester mentioned you on #\d+ Charged twice in March/ });
    await item.getByText('Could you look at the refund').waitFor();
    await item.click();
    await asBruno.waitForURL(new RegExp(`/tickets/${ticket._id}\\?message=`));
    const note = asBruno.locator('.message-found');
    await note.getByText('Could you look at the refund').waitFor();
    expect(await note.isVisible()).toBe(true);
    await asBruno.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
  });
});
