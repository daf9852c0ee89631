/// <reference lib="dom" />
import type { Browser, BrowserContext, Route } from 'playwright-core';
import jwt from 'jsonwebtoken';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/** Generous bounds: the machine is loaded. */
const WAIT_MS = 30_000;
const report = (line: string) => process.stdout.write(`[agent day e2e] ${line}\n`);

describe("Web app in Chromium: the agent's day (issue 41)", () => {
  let server: TestServer;
  let browser: Browser;
  let admin: string;
  let alice: Member;
  let cara: Member;
  let category: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    cara = await addMember(server, admin, 'customer', 'Cara');
    category = await addCategory(server, admin, { name: 'Billing' });
    await openTicket(server, cara, category, { title: 'Charged twice' });
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const pageFor = async (member: Member, viewport = { width: 1440, height: 900 }) => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, server.url, member.email, 'password-123');
    return { context, page };
  };

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
