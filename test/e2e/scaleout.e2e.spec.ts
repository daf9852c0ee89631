/// <reference lib="dom" />
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import IORedis from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { projectRoot } from '../../src/platform/paths';
import { launchBrowser, messageList, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { ADMIN, type TestServer, startTestServer, urlOfStarted } from '../support/server';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * docs/architecture.md "Scaling past one machine", on one machine: two API processes share one event log and
 * one Redis. Each tails the log for its own sockets, the socket.io Redis adapter carries what goes
 * socket to socket (typing), and the workers' lease lets one process plan notifications.
 */
describe('Two API processes behind one event log and one Redis', () => {
  const prefix = `scaleout-${randomUUID().slice(0, 8)}`;
  let first: TestServer;
  let second: { url: string; child: ChildProcess };
  let browser: Browser;
  let customerPage: Page;
  let agentPage: Page;
  let customer: Member;
  let ticket: { _id: string; ticketId: number };
  const redis = new IORedis(REDIS_URL);

  /** The mails about a ticket in the outbox the two processes share. */
  const mailsAbout = (ticketId: number) => {
    const dir = path.join(first.dataDir, 'outbox');
    let files: string[];
    try {
      files = readdirSync(dir).filter((name) => name.endsWith('.eml'));
    } catch {
      return [];
    }
    return files.map((name) => readFileSync(path.join(dir, name), 'utf8')).filter((mail) => mail.includes(`#${ticketId}`));
  };

  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: prefix, WORKERS_LEASE_TTL_MS: '1500' };
    first = await startTestServer({ env });
    const admin = await first.login();
    expect((await first.request('PUT', '/api/settings', { token: admin, body: { emailNotifications: true } })).status).toBe(200);

    // The second process: the same code, the same DATA_DIR (event log, secrets) and Redis prefix.
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot(),
      env: { ...process.env, ...env, PORT: '0', DATA_DIR: first.dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await urlOfStarted(child);
    second = { url, child };

    const category = await addCategory(first, admin, { name: 'Scale' });
    customer = await addMember(first, admin, 'customer', 'Carla');
    const agent = await addMember(first, admin, 'agent', 'Arjun');
    ticket = await openTicket(first, customer, category, { title: 'Two processes, one desk' });

    browser = await launchBrowser();
    customerPage = await (await browser.newContext()).newPage();
    agentPage = await (await browser.newContext()).newPage();
    // The customer's browser talks to the second process only, the agent's to the first only.
    await signIn(customerPage, second.url, customer.email, 'password-123');
    await signIn(agentPage, first.url, agent.email, 'password-123');
    expect((await first.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { assignedAgent: agent.id } })).status).toBe(200);
    await customerPage.goto(`${second.url}/tickets/${ticket._id}`);
    await agentPage.goto(`${first.url}/tickets/${ticket._id}`);
    await customerPage.getByText('Live', { exact: true }).waitFor();
    await agentPage.getByText('Live', { exact: true }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    second?.child.kill('SIGTERM');
    if (second && second.child.exitCode === null) await new Promise((resolve) => second.child.once('exit', resolve));
    await first?.stop();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('when the agent writes through one process, then the customer connected to the other sees the typing and the message live', async () => {
    const input = agentPage.getByRole('textbox', { name: 'Message' });
    await input.pressSequentially('Checking both nodes');
    await customerPage.getByText('Arjun is typing...').waitFor();
    await input.press('Enter');
    await messageList(customerPage).getByText('Checking both nodes').waitFor();
  });

  it('when the customer answers through the second process, then the agent on the first sees it live', async () => {
    const input = customerPage.getByRole('textbox', { name: 'Message' });
    await input.fill('Seen from the other side');
    await input.press('Enter');
    await messageList(agentPage).getByText('Seen from the other side').waitFor();
  });

  it('then each notification was sent once, by the one process holding the workers lease', async () => {
    expect(await redis.get(`${prefix}:lease:notifications`)).toBeTruthy();
    const reply = await eventually(
      () => mailsAbout(ticket.ticketId).filter((mail) => mail.includes('Checking both nodes')).length > 0 && mailsAbout(ticket.ticketId),
      {
        describe: 'the reply mail',
      },
    );
    // Both processes saw every event; give a second planner time to show itself.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const mails = mailsAbout(ticket.ticketId);
    expect(mails.filter((mail) => mail.includes('Checking both nodes'))).toHaveLength(1);
    expect(mails.filter((mail) => /Ticket #\d+ created/.test(mail))).toHaveLength(1);
    expect(mails.length).toBe(reply.length);
  });
});
