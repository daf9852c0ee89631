/// <reference lib="dom" />
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { STATUS_WORDS, TICKET_STATUSES, type TicketStatus } from '#contract/tickets';
import jwt from 'jsonwebtoken';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type CuttableLink, cuttableLink } from '../support/proxy';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { type TestServer, startTestServer } from '../support/server';

/** Generous bounds: the machine is loaded. */
const WAIT_MS = 30_000;
const report = (line: string) => process.stdout.write(`[agent day e2e] ${line}\n`);

describe("Web app in Chromium: the agent's day (issue 41)", () => {
  let server: TestServer;
  let link: CuttableLink;
  let browser: Browser;
  let admin: string;
  let alice: Member;
  let cara: Member;
  let category: string;
  let ticket: { _id: string; ticketId: number };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    cara = await addMember(server, admin, 'customer', 'Cara');
    category = await addCategory(server, admin, { name: 'Billing' });
    ticket = await openTicket(server, cara, category, { title: 'Charged twice' });
    link = await cuttableLink(server.url);
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await link?.close();
    await server?.stop();
  });

  const pageFor = async (member: Member, viewport = { width: 1440, height: 900 }, base = server.url) => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, base, member.email, 'password-123');
    return { context, page };
  };

  it('when a message and then a status change happen while the customer is offline, then on return the status line is in the conversation without a reload', async () => {
    const { context, page } = await pageFor(cara, { width: 1440, height: 900 }, link.url);
    await page.goto(`${link.url}/tickets/${ticket._id}`);
    await page.getByRole('heading', { name: 'Charged twice' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await context.setOffline(true);
    link.cut();
    await page.getByRole('status').getByText('Reconnecting…').waitFor();
    const posted = await server.request('POST', `/api/tickets/${ticket._id}/messages`, {
      token: alice.token,
      body: { content: 'Refund is on its way', isInternal: false },
    });
    expect(posted.status).toBe(201);
    expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: alice.token, body: { status: 'pending_customer' } })).status).toBe(200);
    link.restore();
    await context.setOffline(false);
    await messageList(page).getByText('Refund is on its way').waitFor({ timeout: WAIT_MS });
    await messageList(page).getByText(`Status changed to ${STATUS_WORDS.pending_customer}`).waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate(() => 'sameDocument' in window)).toBe(true);
  }, 90_000);

  /** A fresh customer's ticket assigned to Alice, the newest of the desk. */
  const aliceTicket = async (title: string) => {
    const customer = await addMember(server, admin, 'customer', 'Cody');
    const opened = await openTicket(server, customer, category, { title });
    expect((await server.request('POST', `/api/tickets/${opened._id}/assign`, { token: alice.token, body: { agentId: alice.id } })).status).toBe(200);
    return { customer, ticket: opened };
  };
  /**
   * The e-mails a member got, by outbox file (the test server has no SMTP_URL, so each mail is an .eml
   * in DATA_DIR/outbox), with their subject: headers unfolded, as a long subject is folded.
   */
  const mailsTo = (member: Member) => {
    const dir = path.join(server.dataDir, 'outbox');
    const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.eml')) : [];
    return files.flatMap((file) => {
      const headers = readFileSync(path.join(dir, file), 'utf8')
        .split(/\r?\n\r?\n/)[0]!
        .replace(/\r?\n(?=[ \t])/g, '');
      return new RegExp(`^To: .*${member.email}`, 'm').test(headers) ? [{ file, subject: /^Subject: (.*)$/m.exec(headers)?.[1] ?? '' }] : [];
    });
  };
  const post = async (token: string, ticketId: string, content: string) =>
    expect((await server.request('POST', `/api/tickets/${ticketId}/messages`, { token, body: { content, isInternal: false } })).status).toBe(201);

  /** Goes offline: the browser says so and the proxy cuts the open socket (which going offline leaves up). */
  const goOffline = async (context: BrowserContext, page: Page) => {
    await context.setOffline(true);
    link.cut();
    await page.getByRole('status').getByText('Reconnecting…').waitFor();
  };
  const backOnline = async (context: BrowserContext) => {
    link.restore();
    await context.setOffline(false);
  };

  it('when the connection drops on a long conversation, then the "Reconnecting…" banner leaves the last message in view', async () => {
    const { customer, ticket: mine } = await aliceTicket('A long conversation');
    for (let line = 1; line <= 25; line++) await post(line % 2 ? customer.token : alice.token, mine._id, `Line ${line} of a long conversation`);
    const { context, page } = await pageFor(alice, { width: 1440, height: 900 }, link.url);
    await page.goto(`${link.url}/tickets/${mine._id}`);
    await messageList(page).getByText('Line 25 of a long conversation').waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    /** The last message's box against the list's, once layout and the list's own scrolling have settled. */
    const lastMessage = () =>
      page.evaluate(async () => {
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        const list = document.querySelector('.message-list')!.getBoundingClientRect();
        const last = [...document.querySelectorAll('.message-list .message')].at(-1)!.getBoundingClientRect();
        return { inView: last.top >= list.top - 1 && last.bottom <= list.bottom + 1, hiddenBelow: Math.max(0, Math.round(last.bottom - list.bottom)) };
      });
    expect(await lastMessage()).toEqual({ inView: true, hiddenBelow: 0 });
    await goOffline(context, page);
    expect(await lastMessage()).toEqual({ inView: true, hiddenBelow: 0 });
    await backOnline(context);
  }, 90_000);

  it('when an agent writes two messages offline, then they wait in the conversation and arrive once each, in order, when the connection returns', async () => {
    const { ticket: mine } = await aliceTicket('Written on a train');
    const { context, page } = await pageFor(alice, { width: 1440, height: 900 }, link.url);
    await page.goto(`${link.url}/tickets/${mine._id}`);
    await page.getByText('Live', { exact: true }).waitFor();
    await goOffline(context, page);
    const box = page.getByRole('textbox', { name: 'Message' });
    for (const text of ['First from the train', 'Second from the train']) {
      await box.fill(text);
      await box.press('Enter');
    }
    const waiting = messageList(page).getByText('Waiting for the connection…');
    await waiting.nth(1).waitFor();
    expect(await box.inputValue()).toBe('');
    const back = Date.now();
    await backOnline(context);
    // The bubbles go one by one as each is sent ("Sending…" in between): the log says when both have landed.
    const fromTheTrain = async () =>
      ((await server.request('GET', `/api/tickets/${mine._id}/messages`, { token: alice.token })).body.messages as Array<{ content: string }>)
        .map((message) => message.content)
        .filter((content) => content.endsWith('from the train'));
    await eventually(async () => (await fromTheTrain()).length >= 2, { timeoutMs: WAIT_MS, describe: 'both messages written offline posted' });
    report(`outbox: two messages written offline sent ${Date.now() - back} ms after the network came back`);
    await waiting.first().waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(await fromTheTrain()).toEqual(['First from the train', 'Second from the train']);
    for (const text of ['First from the train', 'Second from the train']) await messageList(page).getByText(text, { exact: true }).waitFor();
    expect(await messageList(page).getByText('from the train').count()).toBe(2);
  }, 90_000);

  it('when the page is reloaded while a sent message waits for its answer, then it arrives once after the reload, never lost, never twice', async () => {
    const { ticket: mine } = await aliceTicket('Reloaded mid-send');
    const { page } = await pageFor(alice);
    await page.goto(`${server.url}/tickets/${mine._id}`);
    await page.getByText('Live', { exact: true }).waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    const countOf = async (content: string) =>
      ((await server.request('GET', `/api/tickets/${mine._id}/messages`, { token: alice.token })).body.messages as Array<{ content: string }>).filter(
        (message) => message.content === content,
      ).length;
    /** Sends `content` with no answer from the desk (`reach`: whether the try reaches it at all), then reloads between tries. */
    const reloadMidSend = async (content: string, reach: boolean) => {
      let tried: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (tried = resolve));
      const hold = async (route: Route) => {
        if (route.request().method() !== 'POST') return route.continue();
        tried();
        // Not reaching: the network fails the try (the page waits a second and tries again). Reaching: the desk
        // stores it and the answer is held back until the reload.
        if (reach) await route.fetch();
        else await route.abort('connectionreset');
      };
      await page.route('**/api/tickets/*/messages', hold);
      await box.fill(content);
      await box.press('Enter');
      await held;
      expect(await box.inputValue()).toBe('');
      await page.unroute('**/api/tickets/*/messages', hold);
      await page.reload();
      // Until the try sent again is answered, a stored message also shows as the outbox's "Sending…" copy (the
      // list cannot tell them apart: messages carry no Idempotency-Key); once settled, it shows once (below).
      await messageList(page).getByText(content, { exact: true }).first().waitFor({ timeout: WAIT_MS });
      await eventually(async () => (await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('outbox')).length)) === 0, {
        timeoutMs: WAIT_MS,
        describe: 'the recovered message settled',
      });
      expect(await countOf(content)).toBe(1);
      expect(await messageList(page).getByText(content, { exact: true }).count()).toBe(1);
    };
    // The try never reached the desk: only this browser had the message.
    await reloadMidSend('Lost in a reload before', false);
    // The try was stored but its answer never came: sent again with its key, the desk answers with the first.
    await reloadMidSend('Stored, answer lost', true);
  }, 90_000);

  it('when the customer writes, then Live Tickets shows an unread badge within 1 s and the tab title counts it; opening the ticket clears both', async () => {
    const { customer, ticket: mine } = await aliceTicket('Where is my parcel');
    const { page } = await pageFor(alice);
    await page.goto(`${server.url}/live-tickets`);
    const card = page.getByRole('article', { name: new RegExp(`^Ticket #${mine.ticketId}:`) });
    await card.waitFor();
    await page.waitForFunction(() => document.title === 'Live Tickets · Customer Support System');
    expect(await card.locator('.unread-badge').count()).toBe(0);
    await post(customer.token, mine._id, 'Still nothing here');
    const posted = Date.now();
    await card.locator('.unread-badge', { hasText: /^1 unread$/ }).waitFor({ timeout: WAIT_MS });
    const badgeMs = Date.now() - posted;
    await page.waitForFunction(() => document.title === '(1) Live Tickets · Customer Support System', undefined, { timeout: WAIT_MS });
    report(`unread badge on Live Tickets ${badgeMs} ms after the customer's message was stored`);
    expect(badgeMs).toBeLessThan(1000);
    await post(customer.token, mine._id, 'Hello?');
    await card.locator('.unread-badge', { hasText: /^2 unread$/ }).waitFor({ timeout: WAIT_MS });
    await page.waitForFunction(() => document.title.startsWith('(2) '), undefined, { timeout: WAIT_MS });

    await card.click();
    await messageList(page).getByText('Hello?').waitFor();
    // The ticket's tab names it, so tabs of several tickets tell apart.
    await page.waitForFunction((title) => document.title === title, `#${mine.ticketId} Where is my parcel · Customer Support System`, { timeout: WAIT_MS });
    await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Live Tickets' }).click();
    await card.waitFor();
    expect(await card.locator('.unread-badge').count()).toBe(0);
    expect(await page.title()).toBe('Live Tickets · Customer Support System');
    // Read is read on the server too: a reload shows no badge.
    await page.reload();
    await card.waitFor();
    expect(await card.locator('.unread-badge').count()).toBe(0);
    // The sort chosen is in the address: a reload keeps it.
    await page.getByRole('combobox', { name: 'Sort tickets' }).selectOption('priority');
    await page.waitForURL(/[?&]sort=priority/);
    await page.reload();
    await card.waitFor();
    expect(await page.getByRole('combobox', { name: 'Sort tickets' }).inputValue()).toBe('priority');
  }, 90_000);

  it('when the agent uses only the keyboard, then they go from Live Tickets to a sent reply and a status change, which mails the customer once', async () => {
    const { customer, ticket: mine } = await aliceTicket('Keyboard only please');
    const { page } = await pageFor(alice);
    await page.goto(`${server.url}/live-tickets`);
    await page.getByRole('article', { name: new RegExp(`^Ticket #${mine.ticketId}:`) }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const action of [
      'Reply (focus the message box)',
      'Write an internal note',
      'Send',
      'Next ticket',
      'Previous ticket',
      'Assign to me',
      'Change status',
      "Focus the screen's search, or search the desk",
      'Search the desk',
    ])
      await help.getByRole('cell', { name: action, exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // j: the first (newest) ticket's card; Enter opens it.
    await page.keyboard.press('j');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(new RegExp(`^Ticket #${mine.ticketId}:`));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard only please' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await page.keyboard.press('r');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');
    await page.keyboard.type('Sent without a mouse');
    await page.keyboard.press('Enter');
    await messageList(page).getByText('Sent without a mouse').waitFor();
    await page.keyboard.press('Escape');
    // The mails of the assignment (which starts work) and of the reply have landed: what comes after is the status change's.
    const mailedBefore = await eventually(
      () => {
        const mails = mailsTo(customer);
        const subjects = mails.map((mail) => mail.subject);
        const landed =
          subjects.some((subject) => subject.includes('New reply on ticket')) &&
          subjects.some((subject) => subject.endsWith(`is now ${STATUS_WORDS.in_progress}`));
        return landed && new Set(mails.map((mail) => mail.file));
      },
      { timeoutMs: WAIT_MS, describe: 'the assignment and the reply mailed to the customer' },
    );
    // s, two arrows and Enter are one intent: one status change (a closed select's arrows change it, and each change used to be saved).
    const statusChanges = async () =>
      (await server.request('GET', `/api/tickets/${mine._id}/history`, { token: alice.token })).body.events.filter(
        (event: { type: string }) => event.type === 'TicketStatusChanged',
      ).length;
    const changesBefore = await statusChanges();
    await page.keyboard.press('s');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('ticket-status');
    const before = (await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)) as TicketStatus;
    const after = TICKET_STATUSES[TICKET_STATUSES.indexOf(before) + 2]!;
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.getByText('Enter saves, Escape cancels').waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)).toBe(after);
    await page.keyboard.press('Enter');
    await messageList(page).getByText(`Status changed to ${STATUS_WORDS[after]}`).waitFor({ timeout: WAIT_MS });
    const stored = await server.request('GET', `/api/tickets/${mine._id}`, { token: alice.token });
    expect(stored.body.ticket.status).toBe(after);
    expect(await statusChanges()).toBe(changesBefore + 1);
    // One change, one e-mail to the customer (a resolution also sends its survey, a mail of its own).
    const statusMail = `Ticket #${mine.ticketId} is now ${STATUS_WORDS[after]}`;
    const mailedSince = () => mailsTo(customer).filter((mail) => !mailedBefore.has(mail.file) && !mail.subject.includes('How did we do'));
    await eventually(() => mailedSince().some((mail) => mail.subject.endsWith(statusMail)), {
      timeoutMs: WAIT_MS,
      describe: 'the status mailed to the customer',
    });
    // A status saved on each arrow was mailed before this one; a moment more catches a straggler all the same.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mailedSince().map((mail) => mail.subject)).toEqual([expect.stringMatching(new RegExp(`${statusMail}$`))]);
    expect(stored.body.messages.map((message: { content: string }) => message.content)).toContain('Sent without a mouse');
  }, 90_000);

  for (const size of [
    { width: 390, height: 844 },
    { width: 768, height: 1024 },
  ]) {
    it(`when a ticket with two messages opens at ${size.width}x${size.height}, then the composer and Send show without scrolling`, async () => {
      const { customer, ticket: mine } = await aliceTicket(`Two messages at ${size.width} px with a title long enough to need more than one line on a phone`);
      await post(customer.token, mine._id, 'First message');
      await post(alice.token, mine._id, 'Second message');
      for (const who of [alice, customer]) {
        const { page } = await pageFor(who, size);
        await page.goto(`${server.url}/tickets/${mine._id}`);
        await messageList(page).getByText('Second message').waitFor();
        const seen = await page.evaluate(() => {
          const inWindow = (element: Element | null | undefined) => {
            if (!element) return false;
            const box = element.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
          };
          return {
            composer: inWindow(document.querySelector('textarea[aria-label="Message"]')),
            send: inWindow(document.querySelector('button[aria-label="Send message"]')),
            scrolled: window.scrollY,
          };
        });
        expect({ size, who: who.email, ...seen }).toEqual({ size, who: who.email, composer: true, send: true, scrolled: 0 });
      }
    }, 60_000);
  }

  it('when a refresh reaches the server but its answer is lost to a navigation, then the next page stays signed in (10 of 10)', async () => {
    const { page } = await pageFor(alice);
    let signedIn = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      // Off the app first (a page of its origin that runs none of it): an app still loading would read the
      // run-out token, refresh before the route below holds it, and store a fresh one, so the next page would
      // not refresh at all and the wait for it would never end.
      await page.goto(`${server.url}/api/health`);
      // The stored access token has run out, so the next page spends the refresh token.
      await page.evaluate(
        (expired) => localStorage.setItem('accessToken', expired),
        expiredCopyOf(await page.evaluate(() => localStorage.getItem('accessToken')!), server.deps.jwtSecret),
      );
      let rotated!: () => void;
      const reachedServer = new Promise<void>((resolve) => (rotated = resolve));
      let held = false;
      // The first refresh reaches the server (which rotates the token) and its answer is held back
      // until the page navigates away; later ones pass.
      const hold = async (route: Route) => {
        if (held) return route.continue();
        held = true;
        await route.fetch();
        rotated();
      };
      await page.route('**/api/auth/refresh', hold);
      await page.goto(`${server.url}/dashboard`, { waitUntil: 'commit' });
      await reachedServer;
      await page.goto(`${server.url}/live-tickets`);
      await page.getByRole('heading', { name: 'Live Tickets' }).waitFor({ timeout: WAIT_MS });
      await page.unroute('**/api/auth/refresh', hold);
      if (page.url().endsWith('/live-tickets') && (await page.evaluate(() => localStorage.getItem('refreshToken')))) signedIn += 1;
    }
    report(`refresh answer lost to a navigation: signed in ${signedIn} of 10`);
    expect(signedIn).toBe(10);
  }, 180_000);
});

/** The same access token with its expiry in the past, signed as the server signs. */
function expiredCopyOf(token: string, secret: string): string {
  const { iat: _iat, exp: _exp, ...claims } = jwt.decode(token) as Record<string, unknown>;
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: -60 });
}
