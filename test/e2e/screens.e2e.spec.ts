/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { SHOTS, launchBrowser, messageList, signIn } from '../support/browser';
import { LONG_URL_TITLE, type SeededDesk, seedDesk } from '../support/screens';
import { type TestServer, startTestServer } from '../support/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the axe engine is injected into the page as source text
const AXE_SOURCE: string = require('axe-core').source;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'tablet', width: 768, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

type Role = 'customer' | 'agent' | 'admin';

/** Every screen each role can reach (docs/product.md section 2), with the ticket screens of the seeded desk. */
function screensOf(role: Role, desk: SeededDesk): Array<{ name: string; path: string }> {
  const ticket = { name: 'ticket', path: `/tickets/${desk.ticketId}` };
  const common = [{ name: 'dashboard', path: '/dashboard' }, ticket, { name: 'profile', path: '/profile' }];
  if (role === 'customer') return common;
  const staff = [
    ...common,
    { name: 'live-tickets', path: '/live-tickets' },
    { name: 'live-tickets-open', path: '/live-tickets?filter=open' },
    { name: 'canned-messages', path: '/canned-messages' },
    { name: 'long-title-ticket', path: `/tickets/${desk.longTicketId}` },
  ];
  if (role === 'agent') return staff;
  return [...staff, { name: 'admin', path: '/admin' }, { name: 'settings', path: '/settings' }, { name: 'telegram-whitelist', path: '/telegram-whitelist' }];
}

/** A dialog opened by a button, ready when `ready` shows, left by its Cancel button. */
const dialogState = (name: string, button: string, ready: (page: Page) => Locator) => ({
  name,
  enter: async (page: Page) => {
    await page.getByRole('button', { name: button }).click();
    await ready(page).waitFor();
  },
  leave: async (page: Page) => {
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  },
});

/** States within a screen that have their own markup: each admin tab, the queue's table, the create dialog. */
function statesOf(role: Role, screen: string): Array<{ name: string; enter: (page: Page) => Promise<void>; leave?: (page: Page) => Promise<void> }> {
  if (screen === 'admin') {
    return ['Users', 'Categories', 'Bot Commands', 'Deliveries', 'Read Models', 'Settings'].map((tab) => ({
      name: `tab-${tab.toLowerCase().replace(' ', '-')}`,
      enter: async (page) => {
        await page.getByRole('tab', { name: tab }).click();
        await page.getByRole('tabpanel', { name: tab }).waitFor();
        await settled(page);
      },
    }));
  }
  if (screen === 'live-tickets') {
    return [
      {
        name: 'table',
        enter: async (page) => {
          await page.getByRole('button', { name: 'Table' }).click();
          await page.getByRole('table', { name: 'Tickets' }).waitFor();
        },
        leave: (page) => page.getByRole('button', { name: 'Cards' }).click(),
      },
    ];
  }
  if (screen === 'canned-messages')
    return [dialogState('add-dialog', 'Add Canned Message', (page) => page.getByRole('dialog', { name: 'Add New Canned Message' }).getByLabel('Shortcode'))];
  if (screen === 'dashboard' && role === 'customer') {
    return [
      dialogState('create-dialog', 'Create New Ticket', (page) =>
        page.getByRole('dialog', { name: 'Create New Ticket' }).getByText('You already have an open ticket'),
      ),
    ];
  }
  return [];
}

async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.evaluate((next) => {
    document.documentElement.dataset.theme = next;
  }, theme);
}

/** Axe's violations on the page as it is now, as "rule: target" lines. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: unknown) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown[] }> }> }> };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(' ')}`);
  }, AXE_TAGS);
  return violations;
}

/** Waits until the screen has its heading and nothing is loading any more. */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.waitForFunction(() => document.querySelector('.loading, .spinner') === null && !document.body.textContent?.includes('Loading'));
  // Fonts and the last layout pass before measuring or taking a picture.
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))));
}

