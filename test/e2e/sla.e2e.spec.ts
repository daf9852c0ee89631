/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, shootBothThemes, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

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

  it('when the admin adds a calendar with two intervals and a holiday and a policy in it field by field, then a reload shows them saved, an interval without an end is refused next to it, and a refusal only the server can make shows in the dialog', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const admin = await context.newPage();
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
    await admin.goto(`${server.url}/settings`);
    const group = admin.getByRole('region', { name: 'Service Levels' });
    await group.getByRole('table', { name: 'Policies' }).getByRole('row', { name: /Quick/ }).waitFor();

    await group.getByRole('button', { name: 'Add Calendar' }).click();
    let dialog = admin.getByRole('dialog', { name: 'Add Calendar' });
    await dialog.getByLabel('Name', { exact: true }).fill('Lisbon office');
    await dialog.getByLabel('Time zone').selectOption('Europe/Lisbon');
    const monday = dialog.getByRole('group', { name: 'Monday' });
    await monday.getByRole('button', { name: 'Add Monday interval' }).click();
    await monday.getByLabel('Monday interval 1 start').fill('09:00');
    await monday.getByLabel('Monday interval 1 end').fill('12:30');
    await monday.getByRole('button', { name: 'Add Monday interval' }).click();
    await monday.getByLabel('Monday interval 2 start').fill('13:30');
    await monday.getByLabel('Monday interval 2 end').fill('18:00');
    await dialog.getByRole('button', { name: 'Add Holiday' }).click();
    await dialog.getByLabel('Holiday 1 date').fill('2026-12-25');
    await dialog.getByLabel('Holiday 1 name').fill('Christmas Day');
    await shootBothThemes(admin, 'sla-calendar-form');
    await dialog.getByRole('button', { name: 'Create Calendar' }).click();
    await dialog.waitFor({ state: 'detached' });

    await group.getByRole('button', { name: 'Add Policy' }).click();
    dialog = admin.getByRole('dialog', { name: 'Add Policy' });
    await dialog.getByLabel('Name', { exact: true }).fill('Printers');
    await dialog.getByLabel('Applies to').selectOption({ label: 'Category: Printers' });
    await dialog.getByLabel('Counts in').selectOption({ label: 'Business hours of Lisbon office' });
    await dialog.getByLabel('Urgent first response hours').fill('1');
    await dialog.getByLabel('Urgent first response minutes').fill('30');
    await dialog.getByLabel('Low resolution hours').fill('40');
    await shootBothThemes(admin, 'sla-policy-form');
    await dialog.getByRole('button', { name: 'Create Policy' }).click();
    await dialog.waitFor({ state: 'detached' });

    await admin.reload();
    const calendars = group.getByRole('table', { name: 'Calendars' });
    await calendars.getByRole('row', { name: /Lisbon office Default Europe\/Lisbon 8 h a week on 1 day 2026-12-25 Christmas Day/ }).waitFor();
    await group
      .getByRole('table', { name: 'Policies' })
      .getByRole('row', { name: /Printers Printers Lisbon office Urgent: 1 h 30 m \/ – \/ –.*Low: – \/ – \/ 40 h/ })
      .waitFor();
    await group.getByText(/^Version 3/).waitFor();
    await shootBothThemes(admin, 'sla-settings');
    const saved = await server.request('GET', '/api/sla/settings', { token: await server.login() });
    const lisbon = saved.body.settings.calendars[0];
    expect(lisbon).toMatchObject({ name: 'Lisbon office', timeZone: 'Europe/Lisbon', holidays: [{ date: '2026-12-25', name: 'Christmas Day' }] });
    expect(lisbon.week[1]).toEqual([
      { start: '09:00', end: '12:30' },
      { start: '13:30', end: '18:00' },
    ]);
    expect(saved.body.settings.defaultCalendarId).toBe(lisbon.id);
    expect(saved.body.settings.policies[1]).toMatchObject({ name: 'Printers', categoryId: category, calendarId: lisbon.id });
    expect(saved.body.settings.policies[1].targets.urgent).toEqual({ firstResponse: 90, nextResponse: null, resolution: null });

    // An interval left without an end: the form says what the server would, next to it, and sends nothing.
    await calendars.getByRole('button', { name: 'Edit calendar Lisbon office' }).click();
    dialog = admin.getByRole('dialog', { name: 'Edit Calendar' });
    const tuesday = dialog.getByRole('group', { name: 'Tuesday' });
    await tuesday.getByRole('button', { name: 'Add Tuesday interval' }).click();
    await tuesday.getByLabel('Tuesday interval 1 end').fill('');
    await dialog.getByRole('button', { name: 'Update Calendar' }).click();
    await tuesday.getByText('An end is HH:MM, from 00:00 to 24:00').waitFor();
    expect(await tuesday.getByLabel('Tuesday interval 1 end').getAttribute('aria-invalid')).toBe('true');
    await shootBothThemes(admin, 'sla-calendar-form-error');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // What only the server knows: the category was deleted while the dialog was open. Its refusal shows in the dialog.
    const scanners = await addCategory(server, await server.login(), { name: 'Scanners' });
    await admin.reload();
    await group.getByRole('button', { name: 'Add Policy' }).click();
    dialog = admin.getByRole('dialog', { name: 'Add Policy' });
    await dialog.getByLabel('Name', { exact: true }).fill('Scanners');
    await dialog.getByLabel('Applies to').selectOption({ label: 'Category: Scanners' });
    await dialog.getByLabel('High resolution hours').fill('8');
    expect((await server.request('DELETE', `/api/categories/${scanners}`, { token: await server.login() })).status).toBe(204);
    await dialog.getByRole('button', { name: 'Create Policy' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: `No category ${scanners}` })
      .waitFor();
    expect((await server.request('GET', '/api/sla/settings', { token: await server.login() })).body.settings.version).toBe(3);
    await context.close();
  });
});
