/// <reference lib="dom" />
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { addCategory, addMember, openTicket } from '../support/desk';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

describe('Web app in Chromium: integrations', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: Page;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startTestServer({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '100' } });
    browser = await launchBrowser();
    admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(admin, server.url, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('when an admin creates an API token, then its secret is shown once and works, and revoking it stops it', async () => {
    const adminToken = await server.login();
    const agent = await addMember(server, adminToken, 'agent', 'Ivy');
    await admin.goto(`${server.url}/admin`);
    await admin.getByRole('tab', { name: 'Integrations' }).click();
    const tokens = admin.getByRole('region', { name: 'API tokens' });
    await tokens.getByLabel('Label').fill('CRM sync');
    await tokens.getByLabel('Acts as').selectOption(agent.id);
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const secret = (await admin.getByTestId('secret-once').first().textContent())!.trim();
    expect(secret).toMatch(/^sdt_/);
    expect((await server.request('GET', '/api/tickets', { token: secret })).status).toBe(200);

    const row = tokens.getByRole('row').filter({ hasText: 'CRM sync' });
    await row.getByText('Ivy Tester (agent)').waitFor();
    // Shown once: after it is dismissed, the page never shows it again, nor does a reload.
    await admin.getByRole('button', { name: 'I have copied it' }).click();
    await admin.reload();
    await admin.getByRole('tab', { name: 'Integrations' }).click();
    await tokens.getByRole('row').filter({ hasText: 'CRM sync' }).waitFor();
    expect(await admin.content()).not.toContain(secret);

    await tokens.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await tokens.getByRole('row').filter({ hasText: 'CRM sync' }).getByText('revoked').waitFor();
    expect((await server.request('GET', '/api/tickets', { token: secret })).status).toBe(401);
  }, 60_000);

  it('when an admin adds a webhook, then events reach the receiver and the delivery log shows them', async () => {
    await admin.goto(`${server.url}/admin`);
    await admin.getByRole('tab', { name: 'Integrations' }).click();
    const webhooks = admin.getByRole('region', { name: 'Webhooks' });
    await webhooks.getByLabel('Endpoint URL').fill(receiverUrl);
    await webhooks.getByRole('button', { name: 'Add webhook' }).click();
    expect((await admin.getByTestId('secret-once').first().textContent())!.trim()).toMatch(/^whsec_/);

    const adminToken = await server.login();
    const customer = await addMember(server, adminToken, 'customer');
    await openTicket(server, customer, await addCategory(server, adminToken));
    const log = admin.getByRole('table', { name: 'Delivery log' });
    await log.getByText('TicketOpened').waitFor({ timeout: 20_000 });
    await log.getByText('Delivered').first().waitFor();
    expect(received.some((body) => (JSON.parse(body) as { type: string }).type === 'desk.TicketOpened')).toBe(true);

    // Redeliver by hand: the receiver gets the event once more.
    const before = received.length;
    await log
      .getByRole('button', { name: /^Redeliver/ })
      .first()
      .click();
    await (async () => {
      for (let i = 0; i < 200 && received.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    })();
    expect(received.length).toBe(before + 1);
  }, 60_000);
});
