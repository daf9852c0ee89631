/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

/**
 * A browser on another machine opening the desk by a name on plain http, as after `docker compose up`
 * on a server: Chromium resolves desk.example to this machine, so the page is not on localhost (which
 * browsers treat as secure and never upgrade).
 */
describe('The desk opened by a host name on plain http', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser(['--host-resolver-rules=MAP desk.example 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when a visitor opens http://desk.example:<port>, then the app renders and they can sign in', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    const origin = `http://desk.example:${new URL(server.url).port}`;
    await page.goto(`${origin}/`);
    await page.waitForURL('**/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.fill('#email', ADMIN.email);
    await page.fill('#password', ADMIN.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${origin}/dashboard`);
    expect(failed).toEqual([]);
    await page.close();
  });
});
