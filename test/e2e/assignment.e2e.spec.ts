/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { ADMIN, type TestServer, startTestServer } from '../support/server';

const PASSWORD = 'password-123';
const usernameOf = (member: Member) => member.email.split('@')[0]!;

describe('Web app in Chromium: availability and round-robin assignment (docs/teams.md)', () => {
  let server: TestServer;
  let browser: Browser;
  const pages: Page[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const pageOf = async (email: string, password = PASSWORD) => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, server.url, email, password);
    pages.push(page);
    return page;
  };

  it('when an agent of a round-robin team goes Away, then the next new ticket goes to the other agent', async () => {
    const token = await server.login();
    const ana = await addMember(server, token, 'agent', 'Ana');
    const ben = await addMember(server, token, 'agent', 'Ben');

    const admin = await pageOf(ADMIN.email, ADMIN.password);
    await admin.goto(`${server.url}/admin?tab=Teams`);
    await admin.getByRole('button', { name: 'Add Team' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add New Team' });
    await dialog.getByLabel('Team Name').fill('Refunds');
    await dialog.getByRole('checkbox', { name: /Ana Tester/ }).check();
    await dialog.getByRole('checkbox', { name: /Ben Tester/ }).check();
    await dialog.getByLabel('Assign new tickets').selectOption({ label: 'Round-robin' });
    await dialog.getByLabel(/Open tickets per agent at most/).fill('10');
    await dialog.getByRole('button', { name: 'Create Team' }).click();
    await dialog.waitFor({ state: 'detached' });
    const card = admin.getByRole('article', { name: 'Refunds' });
    await card.getByText('Round-robin, at most 10 open tickets each').waitFor();

    const teamId = ((await server.request('GET', '/api/teams', { token })).body.teams as Array<{ _id: string; name: string }>).find(
      (team) => team.name === 'Refunds',
    )!._id;
    const category = await addCategory(server, token, { routeTeamId: teamId });
    const assigneeOf = async (ticketId: string) => (await server.request('GET', `/api/tickets/${ticketId}`, { token })).body.ticket.assignedAgent?._id;
    const newTicket = async () => openTicket(server, await addMember(server, token, 'customer', 'Cleo'), category);

    // Both available: Ana, the first member, takes the first turn.
    expect(await assigneeOf((await newTicket())._id)).toBe(ana.id);

    const asAna = await pageOf(ana.email);
    await asAna.getByRole('button', { name: 'Availability: Available' }).click();
    await asAna.getByRole('button', { name: 'Availability: Away' }).waitFor();
    await admin.reload();
    await card.getByRole('button', { name: 'Set Ana Tester Available' }).waitFor();

    // Ana is away: the next tickets go to Ben, and he sees the new one as his.
    const second = await newTicket();
    expect(await assigneeOf(second._id)).toBe(ben.id);
    expect(await assigneeOf((await newTicket())._id)).toBe(ben.id);
    const asBen = await pageOf(ben.email);
    await asBen.goto(`${server.url}/tickets/${second._id}`);
    await asBen.locator('.assignee-name', { hasText: usernameOf(ben) }).waitFor();

    // The admin sets Ana available again from her team's card: the turn after Ben's is hers.
    await card.getByRole('button', { name: 'Set Ana Tester Available' }).click();
    await card.getByRole('button', { name: 'Set Ana Tester Away' }).waitFor();
    expect(await assigneeOf((await newTicket())._id)).toBe(ana.id);
  });
});
