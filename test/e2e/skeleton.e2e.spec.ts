/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const SHOTS = 'test-results/screenshots';

describe('Walking skeleton in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('when a visitor opens the app, then they land on /login and can sign in as the first admin', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForURL('**/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.screenshot({ path: `${SHOTS}/login-light.png` });
    await page.fill('#email', ADMIN.email);
    await page.fill('#password', 'wrong-password');
    await page.click('button[type=submit]');
    await page.getByRole('alert').getByText('Invalid email or password').waitFor();
    await page.fill('#password', ADMIN.password);
    await page.click('button[type=submit]');
    await page.waitForURL('**/dashboard');
    await page.getByRole('heading', { name: 'Welcome back, System!' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('accessToken'))).toBeTruthy();
    const scripts = await page.evaluate(() => [...document.scripts].map((s) => new URL(s.src).pathname));
    expect(scripts.every((src) => src.startsWith('/static/js/'))).toBe(true);
    await page.close();
  });

  it('when the stored theme is dark, then the sign-in page renders dark', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/login`);
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.screenshot({ path: `${SHOTS}/login-dark.png` });
    await page.close();
  });
});
