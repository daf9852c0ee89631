/// <reference lib="dom" />
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember } from '../support/desk';
import { type Dovecot, startDovecot } from '../support/dovecot';
import { eventually } from '../support/eventually';
import { ADMIN, type TestServer, startTestServer } from '../support/server';
import { outboxDir } from '../../src/workers/email/mailer';

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

  it('when the mail made Ann a customer, then the admin sees "Created by e-mail", and Ann sets a password through the mailed link, signs in and sees her ticket', async () => {
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/admin`);
    await page.getByRole('searchbox', { name: 'Search users' }).fill('ann@example.com');
    await page
      .getByRole('row', { name: /ann@example\.com/ })
      .getByText('Created by e-mail')
      .waitFor();

    // No SMTP_URL here: the mail is an .eml file in DATA_DIR/outbox.
    const raw = await eventually(
      () => {
        const dir = outboxDir(server.deps.config);
        const files = (() => {
          try {
            return readdirSync(dir);
          } catch {
            return [];
          }
        })();
        return files.map((name) => readFileSync(path.join(dir, name), 'utf8')).find((mail) => mail.includes('Set your password'));
      },
      { timeoutMs: 20_000, describe: 'the password link mail' },
    );
    const link = /(\/set-password#token=[A-Za-z0-9._-]+)/.exec((await simpleParser(raw)).text ?? '')![1]!;

    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${server.url}${link}`);
    await page.getByLabel('Password', { exact: true }).fill('abc');
    await page.getByLabel('Confirm password').fill('abd');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password must be at least 6 characters long').waitFor();
    await page.getByText('Passwords do not match').waitFor();
    await page.getByLabel('Password', { exact: true }).fill('ann-secret-1');
    await page.getByLabel('Confirm password').fill('ann-secret-1');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Your password is set' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.fill('#email', 'ann@example.com');
    await page.fill('#password', 'ann-secret-1');
    await page.click('button[type=submit]');
    await page.waitForURL('**/dashboard');
    await page.getByText('Scanner jams').first().waitFor();

    // The link works once: opened again, the page says so.
    await page.goto(`${server.url}${link}`);
    await page.getByLabel('Password', { exact: true }).fill('ann-secret-2');
    await page.getByLabel('Confirm password').fill('ann-secret-2');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('This password link has already been used').waitFor();
  });
});
