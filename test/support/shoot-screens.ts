/// <reference lib="dom" />
/**
 * Saves the ticket screen (1440x900), Live Tickets as cards and as a table (1440x900), the phone ticket
 * screen (390x844), the phone drawer and the admin's dashboard (1440, whole page) of a seeded desk, and a fresh desk's
 * first screen for its admin (1440), into a folder
 * (`npx tsx --conditions=source test/support/shoot-screens.ts <dir> [suffix]`, after `npm run build`): the
 * before/after pictures of a layout change.
 */
import { mkdirSync } from 'node:fs';
import { launchBrowser, signIn } from './browser';
import { addMember, openTicket } from './desk';
import { seedDesk } from './screens';
import { ADMIN, startTestServer } from './server';

/** Enough open tickets that Live Tickets holds more rows than one screen. */
const EXTRA_TICKETS = 18;

async function main() {
  const dir = process.argv[2] ?? 'test-results/screens';
  const suffix = process.argv[3] ? `-${process.argv[3]}` : '';
  mkdirSync(dir, { recursive: true });
  const server = await startTestServer();
  const browser = await launchBrowser();
  try {
    const desk = await seedDesk(server);
    const adminToken = await server.login();
    const categories = await server.request('GET', '/api/categories', { token: adminToken });
    const category = categories.body.categories[0]._id as string;
    for (let i = 1; i <= EXTRA_TICKETS; i += 1) {
      const customer = await addMember(server, adminToken, 'customer', `Customer ${i}`);
      await openTicket(server, customer, category, { title: `Order ${1000 + i} has not arrived yet`, description: 'Tracking shows no movement.' });
    }
    for (const [label, size] of [
      ['1440', { width: 1440, height: 900 }],
      ['phone-390', { width: 390, height: 844 }],
    ] as const) {
      for (const who of ['agent', 'customer'] as const) {
        const page = await (await browser.newContext({ viewport: size })).newPage();
        await signIn(page, server.url, desk[who].email, desk[who].password);
        await page.goto(`${server.url}/tickets/${desk.ticketId}`);
        await page.getByRole('list', { name: 'Messages' }).getByText('Message 12').waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${dir}/ticket-${who}-${label}${suffix}.png` });
        if (who === 'agent' && label === '1440') {
          await page.goto(`${server.url}/live-tickets`);
          await page.getByRole('heading', { name: 'Live Tickets' }).waitFor();
          await page.getByText('Invoice shows the wrong amount').first().waitFor();
          await page.screenshot({ path: `${dir}/live-tickets-cards-${label}${suffix}.png` });
          await page.getByRole('button', { name: 'Table' }).click();
          await page.getByRole('table', { name: 'Tickets' }).waitFor();
          await page.waitForTimeout(300);
          await page.screenshot({ path: `${dir}/live-tickets-table-${label}${suffix}.png` });
        }
        if (who === 'agent' && label === '1440') {
          const admin = await (await browser.newContext({ viewport: size })).newPage();
          await signIn(admin, server.url, desk.admin.email, desk.admin.password);
          await admin.getByRole('heading', { name: 'Recent Tickets' }).waitFor();
          await admin.waitForTimeout(500);
          await admin.screenshot({ path: `${dir}/dashboard-${label}${suffix}.png`, fullPage: true });
          await admin.context().close();
        }
        if (who === 'agent' && label === 'phone-390') {
          await page
            .getByRole('button', { name: /Expand sidebar|Open menu/ })
            .first()
            .click();
          await page.waitForTimeout(400);
          await page.screenshot({ path: `${dir}/drawer-${label}${suffix}.png` });
        }
        await page.context().close();
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  await shootFirstHour(dir, suffix);
}

/** A desk's first start: what its admin meets after signing in, before anything is set up. */
async function shootFirstHour(dir: string, suffix: string) {
  const server = await startTestServer();
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signIn(page, server.url, ADMIN.email, ADMIN.password);
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${dir}/first-hour-1440${suffix}.png`, fullPage: true });
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