/** An open dialog lies wholly inside the window (its own content may scroll); true when none is open. */
const dialogFits = (page: Page) =>
  page.evaluate(() => {
    const dialog = document.querySelector('[role="dialog"]');
    if (!dialog) return true;
    const box = dialog.getBoundingClientRect();
    return box.left >= 0 && box.top >= 0 && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
  });

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('Every screen at every size, in both themes: layout and accessibility (issue 25)', () => {
  let server: TestServer;
  let browser: Browser;
  let desk: SeededDesk;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    desk = await seedDesk(server);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when a visitor opens sign-in and registration, then neither scrolls sideways nor has an axe violation', async () => {
    for (const size of SIZES) {
      const page = await (await browser.newContext({ viewport: size, bypassCSP: true })).newPage();
      for (const screen of ['login', 'register']) {
        await page.goto(`${server.url}/${screen}`);
        await settled(page);
        for (const theme of ['light', 'dark'] as const) {
          await setTheme(page, theme);
          expect({ screen, size: size.name, theme, overflow: await horizontalOverflow(page) }).toEqual({ screen, size: size.name, theme, overflow: 0 });
          await page.screenshot({ path: `${SHOTS}/screen-visitor-${screen}-${size.name}-${theme}.png`, fullPage: true });
          if (size.name !== 'tablet')
            expect({ screen, size: size.name, theme, violations: await axeViolations(page) }).toEqual({ screen, size: size.name, theme, violations: [] });
        }
      }
      await page.context().close();
    }
  }, 120_000);

  for (const role of ['customer', 'agent', 'admin'] as const) {
    it(`when ${role === 'admin' ? 'an' : 'a'} ${role} visits every screen at 1366, 768 and 390 px, then none scrolls sideways and none has an axe violation in either theme`, async () => {
      for (const size of SIZES) {
        const page = await (await browser.newContext({ viewport: size, bypassCSP: true })).newPage();
        await signIn(page, server.url, desk[role].email, desk[role].password);
        for (const screen of screensOf(role, desk)) {
          await page.goto(`${server.url}${screen.path}`);
          await settled(page);
          if (screen.name === 'ticket') await messageList(page).getByText('Message 12').waitFor();
          const check = async (state: string) => {
            for (const theme of ['light', 'dark'] as const) {
              await setTheme(page, theme);
              const where = { role, screen: state, size: size.name, theme };
              expect({ ...where, overflow: await horizontalOverflow(page) }).toEqual({ ...where, overflow: 0 });
              expect({ ...where, dialogFits: await dialogFits(page) }).toEqual({ ...where, dialogFits: true });
              await page.screenshot({ path: `${SHOTS}/screen-${role}-${state}-${size.name}-${theme}.png`, fullPage: true });
              // Axe at the desktop and the phone size; the tablet size is the phone layout again.
              if (size.name !== 'tablet') expect({ ...where, violations: await axeViolations(page) }).toEqual({ ...where, violations: [] });
            }
            await setTheme(page, 'light');
          };
          await check(screen.name);
          for (const state of statesOf(role, screen.name)) {
            await state.enter(page);
            await check(`${screen.name}-${state.name}`);
            await state.leave?.(page);
          }
        }
        await page.context().close();
      }
    }, 300_000);
  }

  it('when Live Tickets shows its table at 1440 and 1366 px, then every column fits without scrolling sideways (issue 50)', async () => {
    for (const width of [1440, 1366]) {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      await signIn(page, server.url, desk.agent.email, desk.agent.password);
      await page.goto(`${server.url}/live-tickets?filter=all`);
      await page.getByRole('button', { name: 'Table' }).click();
      await page.getByRole('table', { name: 'Tickets' }).waitFor();
      await settled(page);
      const hidden = await page.evaluate(() => {
        const wrap = document.querySelector('.live-table-card')!;
        return wrap.scrollWidth - wrap.clientWidth;
      });
      expect({ width, hidden }).toEqual({ width, hidden: 0 });
      await page.context().close();
    }
  });

  it('when the ticket screen opens at 1366x900, then the composer and the last message show without scrolling', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 }, bypassCSP: true })).newPage();
    await signIn(page, server.url, desk.agent.email, desk.agent.password);
    await page.goto(`${server.url}/tickets/${desk.ticketId}`);
    await messageList(page).getByText('Message 12').waitFor();
    await settled(page);
    const seen = await page.evaluate(() => {
      const inWindow = (element: Element | null) => {
        if (!element) return false;
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
      };
      const list = document.querySelector('ol[aria-label="Messages"]')!;
      const last = list.lastElementChild!;
      const listBox = list.getBoundingClientRect();
      const lastBox = last.getBoundingClientRect();
      return {
        composer: inWindow(document.querySelector('textarea[aria-label="Message"]')),
        send: inWindow([...document.querySelectorAll('button')].find((button) => button.textContent?.includes('Send')) ?? null),
        lastMessage: inWindow(last) && lastBox.top >= listBox.top && lastBox.bottom <= listBox.bottom + 1,
        pageScroll: document.documentElement.scrollHeight - window.innerHeight,
      };
    });
    expect(seen).toEqual({ composer: true, send: true, lastMessage: true, pageScroll: 0 });
    // The status change of the seed is a quiet system line in the conversation.
    await messageList(page).getByText('Status changed to waiting for customer response').waitFor();
    await page.screenshot({ path: `${SHOTS}/ticket-two-panes-1366.png` });
    await page.context().close();
  });

  it('when the narrow menu is opened at 768 and 390 px, then the sidebar is a drawer over the dimmed page, which stays in place', async () => {
    for (const size of SIZES.filter((candidate) => candidate.name !== 'desktop')) {
      const page = await (await browser.newContext({ viewport: size, bypassCSP: true })).newPage();
      await signIn(page, server.url, desk.agent.email, desk.agent.password);
      await page.goto(`${server.url}/live-tickets`);
      await settled(page);
      expect(await page.getByRole('complementary', { name: 'Main navigation' }).count()).toBe(0);
      await page.getByRole('banner').getByRole('button', { name: 'Expand sidebar' }).click();
      const drawer = page.getByRole('complementary', { name: 'Main navigation' });
      await drawer.getByRole('link', { name: 'Canned Messages' }).waitFor();
      await page.getByTestId('sidebar-overlay').waitFor();
      const layout = await page.evaluate(() => {
        const main = document.querySelector('main')!.getBoundingClientRect();
        const heading = document.querySelector('main h1')!.getBoundingClientRect();
        const overlay = getComputedStyle(document.querySelector('[data-testid="sidebar-overlay"]')!);
        const drawerBox = document.querySelector('aside')!.getBoundingClientRect();
        return {
          mainWidth: Math.round(main.width),
          headingShown: heading.width > 0 && heading.left >= 0,
          dimmed: overlay.backgroundColor !== 'rgba(0, 0, 0, 0)',
          drawerInside: drawerBox.left >= 0 && drawerBox.right <= window.innerWidth,
        };
      });
      expect(layout).toEqual({ mainWidth: size.width, headingShown: true, dimmed: true, drawerInside: true });
      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: `${SHOTS}/drawer-${size.name}.png` });
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByTestId('sidebar-overlay').waitFor({ state: 'detached' });
      await page.context().close();
    }
  });

  it('when a ticket is titled with a 200-character URL, then the queue, the dashboard and the ticket wrap it at every size', async () => {
    expect(LONG_URL_TITLE).toHaveLength(200);
    for (const size of SIZES) {
      const page = await (await browser.newContext({ viewport: size, bypassCSP: true })).newPage();
      await signIn(page, server.url, desk.agent.email, desk.agent.password);
      for (const path of ['/live-tickets', '/dashboard', `/tickets/${desk.longTicketId}`]) {
        await page.goto(`${server.url}${path}`);
        await settled(page);
        await page.getByText(LONG_URL_TITLE.slice(0, 30)).first().waitFor();
        expect({ path, size: size.name, overflow: await horizontalOverflow(page) }).toEqual({ path, size: size.name, overflow: 0 });
      }
      await page.context().close();
    }
  });

  it("when staff follow 'View All Open', then the queue shows exactly the open, in progress and pending customer tickets", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page, server.url, desk.agent.email, desk.agent.password);
    await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'View All Open' }).click();
    await page.waitForURL('**/live-tickets?filter=open');
    await page.getByRole('article', { name: /Invoice shows the wrong amount/ }).waitFor();
    const titles = await page.getByRole('article').evaluateAll((cards) => cards.map((card) => card.getAttribute('aria-label')!.replace(/:.*/, '')).sort());
    expect(titles).toEqual(['Ticket #1001', 'Ticket #1002']);
    await page.context().close();
  });

  it('when the queue is switched to the table, then the choice is remembered after a reload', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page, server.url, desk.agent.email, desk.agent.password);
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('button', { name: 'Table' }).click();
    const table = page.getByRole('table', { name: 'Tickets' });
    await table.getByRole('link', { name: 'Invoice shows the wrong amount' }).waitFor();
    await table.getByText('NEEDS ASSIGNMENT').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/live-tickets-table-1366.png`, fullPage: true });
    await page.reload();
    await page.getByRole('table', { name: 'Tickets' }).getByRole('link', { name: 'Invoice shows the wrong amount' }).waitFor();
    expect(await page.getByRole('button', { name: 'Table' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Cards' }).click();
    await page.getByRole('article', { name: /Invoice shows the wrong amount/ }).waitFor();
    await page.context().close();
  });

  it('when the ticket list fails to load, then the dashboard shows the error and not the empty state under it', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page, server.url, desk.customer.email, desk.customer.password);
    await page.route('**/api/tickets?**', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'Service unavailable' }) }),
    );
    await page.reload();
    await page.getByText('Service unavailable').waitFor();
    expect(await page.getByText("You haven't created any support tickets yet.").count()).toBe(0);
    await page.context().close();
  });

  it('when a customer with an open ticket asks for a new one, then the dialog offers the way to that ticket, not a form', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signIn(page, server.url, desk.customer.email, desk.customer.password);
    await page.getByRole('button', { name: 'Create New Ticket' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Ticket' });
    await dialog.getByText('You already have an open ticket').waitFor();
    expect(await dialog.getByLabel('Title').count()).toBe(0);
    expect(await horizontalOverflow(page)).toBe(0);
    await page.screenshot({ path: `${SHOTS}/create-ticket-blocked-390.png` });
    await dialog.getByRole('link', { name: 'Go to your open ticket' }).click();
    await page.waitForURL(`**/tickets/${desk.ticketId}`);
    await messageList(page).getByText('Message 12').waitFor();
    await page.context().close();
  });

  it('when staff change the status and unassign, then the customer sees quiet system lines arrive in the conversation, live', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await signIn(page, server.url, desk.customer.email, desk.customer.password);
    await page.goto(`${server.url}/tickets/${desk.ticketId}`);
    await messageList(page).getByText('Message 12').waitFor();
    await messageList(page).getByText('Assigned to Alice Tester').waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    expect((await server.request('PUT', `/api/tickets/${desk.ticketId}`, { token: desk.agent.token, body: { status: 'in_progress' } })).status).toBe(200);
    // The first came with the assignment when the ticket was seeded; this is the second.
    await messageList(page).getByText('Status changed to in progress').nth(1).waitFor();
    expect((await server.request('PUT', `/api/tickets/${desk.ticketId}`, { token: desk.admin.token, body: { assignedAgent: null } })).status).toBe(200);
    await messageList(page).getByText('Alice Tester was unassigned').waitFor();
    // A customer never sees the internal note, as a message or as a line.
    expect(await messageList(page).getByText('refund approved').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/ticket-system-lines-customer-1366.png` });
    await page.context().close();
  });
});
