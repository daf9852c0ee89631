/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
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

  it('when an admin makes two teams and routes a category to one, then a new ticket there goes round-robin to its available agents, and not to one who is Away', async () => {
    const token = await server.login();
    const ana = await addMember(server, token, 'agent', 'Ana');
    const ben = await addMember(server, token, 'agent', 'Ben');
    await addMember(server, token, 'agent', 'Dora');

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
    // A second team, which the category does not route to: its members are never chosen for it.
    await admin.getByRole('button', { name: 'Add Team' }).click();
    await dialog.getByLabel('Team Name').fill('Devices');
    await dialog.getByRole('checkbox', { name: /Dora Tester/ }).check();
    await dialog.getByLabel('Assign new tickets').selectOption({ label: 'Round-robin' });
    await dialog.getByRole('button', { name: 'Create Team' }).click();
    await dialog.waitFor({ state: 'detached' });

    await admin.getByRole('tab', { name: 'Categories' }).click();
    await admin.getByRole('button', { name: 'Add Category' }).click();
    const categoryDialog = admin.getByRole('dialog', { name: 'Add New Category' });
    await categoryDialog.getByLabel('Name', { exact: true }).fill('Refund requests');
    await categoryDialog.getByLabel('Route new tickets to team').selectOption({ label: 'Refunds' });
    await categoryDialog.getByRole('button', { name: 'Create Category' }).click();
    await categoryDialog.waitFor({ state: 'detached' });
    await admin.getByRole('tab', { name: 'Teams' }).click();
    const category = ((await server.request('GET', '/api/categories', { token })).body.categories as Array<{ _id: string; name: string }>).find(
      (found) => found.name === 'Refund requests',
    )!._id;
    const assigneeOf = async (ticketId: string) => (await server.request('GET', `/api/tickets/${ticketId}`, { token })).body.ticket.assignedAgent?._id;
    const newTicket = async () => openTicket(server, await addMember(server, token, 'customer', 'Cleo'), category);

    // Both available: Ana, the first member, takes the first turn of the customer's ticket opened in the web app.
    const customer = await addMember(server, token, 'customer', 'Hugo');
    const asCustomer = await pageOf(customer.email);
    await asCustomer.getByRole('button', { name: 'Create New Ticket' }).click();
    const create = asCustomer.getByRole('dialog', { name: 'Create New Ticket' });
    await create.getByLabel('Category').selectOption({ label: 'Refund requests' });
    await create.getByLabel('Title').fill('Refund for order 1042');
    await create.getByLabel('Description').fill('The parcel came back to you last week.');
    await create.getByRole('button', { name: 'Create Ticket' }).click();
    await asCustomer.waitForURL(/\/tickets\/[^/]+$/);
    expect(await assigneeOf(asCustomer.url().split('/').at(-1)!)).toBe(ana.id);

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
  }, 90_000);

  it('when an agent going offline stays away past the grace period, then their tickets are returned and given to the other agent', async () => {
    const token = await server.login();
    const [eve, fay] = [await addMember(server, token, 'agent', 'Eve'), await addMember(server, token, 'agent', 'Fay')];
    const team = (await server.request('POST', '/api/teams', { token, body: { name: 'Returns', members: [eve.id, fay.id] } })).body.team._id;
    expect((await server.request('PUT', `/api/teams/${team}/assignment`, { token, body: { mode: 'round-robin', cap: null } })).status).toBe(200);
    const category = await addCategory(server, token, { routeTeamId: team });
    const ticket = await openTicket(server, await addMember(server, token, 'customer', 'Gus'), category);

    // The shortest grace period the settings take (5 s): shorter is refused, so that a reload or a sign-in
    // again right after a sign-out returns nothing.
    const admin = await pageOf(ADMIN.email, ADMIN.password);
    await admin.goto(`${server.url}/settings`);
    const grace = admin.getByLabel("Return an offline agent's tickets after N seconds");
    await grace.fill('2');
    await admin.getByRole('button', { name: 'Save Settings' }).click();
    await admin.getByText('Offline grace period must be 0 (never) or between 5 seconds and 7 days').waitFor();
    await grace.fill('5');
    await admin.getByRole('button', { name: 'Save Settings' }).click();
    await admin.getByText('Settings saved successfully!').waitFor();

    const asEve = await pageOf(eve.email);
    await asEve.goto(`${server.url}/tickets/${ticket._id}`);
    await asEve.locator('.assignee-name', { hasText: usernameOf(eve) }).waitFor();
    // Eve's session of the set-up ends first: only the sign-out of her last session sets her Offline (docs/teams.md).
    expect((await server.request('POST', '/api/auth/logout', { token: eve.token })).status).toBe(204);
    await asEve.getByRole('button', { name: 'Logout' }).click();
    await admin.goto(`${server.url}/admin?tab=Teams`);
    const returns = admin.getByRole('article', { name: 'Returns' });
    await returns.getByText('Offline', { exact: true }).waitFor();
    await returns.getByRole('button', { name: 'Set Eve Tester Available' }).waitFor();

    await eventually(async () => (await server.request('GET', `/api/tickets/${ticket._id}`, { token })).body.ticket.assignedAgent?._id === fay.id, {
      describe: "Eve's ticket is with Fay",
      timeoutMs: 15_000,
    });
    const asFay = await pageOf(fay.email);
    await asFay.goto(`${server.url}/tickets/${ticket._id}`);
    await asFay.locator('.assignee-name', { hasText: usernameOf(fay) }).waitFor();
    const history = JSON.stringify((await server.request('GET', `/api/tickets/${ticket._id}/history`, { token })).body);
    expect(history).toContain('Eve Tester was offline for longer than the grace period of 5 seconds');
  }, 90_000);
});
