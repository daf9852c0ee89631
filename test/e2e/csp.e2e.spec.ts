/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

declare global {
  interface Window {
    reportViolation(text: string): void;
  }
}

/** Records every Content-Security-Policy violation of every page load, from before its first script. */
async function watchedPage(browser: Browser, violations: string[]): Promise<Page> {
  const page = await browser.newPage();
  await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      window.reportViolation(`${location.pathname}: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return page;
}

describe('Content-Security-Policy on form pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when the forms that check input with zod are opened and used, then the page reports no CSP violation (no eval)', async () => {
    const violations: string[] = [];
    const page = await watchedPage(browser, violations);
    await page.goto(`${server.url}/register`);
    await page.locator('form').first().waitFor();
    await page.click('button[type=submit]');
    await page.getByText('Username is required').first().waitFor();
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.goto(`${server.url}/admin`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // The Integrations tab builds its forms from the contract's lists of scopes and event types.
    await page.getByRole('tab', { name: 'Integrations' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    expect(violations).toEqual([]);
    await page.close();
  });
});
