/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { SHOTS, launchBrowser, messageList, shootBothThemes, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type CuttableLink, cuttableLink } from '../support/proxy';
import { type TestServer, startTestServer } from '../support/server';
import { io } from 'socket.io-client';
import { RESYNC_MAX_EVENTS } from '#contract/live';
import { loadConfig } from '../../src/platform/config';
import { postMessage } from '../../src/app/tickets/service';

/** Generous bounds: the machine is loaded; the measured figures are printed for the report. */
const WAIT_MS = 30_000;
const report = (line: string) => process.stdout.write(`[live e2e] ${line}\n`);
const LIVE_MAX_SOCKETS_DEFAULT = loadConfig({}).LIVE_MAX_SOCKETS_PER_USER;

describe('Web app in Chromium: live chat that misses nothing', () => {
  let server: TestServer;
  let link: CuttableLink;
  let browser: Browser;
  let admin: string;
  let alice: Member;
  let bob: Member;
  let cara: Member;
  let category: string;
  let ticket: { _id: string; ticketId: number };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    link = await cuttableLink(server.url);
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    bob = await addMember(server, admin, 'agent', 'Bob');
    cara = await addMember(server, admin, 'customer', 'Cara');
    category = await addCategory(server, admin, { name: 'Billing' });
    ticket = await openTicket(server, cara, category, { title: 'Charged twice' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await link?.close();
    await server?.stop();
  });

  /** A signed-in page in its own browser context, through `base` (the server or the cuttable link). */
  const pageFor = async (member: Member, base: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, base, member.email, 'password-123');
    return { context, page };
  };
  const openTicketPage = async (page: Page, base: string) => {
    await page.goto(`${base}/tickets/${ticket._id}`);
    await page.getByRole('heading', { name: 'Charged twice' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
  };
  const send = async (page: Page, text: string) => {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
    await messageList(page).getByText(text, { exact: true }).waitFor();
  };

  it('when the network drops while the agent writes, edits and changes the status, then on return everything appears without a reload, once', async () => {
    const { context: caraContext, page: customer } = await pageFor(cara, link.url);
    const { context: bobContext, page: watcher } = await pageFor(bob, link.url);
    const { page: agent } = await pageFor(alice, server.url);
    await openTicketPage(customer, link.url);
    await openTicketPage(agent, server.url);
    await watcher.goto(`${link.url}/live-tickets`);
    await watcher.getByRole('article', { name: /Charged twice/ }).waitFor();
    await send(agent, 'Seen while online');
    await messageList(customer).getByText('Seen while online').waitFor();
    for (const page of [customer, watcher]) await page.evaluate(() => Object.assign(window, { sameDocument: true }));

    // A real cut: every connection through the link is reset (the WebSocket too) and refused.
    await Promise.all([caraContext.setOffline(true), bobContext.setOffline(true)]);
    link.cut();
    await customer.getByRole('status').getByText('Reconnecting…').waitFor();
    await watcher.getByRole('status').getByText('Reconnecting…').waitFor();
    await shootBothThemes(customer, 'ticket-reconnecting');

    await send(agent, 'First reply while away');
    await send(agent, 'Second reply while away');
    await messageList(agent).locator('.message-mine', { hasText: 'First reply while away' }).getByRole('button', { name: 'Edit message' }).click();
    const editor = agent.getByRole('textbox', { name: 'Edit message' });
    await editor.fill('First reply while away, corrected');
    await editor.press('Enter');
    await messageList(agent).getByText('First reply while away, corrected').waitFor();
    await agent.getByLabel(/Status of ticket/).selectOption('pending_customer');
    const opened = await openTicket(server, await addMember(server, admin, 'customer'), category, { title: 'Opened while Bob was away' });
    const stats = (await server.request('GET', '/api/tickets/stats', { token: admin })).body as { unassigned: number };
    const unassignedCard = watcher.getByRole('region', { name: 'Unassigned' }).locator('.stat-value');
    expect(await unassignedCard.textContent()).not.toBe(String(stats.unassigned));
    // What each page asks the server for once it is back: the refetched views, if any.
    const asked: string[] = [];
    for (const [who, page] of [
      ['customer', customer],
      ['staff', watcher],
    ] as const)
      page.on('request', (request) => request.url().includes('/api/') && asked.push(`${who} ${request.method()} ${new URL(request.url()).pathname}`));

    const back = Date.now();
    link.restore();
    await Promise.all([caraContext.setOffline(false), bobContext.setOffline(false)]);
    const seenAt = async (what: string, wait: Promise<unknown>) => {
      await wait;
      const elapsed = Date.now() - back;
      report(`${what} ${elapsed} ms after the network came back`);
      return elapsed;
    };
    const timings = await Promise.all([
      seenAt(
        'customer: corrected first reply',
        messageList(customer).getByText('First reply while away, corrected', { exact: true }).waitFor({ timeout: WAIT_MS }),
      ),
      seenAt('customer: second reply', messageList(customer).getByText('Second reply while away', { exact: true }).waitFor({ timeout: WAIT_MS })),
      seenAt('customer: status', customer.locator('.ticket-header').getByText('pending customer', { exact: true }).first().waitFor({ timeout: WAIT_MS })),
      seenAt('customer: Reconnecting… gone', customer.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: WAIT_MS })),
      seenAt('staff list: new ticket card', watcher.getByRole('article', { name: /Opened while Bob was away/ }).waitFor({ timeout: WAIT_MS })),
      seenAt(
        'staff list: status of the card',
        watcher
          .getByRole('article', { name: /Charged twice/ })
          .locator(':has(> option[value="pending_customer"]:checked)')
          .waitFor({ timeout: WAIT_MS }),
      ),
      seenAt(
        'staff statistics: Unassigned count',
        watcher
          .getByRole('region', { name: 'Unassigned' })
          .locator('.stat-value')
          .getByText(String(stats.unassigned), { exact: true })
          .waitFor({ timeout: WAIT_MS }),
      ),
    ]);
    report(`resync complete ${Math.max(...timings)} ms after the network came back; connections cut: ${link.connectionsCut}`);
    report(`HTTP calls after the return: ${asked.length === 0 ? 'none' : asked.join(', ')}`);

    expect(await customer.evaluate(() => 'sameDocument' in window)).toBe(true);
    expect(await watcher.evaluate(() => 'sameDocument' in window)).toBe(true);
    const texts = await messageList(customer).locator('.message').allTextContents();
    const count = (needle: string) => texts.filter((text) => text.includes(needle)).length;
    expect([count('Seen while online'), count('First reply while away, corrected'), count('Second reply while away')]).toEqual([1, 1, 1]);
    expect(await watcher.getByRole('article', { name: new RegExp(`#${opened.ticketId}:`) }).count()).toBe(1);
    // Back to normal: a live message after the resync arrives once as well.
    await send(agent, 'After the return');
    await messageList(customer).getByText('After the return', { exact: true }).waitFor();
    expect(await messageList(customer).getByText('After the return', { exact: true }).count()).toBe(1);
    await agent.getByLabel(/Status of ticket/).selectOption('in_progress');
  });

  it('when only the connection breaks and the browser still thinks it is online, then the client comes back by itself and catches up', async () => {
    const { page: customer } = await pageFor(cara, link.url);
    const { page: agent } = await pageFor(alice, server.url);
    await openTicketPage(customer, link.url);
    await openTicketPage(agent, server.url);
    link.cut();
    await customer.getByRole('status').getByText('Reconnecting…').waitFor();
    await send(agent, 'Written during a silent drop');
    const back = Date.now();
    link.restore();
    await messageList(customer).getByText('Written during a silent drop', { exact: true }).waitFor({ timeout: WAIT_MS });
    report(`silent drop (no offline event, reconnection backoff only): caught up ${Date.now() - back} ms after the link came back`);
    expect(await messageList(customer).getByText('Written during a silent drop', { exact: true }).count()).toBe(1);
  });

  it('when the client is further behind than the server replays, then it fetches exactly the views it shows again', async () => {
    const { context, page: customer } = await pageFor(cara, link.url);
    await openTicketPage(customer, link.url);
    await context.setOffline(true);
    link.cut();
    await customer.getByRole('status').getByText('Reconnecting…').waitFor();
    // Someone else's busy ticket puts the customer more than RESYNC_MAX_EVENTS behind.
    const other = await addMember(server, admin, 'customer');
    const busy = await openTicket(server, other, category, { title: 'Busy elsewhere' });
    for (let i = 0; i <= RESYNC_MAX_EVENTS; i++) {
      await postMessage(
        server.deps,
        busy._id,
        { content: `noise ${i}`, isInternal: false, attachments: [], platform: 'web' },
        { actor: { userId: other.id, role: 'customer', platform: 'web' }, now: new Date() },
      );
    }
    await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: alice.token, body: { content: 'Answer after a long absence' } });
    const asked: string[] = [];
    customer.on('request', (request) => request.url().includes('/api/') && asked.push(`${request.method()} ${new URL(request.url()).pathname}`));
    const back = Date.now();
    link.restore();
    await context.setOffline(false);
    await messageList(customer).getByText('Answer after a long absence', { exact: true }).waitFor({ timeout: WAIT_MS });
    await customer.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: WAIT_MS });
    report(`too far behind: caught up by refetching ${Date.now() - back} ms after the network came back; calls: ${asked.join(', ')}`);
    expect(asked).toContain(`GET /api/tickets/${ticket._id}`);
    expect(await messageList(customer).getByText('Answer after a long absence', { exact: true }).count()).toBe(1);
    expect(await customer.getByText('Busy elsewhere').count()).toBe(0);
  }, 120_000);

  /**
   * Types for about 6 s on `typist` while `watcher` samples its typing indicator every 50 ms, then
   * measures when it clears. Returns the gaps seen while typing and the time to clear.
   */
  async function typeAndWatch(typist: Page, watcher: Page, expected: string) {
    await watcher.evaluate(() => {
      const samples: Array<[number, string]> = [];
      const timer = setInterval(() => samples.push([Date.now(), document.querySelector('.typing-indicator')?.textContent ?? '']), 50);
      Object.assign(window, { typingSamples: samples, typingTimer: timer });
    });
    const input = typist.getByRole('textbox', { name: 'Message' });
    await input.fill('');
    const started = Date.now();
    await input.pressSequentially('I am still writing a long answer about the double charge, hold on', { delay: 100 });
    const stopped = Date.now();
    await watcher.getByText(expected).waitFor({ state: 'detached', timeout: WAIT_MS });
    // The sampler may not have ticked since the indicator went: its first empty sample is the time it cleared.
    await watcher.waitForFunction(
      (after) => (window as unknown as { typingSamples: Array<[number, string]> }).typingSamples.some(([at, text]) => at > after && text === ''),
      stopped,
      { timeout: WAIT_MS },
    );
    const samples = await watcher.evaluate(() => {
      const w = window as unknown as { typingSamples: Array<[number, string]>; typingTimer: number };
      clearInterval(w.typingTimer);
      return w.typingSamples;
    });
    const shownAt = samples.find(([, text]) => text === expected)?.[0];
    if (shownAt === undefined) throw new Error(`"${expected}" never showed`);
    const gaps = samples.filter(([at, text]) => at > shownAt && at < stopped && text !== expected).length;
    const clearedAt = samples.find(([at, text]) => at > stopped && text === '')?.[0] ?? Number.NaN;
    await input.fill('');
    return { typedMs: stopped - started, firstShownMs: shownAt - started, gaps, clearedMs: clearedAt - stopped };
  }

  it('when someone types for 6 s, then the other side shows it the whole time and clears it about 2 s after they stop, both ways', async () => {
    const { page: customer } = await pageFor(cara, server.url);
    const { page: agent } = await pageFor(alice, server.url);
    await openTicketPage(customer, server.url);
    await openTicketPage(agent, server.url);
    for (const [typist, watcher, expected, who] of [
      [customer, agent, 'Cara is typing...', 'customer -> agent'],
      [agent, customer, 'Alice is typing...', 'agent -> customer'],
    ] as const) {
      const seen = await typeAndWatch(typist, watcher, expected);
      report(
        `typing ${who}: typed ${seen.typedMs} ms, shown after ${seen.firstShownMs} ms, gaps ${seen.gaps}, cleared ${seen.clearedMs} ms after the last key`,
      );
      expect(seen.typedMs).toBeGreaterThanOrEqual(6000);
      expect(seen.gaps).toBe(0);
      expect(seen.clearedMs).toBeGreaterThanOrEqual(1000);
      expect(seen.clearedMs).toBeLessThan(15_000);
    }
  }, 90_000);

  it('when the user navigates again and again while the session is being restored, then they are never signed out (25 tries)', async () => {
    const { page } = await pageFor(cara, server.url);
    // The profile call answers slowly, so every navigation lands while it is still on its way.
    await page.route('**/api/auth/profile', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue().catch(() => undefined);
    });
    const paths = ['/dashboard', '/profile', `/tickets/${ticket._id}`];
    let signedOut = 0;
    for (let attempt = 0; attempt < 25; attempt++) {
      await page.goto(`${server.url}${paths[attempt % paths.length]}`, { waitUntil: 'commit' });
      // The point of the test is a navigation at an arbitrary moment of the restore.
      await page.waitForTimeout(Math.floor(Math.random() * 400));
      const tokens = await page.evaluate(() => localStorage.getItem('refreshToken')).catch(() => 'navigating');
      if (tokens === null || page.url().includes('/login')) signedOut += 1;
    }
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('heading', { name: 'Welcome back, Cara!' }).waitFor();
    report(`restore under rapid navigation: ${signedOut} sign-outs in 25 tries`);
    expect(signedOut).toBe(0);
  }, 120_000);

  it('when two agents open one ticket, then each sees the other, and who is replying, on the page and on the Live Tickets card; the customer sees none of it', async () => {
    const { page: alicePage } = await pageFor(alice, server.url);
    const { page: bobPage } = await pageFor(bob, server.url);
    const { page: customer } = await pageFor(cara, server.url);
    await openTicketPage(alicePage, server.url);
    await openTicketPage(bobPage, server.url);
    await openTicketPage(customer, server.url);
    const aliceSees = alicePage.getByRole('status', { name: 'Other staff on this ticket' });
    const bobSees = bobPage.getByRole('status', { name: 'Other staff on this ticket' });
    await aliceSees.getByText('Also viewing: Bob Tester').waitFor();
    await bobSees.getByText('Also viewing: Alice Tester').waitFor();

    await bobPage.getByRole('textbox', { name: 'Message' }).pressSequentially('Let me take this one');
    await aliceSees.getByText('Bob Tester is replying now').waitFor();
    await shootBothThemes(alicePage, 'ticket-presence');
    await customer.getByText('Bob is typing...').waitFor();
    expect(await customer.getByText(/Also viewing|replying now/).count()).toBe(0);

    await alicePage.goto(`${server.url}/live-tickets`);
    const card = alicePage.getByRole('article', { name: /Charged twice/ });
    await card.getByText(/(Viewing|Replying): Bob/).waitFor();
    await shootBothThemes(alicePage, 'live-tickets-presence');
    await bobPage.getByRole('link', { name: 'Dashboard' }).click();
    await card.getByText(/(Viewing|Replying): Bob/).waitFor({ state: 'detached' });
  });

  it('when the account already holds as many live connections as allowed, then a new tab says live updates are paused and why, and resumes once one closes', async () => {
    const dan = await addMember(server, admin, 'customer', 'Dan');
    const others = await Promise.all(
      Array.from({ length: LIVE_MAX_SOCKETS_DEFAULT }, async () => {
        const socket = io(server.url, { path: '/socket.io', transports: ['websocket'], reconnection: false, forceNew: true, auth: { token: dan.token } });
        await new Promise<void>((resolve, reject) => socket.once('connect', () => resolve()).once('connect_error', reject));
        return socket;
      }),
    );
    try {
      const { page } = await pageFor(dan, server.url);
      await page
        .getByRole('status')
        .getByText(`Live updates paused: Too many live connections for this account (at most ${LIVE_MAX_SOCKETS_DEFAULT}); close another tab or window`)
        .waitFor({ timeout: WAIT_MS });
      const closedAt = Date.now();
      others.pop()!.disconnect();
      // The client waits the `retryAfter` it was given (30 s, plus up to 2 s) before it tries again.
      await page.getByText('Live updates paused', { exact: false }).waitFor({ state: 'detached', timeout: 60_000 });
      report(`paused tab resumed ${Date.now() - closedAt} ms after a connection of the account closed`);
    } finally {
      others.forEach((socket) => socket.disconnect());
    }
  }, 120_000);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
});
