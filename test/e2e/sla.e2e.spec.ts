/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

const around = { firstResponse: 1, nextResponse: null, resolution: 60 };

/** A ticket's first response target runs out while Live Tickets is open: its chip turns from due to breached without a reload. */
describe('Web app in Chromium: service levels', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let alice: Member;
  let admin: string;
  let category: string;
  /** The server's clock runs this far ahead of the real one. */
  let ahead = 0;

  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(Date.now() + ahead) });
    admin = await server.login();
    category = await addCategory(server, admin, { name: 'Printers' });
    alice = await addMember(server, admin, 'agent', 'Alice');
    const settings = {
      calendars: [],
      defaultCalendarId: null,
      policies: [{ id: 'quick', name: 'Quick', categoryId: null, calendarId: null, targets: { low: around, medium: around, high: around, urgent: around } }],
      pauseStatuses: ['pending_customer'],
      warnPercent: 80,
    };
    expect((await server.request('PUT', '/api/sla/settings', { token: admin, body: settings })).status).toBe(200);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, alice.email, 'password-123');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when the due time passes with the page open, then the chip turns from due to breached, and the Breached filter lists the ticket', async () => {
    const carol = await addMember(server, admin, 'customer', 'Carol');
    const ticket = await openTicket(server, carol, category, { title: 'Printer jammed' });
    // The first response is due a minute after the opening: the server's clock moves 52 seconds on, so 8 are left.
    ahead = 52_000;
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('button', { name: 'Table' }).click();
    const row = page.getByRole('row', { name: /Printer jammed/ });
    const chip = row.locator('.sla-chip');
    await chip.filter({ hasText: /First response due in \d+ s/ }).waitFor();
    expect(await chip.getAttribute('data-sla')).toBe('soon');
    await chip.filter({ hasText: /First response breached \d+ s ago/ }).waitFor({ timeout: 20_000 });
    expect(await chip.getAttribute('data-sla')).toBe('breached');

    await page.getByRole('button', { name: 'Breached' }).click();
    await page.getByRole('row', { name: /Printer jammed/ }).waitFor();
    await page.goto(`${server.url}/tickets/${ticket._id}`);
    const details = page.getByRole('region', { name: 'Service levels' });
    await details.getByText(/First response breached/).waitFor();
    await details.getByText('Quick · version 1 · around the clock').waitFor();

    // The dashboard's attainment: the first response breached, nothing else decided yet.
    await page.goto(`${server.url}/dashboard`);
    const card = page.getByRole('region', { name: 'Service levels' });
    await card.getByRole('row', { name: /All 0% – –/ }).waitFor();
    await card.getByText(/#\d+ Printer jammed · First response due/).waitFor();
  });
});
