/// <reference lib="dom" />
/**
 * Saves the ticket screen, Live Tickets and the phone layout of a seeded desk into a folder
 * (`npx tsx --conditions=source test/support/shoot-screens.ts <dir>`, after `npm run build`): the before/after pictures of
 * a layout change.
 */
import { mkdirSync } from 'node:fs';
import { launchBrowser, signIn } from './browser';
import { seedDesk } from './screens';
import { startTestServer } from './server';

async function main() {
  const dir = process.argv[2] ?? 'test-results/screens';
  mkdirSync(dir, { recursive: true });
  const server = await startTestServer();
  const browser = await launchBrowser();
  try {
    const desk = await seedDesk(server);
    for (const [label, size] of [
      ['desktop', { width: 1366, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      for (const who of ['agent', 'customer'] as const) {
        const page = await (await browser.newContext({ viewport: size })).newPage();
        await signIn(page, server.url, desk[who].email, desk[who].password);
        await page.goto(`${server.url}/tickets/${desk.ticketId}`);
        await page.getByRole('list', { name: 'Messages' }).getByText('Message 12').waitFor();
        await page.screenshot({ path: `${dir}/ticket-${who}-${label}.png` });
        if (who === 'agent') {
          await page.goto(`${server.url}/live-tickets`);
          await page.getByRole('heading', { name: 'Live Tickets' }).waitFor();
          await page.getByText('Invoice shows the wrong amount').first().waitFor();
          await page.screenshot({ path: `${dir}/live-tickets-${label}.png` });
          await page.screenshot({ path: `${dir}/live-tickets-${label}-full.png`, fullPage: true });
          if (label === 'phone') {
            await page
              .getByRole('button', { name: /Expand sidebar|Open menu/ })
              .first()
              .click();
            await page.waitForTimeout(400);
            await page.screenshot({ path: `${dir}/drawer-phone.png` });
          }
        }
        await page.context().close();
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
