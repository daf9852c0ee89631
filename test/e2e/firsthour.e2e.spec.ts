/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const CUSTOMER = { firstName: 'Nia', lastName: 'First', username: 'nia_first', email: 'nia@first.example', password: 'password-123' };

/** A desk's first hour (issue 50): what its admin and its first customer meet before anything is set up. */
describe('A new desk in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: Page;
  let customer: Page;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    expect((await server.request('POST', '/api/auth/register', { body: { ...CUSTOMER } })).status).toBe(201);
    admin = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    customer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const step = (name: string) => admin.getByRole('region', { name: 'Set up your desk' }).getByRole('listitem').filter({ hasText: name });

  it('when a customer registers before any category exists, then the create form says why it cannot be sent and whom to ask', async () => {
    await signIn(customer, server.url, CUSTOMER.email, CUSTOMER.password);
    await customer.getByRole('button', { name: 'Create New Ticket' }).click();
    const dialog = customer.getByRole('dialog', { name: 'Create New Ticket' });
    await dialog.getByText("Tickets can't be opened yet: this desk has no categories set up. Please contact the support team and they will add one.").waitFor();
    expect(await dialog.getByRole('button', { name: 'Create Ticket' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('when the admin signs in, then the first screen is a setup checklist that ticks itself as the desk is set up', async () => {
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
    const checklist = admin.getByRole('region', { name: 'Set up your desk' });
    await checklist.getByText('0 of 5 done').waitFor();
    await checklist.getByText(/No tickets yet\. Customers open tickets by registering on this site/).waitFor();
    await step('Add a category').getByRole('link', { name: 'Add categories' }).click();
    await admin.waitForURL('**/admin?tab=Categories');
    await admin.getByRole('tabpanel', { name: 'Categories' }).waitFor();
    await admin.getByRole('button', { name: 'Add Category' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add New Category' });
    await dialog.getByLabel('Name', { exact: true }).fill('General');
    await dialog.getByRole('button', { name: 'Create Category' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Dashboard' }).click();
    await checklist.getByText('1 of 5 done').waitFor();
    await step('Add a category').getByText('1 category').waitFor();
    expect(await step('Add a category').getByRole('link').count()).toBe(0);
  });

  it('when a category exists, then the customer can open a ticket, and the checklist sees it arrive', async () => {
    await customer.reload();
    await customer.getByRole('button', { name: 'Create New Ticket' }).click();
    const dialog = customer.getByRole('dialog', { name: 'Create New Ticket' });
    await dialog.getByLabel('Title').fill('Where do I start?');
    await dialog.getByLabel('Description').fill('First ticket of this desk.');
    await dialog.getByRole('button', { name: 'Create Ticket' }).click();
    await customer.waitForURL('**/tickets/*');
    await admin.reload();
    await admin.getByRole('region', { name: 'Set up your desk' }).getByText('1 of 5 done').waitFor();
    expect(await admin.getByText(/No tickets yet\./).count()).toBe(0);
  });
});
