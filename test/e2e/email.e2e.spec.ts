/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember } from '../support/desk';
import { type Dovecot, startDovecot } from '../support/dovecot';
import { eventually } from '../support/eventually';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const MAIL = [
  'From: Ann Lee <ann@example.com>',
  'To: help@acme.test',
  'Subject: Scanner jams',
  'Message-ID: <scanner@example.com>',
  '',
  'The scanner jams on every page.',
  '',
  '-- ',
  'Ann Lee',
  'Acme Corp, 3rd floor',
].join('\n');

/** docs/email.md: the admin connects the support mailbox; an agent reads a mail that opened a ticket. */
describe('Web app in Chromium: the e-mail channel', () => {
  let dovecot: Dovecot;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let alice: Member;
  let admin: string;

  beforeAll(async () => {
    dovecot = await startDovecot();
    server = await startTestServer();
    admin = await server.login();
    await addCategory(server, admin, { name: 'Hardware' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await dovecot?.close();
  });

  it('when the admin fills in the mailbox and tests it, then the connection is confirmed and saved without showing the password again', async () => {
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/settings`);
    await page.locator('#settings-supportEmail').fill('help@acme.test');
    await page.locator('#settings-mailboxHost').fill(dovecot.host);
    await page.locator('#settings-mailboxPort').fill(String(dovecot.port));
    await page.getByRole('switch', { name: /Use TLS/ }).uncheck();
    await page.locator('#settings-mailboxUser').fill(dovecot.user);
    await page.locator('#settings-mailboxPassword').fill(dovecot.password);
    await page.getByRole('button', { name: 'Test Connection' }).click();
    await page.getByText('Mailbox connection works: INBOX holds 0 message(s).').waitFor();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await page.getByText('Settings saved successfully!').waitFor();
    expect(await page.locator('#settings-mailboxPassword').inputValue()).toBe('********');
    expect((await server.request('GET', '/api/settings', { token: admin })).body.settings.mailboxHost).toBe(dovecot.host);
  });

  it('when a mail opens a ticket, then the agent sees its sender, the text without the signature, and the original behind "Show original"', async () => {
    await dovecot.append(MAIL);
    const ticket = await eventually(
      async () =>
        (await server.request('GET', '/api/tickets?limit=100', { token: admin })).body.tickets.find(
          (found: { title: string }) => found.title === 'Scanner jams',
        ),
      { timeoutMs: 20_000, describe: 'the mail’s ticket' },
    );
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, server.url, alice.email, 'password-123');
    await page.goto(`${server.url}/tickets/${ticket._id}`);
    await page.getByText('The scanner jams on every page.').first().waitFor();
    expect(await page.getByText('Acme Corp, 3rd floor').count()).toBe(0);
    await page.getByText('ann@example.com').waitFor();
    await page.getByRole('button', { name: 'Show original' }).click();
    await page.locator('.mail-original', { hasText: 'Acme Corp, 3rd floor' }).waitFor();
    expect(await page.locator('.mail-original').textContent()).toContain('Message-ID: <scanner@example.com>');
  });
});
