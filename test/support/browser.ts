/// <reference lib="dom" />
import { type Browser, type Locator, type Page, chromium } from 'playwright-core';
import { eventually } from './eventually';
import { chromiumPath } from './services';

/** Where the e2e suites leave their screenshots (both themes of every screen). */
export const SHOTS = 'test-results/screenshots';

/** Debian's Chromium, headless, with the flags this machine's closed network needs (and any `extraArgs`). */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}

/** Saves the page in the light and the dark theme, then restores the theme it had. */
export async function shootBothThemes(page: Page, name: string) {
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((next) => {
      document.documentElement.dataset.theme = next;
    }, theme);
    await page.screenshot({ path: `${SHOTS}/${name}-${theme}.png`, fullPage: true });
  }
  await page.evaluate((next) => {
    document.documentElement.dataset.theme = next ?? 'light';
  }, before);
}

/**
 * The ticket's conversation: message texts are looked up here, never on the whole page, where the
 * composer or a toast can hold the same words.
 */
export const messageList = (page: Page) => page.getByRole('list', { name: 'Messages' });

/**
 * Waits until a form field holds what is wanted and returns its value. Forms fill in after their data
 * loads (a dialog's first category, a settings page after a reload), so a field read the moment it
 * appears can still be empty.
 */
export function fieldValue(field: Locator, wanted: string | ((value: string) => boolean)): Promise<string> {
  const matches = typeof wanted === 'string' ? (value: string) => value === wanted : wanted;
  let last = '';
  return eventually(
    async () => {
      last = await field.inputValue();
      return matches(last) ? last : undefined;
    },
    { describe: `field value ${typeof wanted === 'string' ? JSON.stringify(wanted) : 'as wanted'} (last seen ${JSON.stringify(last)})` },
  );
}

export async function signIn(page: Page, url: string, email: string, password: string) {
  await page.goto(`${url}/login`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.waitForURL('**/dashboard');
}
