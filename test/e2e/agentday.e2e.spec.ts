/// <reference lib="dom" />
import type { Browser, BrowserContext, Route } from 'playwright-core';
import { STATUS_WORDS } from '#contract/tickets';
import jwt from 'jsonwebtoken';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type CuttableLink, cuttableLink } from '../support/proxy';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
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

  it('when a refresh reaches the server but its answer is lost to a navigation, then the next page stays signed in (10 of 10)', async () => {
    const { page } = await pageFor(alice);
    let signedIn = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
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
