/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { type TestServer, startTestServer } from '../support/server';
import { startSmtpSink, subjectOf } from '../support/smtpSink';

const TICKETS = 50;

/** Issue 54 (bulk actions) and 55 (the Macros page): a lead closes a queue from the table, then tidies the macros (docs/bulk.md, docs/macros.md). */
describe('Web app in Chromium: bulk changes and the Macros page', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let ada: Member;
  let customers: Member[];
  let tickets: Array<{ _id: string; ticketId: number }>;

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url } });
    const admin = await server.login();
    const category = await addCategory(server, admin, { name: 'Billing' });
    ada = await addMember(server, admin, 'agent', 'Ada');
    customers = [];
    for (let batch = 0; batch < TICKETS; batch += 10)
      customers.push(...(await Promise.all(Array.from({ length: 10 }, () => addMember(server, admin, 'customer', 'Cy')))));
    tickets = await Promise.all(customers.map((customer) => openTicket(server, customer, category, { title: 'Charged twice' })));
    await eventually(() => customers.every((customer) => sink.mailsTo(customer.email).length === 1), { describe: 'the creation mails', timeoutMs: 60_000 });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page, server.url, ada.email, 'password-123');
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await sink?.close();
  });

  it('when an agent ticks a range of 50 tickets in the table and closes them, then all are closed and each customer gets one notice', async () => {
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('button', { name: 'Table' }).click();
    // The first row and, with Shift, the last as the table shows them (opened at once, the tickets' order there is not the array's).
    const rows = page.getByRole('checkbox', { name: /^Select ticket #/ });
    await eventually(async () => (await rows.count()) === TICKETS, { describe: 'every ticket listed' });
    await rows.first().check();
    await rows.last().click({ modifiers: ['Shift'] });
    await page.getByText(`${TICKETS} tickets selected.`).waitFor();
    await page.getByLabel('Bulk action').selectOption('close');
    await page.getByRole('button', { name: `Apply to ${TICKETS} tickets` }).click();
    await page.getByText(`${TICKETS} tickets: ${TICKETS} changed`).waitFor({ timeout: 60_000 });
    // The Open view lets the closed tickets go.
    await page.getByText('No tickets found').waitFor();

    await eventually(() => customers.every((customer) => sink.mailsTo(customer.email).length >= 2), { describe: 'the close notices', timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    customers.forEach((customer, index) =>
      expect(
        sink
          .mailsTo(customer.email)
          .slice(1)
          .map((mail) => subjectOf(mail.raw)),
      ).toEqual([expect.stringMatching(new RegExp(`Ticket #${tickets[index]!.ticketId} is now closed$`))]),
    );
  }, 120_000);

  it('when the agent edits one of their macros on the Macros page and deletes another, then the list shows the change', async () => {
    const create = (name: string, shortcode: string) =>
      server.request('POST', '/api/macros', {
        token: ada.token,
        body: { name, shortcode, reply: 'Hi {{customer.firstName}}', actions: [{ type: 'status', status: 'resolved' }] },
      });
    await create('Refund issued', 'refund');
    await create('Old greeting', 'old');
    await page.getByRole('link', { name: 'Macros' }).click();
    const refund = page.getByRole('article', { name: 'Macro Refund issued' });
    await refund.getByText('Set status to resolved').waitFor();
    await refund.getByRole('button', { name: 'Edit macro Refund issued' }).click();
    expect(await page.locator('#macro-status').inputValue()).toBe('resolved');
    await page.fill('#macro-name', 'Refund sent');
    await page.selectOption('#macro-priority', 'low');
    await page.getByRole('button', { name: 'Save macro' }).click();
    const sent = page.getByRole('article', { name: 'Macro Refund sent' });
    await sent.getByText('Version 2').waitFor();
    await sent.getByText('Set priority to low').waitFor();

    await page.getByRole('button', { name: 'Delete macro Old greeting' }).click();
    await page.getByRole('dialog', { name: 'Please confirm' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('article', { name: 'Macro Old greeting' }).waitFor({ state: 'detached' });
    expect((await server.request('GET', '/api/macros', { token: ada.token })).body.macros.map((macro: { name: string }) => macro.name)).toEqual([
      'Refund sent',
    ]);
  });
});
