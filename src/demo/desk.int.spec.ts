import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { ADMIN, type TestServer, startTestServer } from '../../test/support/server';
import { DEMO_PASSWORDS, type DemoDesk, DemoRefusedError, seedDemoDesk } from './desk';

interface TicketRow {
  _id: string;
  status: string;
  outcomeMessage?: string | null;
}

describe('the demo desk', () => {
  let dataDir: string;
  let desk: DemoDesk;
  let server: TestServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'desk-demo-'));
    const events = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    try {
      desk = await seedDemoDesk(events, { adminEmail: ADMIN.email, adminPassword: ADMIN.password });
    } finally {
      await events.close();
    }
    server = await startTestServer({ dataDir });
  });
  afterAll(() => server?.stop());

  const signIn = async (email: string, password: string) => {
    const response = await server.request('POST', '/api/auth/login', { body: { email, password } });
    expect(response.status).toBe(200);
    return response.body.accessToken as string;
  };

  it('when the server starts on it, then the seeded admin is the admin and no other is created', async () => {
    expect(server.firstAdmin).toBeNull();
    const admin = await signIn(desk.accounts.admin.email, ADMIN.password);
    const profile = await server.request('GET', '/api/auth/profile', { token: admin });
    expect(profile).toMatchObject({ status: 200, body: { user: { role: 'admin', email: ADMIN.email, firstName: 'Dana' } } });
  });

  it('when the demo agent and customer sign in with the printed passwords, then they get in', async () => {
    expect(desk.accounts.agent.password).toBe(DEMO_PASSWORDS.agent);
    expect(desk.accounts.customer.password).toBe(DEMO_PASSWORDS.customer);
    const agent = await signIn(desk.accounts.agent.email, desk.accounts.agent.password);
    const customer = await signIn(desk.accounts.customer.email, desk.accounts.customer.password);
    const wrong = await server.request('POST', '/api/auth/login', { body: { email: desk.accounts.agent.email, password: 'not-the-demo-one' } });
    expect(wrong.status).toBe(401);
    // The customer sees only their own tickets; the agent sees the whole desk.
    const own = (await server.request('GET', '/api/tickets?limit=100', { token: customer })).body.tickets as TicketRow[];
    const all = (await server.request('GET', '/api/tickets?limit=100', { token: agent })).body.tickets as TicketRow[];
    expect(own.length).toBeGreaterThan(0);
    expect(own.length).toBeLessThan(all.length);
  });

  it('when the admin edits a seeded account and sends its username unchanged, then the user form rules accept it', async () => {
    const admin = await signIn(desk.accounts.admin.email, ADMIN.password);
    const users = (await server.request('GET', '/api/users?limit=100', { token: admin })).body.users as { _id: string; username: string; lastName: string }[];
    expect(users.length).toBeGreaterThan(10);
    for (const user of users) expect(user.username).toMatch(/^[a-z0-9_]{3,30}$/);
    const agent = users.find((user) => user.username === 'tom_becker');
    expect(agent).toBeDefined();
    const edited = await server.request('PUT', `/api/users/${agent!._id}`, { token: admin, body: { username: agent!.username, lastName: 'Becker-Hall' } });
    expect(edited).toMatchObject({ status: 200 });
    const after = (await server.request('GET', '/api/users?limit=100', { token: admin })).body.users as { _id: string; lastName: string }[];
    expect(after.find((user) => user._id === agent!._id)?.lastName).toBe('Becker-Hall');
  });

  it('when an agent looks at the tickets, then every status is there, with conversations, internal notes and outcomes', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const tickets = (await server.request('GET', '/api/tickets?limit=100', { token: agent })).body.tickets as TicketRow[];
    const statuses = new Set(tickets.map((ticket) => ticket.status));
    expect([...statuses].sort()).toEqual(['closed', 'in_progress', 'open', 'pending_customer', 'resolved']);
    expect(tickets).toHaveLength(Object.values(desk.ticketsByStatus).reduce((a, b) => a + b, 0));

    let notes = 0;
    let replies = 0;
    for (const ticket of tickets) {
      const messages = (await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: agent })).body.messages as Array<{ isInternal: boolean }>;
      notes += messages.filter((message) => message.isInternal).length;
      replies += messages.filter((message) => !message.isInternal).length;
    }
    expect(notes).toBeGreaterThanOrEqual(4);
    expect(replies).toBeGreaterThanOrEqual(tickets.length);
    const finished = tickets.filter((ticket) => ticket.status === 'resolved' || ticket.status === 'closed');
    for (const ticket of finished) {
      const detail = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: agent })).body.ticket as TicketRow;
      expect(detail.outcomeMessage).toEqual(expect.stringMatching(/\w+/));
    }
  });

  it('when an agent opens the dashboard, then the satisfaction report has ratings by agent and category, comments, and an unrated resolution', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const { report } = (await server.request('GET', '/api/satisfaction/report', { token: agent })).body;
    // Lucas's ticket is resolved twice: his new problem reopened it, and moving that to a ticket of its own resolved it again.
    expect(report.total).toMatchObject({ surveyed: 9, rated: 7, score: 71.4, responseRate: 77.8 });
    expect(report.byAgent.length).toBeGreaterThan(1);
    expect(report.byCategory.length).toBeGreaterThan(1);
    expect(report.latestComments.map((comment: { comment: string }) => comment.comment)).toContain('It took three days to get a first answer.');
  });

  it('when an agent looks at service levels, then there is a calendar, two policies, and tickets with targets met, breached, running and paused', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const admin = await signIn(desk.accounts.admin.email, ADMIN.password);
    const { settings } = (await server.request('GET', '/api/sla/settings', { token: admin })).body;
    expect(settings.calendars).toHaveLength(1);
    expect(settings.policies).toHaveLength(2);
    const { tickets } = (await server.request('GET', '/api/tickets?limit=100', { token: agent })).body as { tickets: TicketRow[] };
    const { tickets: slas } = (await server.request('GET', `/api/sla/tickets?tickets=${tickets.map((ticket) => ticket._id).join(',')}`, { token: agent })).body;
    const states = new Set<string>(slas.flatMap((entry: { sla: { targets: Array<{ state: string }> } }) => entry.sla.targets.map((target) => target.state)));
    expect([...states].sort()).toEqual(['breached', 'met', 'paused', 'running']);
  });

  it('when an agent looks for merged and split tickets, then a duplicate redirects to its reopened original and a moved message has a ticket of its own', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const { tickets } = (await server.request('GET', '/api/tickets?limit=100', { token: agent })).body as {
      tickets: Array<TicketRow & { ticketId: number; mergedInto: { _id: string; ticketId: number } | null; title: string }>;
    };
    const merged = tickets.filter((ticket) => ticket.mergedInto);
    expect(merged.map((ticket) => ticket.title)).toEqual(['Payment declined again']);
    const original = (await server.request('GET', `/api/tickets/${merged[0]!.mergedInto!._id}`, { token: agent })).body;
    expect(original.ticket).toMatchObject({ title: 'Card payment declined at checkout', status: 'open', mergedFrom: [{ _id: merged[0]!._id }] });
    expect(original.messages.filter((message: { mergedFrom?: object }) => message.mergedFrom).map((m: { content: string }) => m.content)).toEqual([
      'Another browser does not help this time.',
    ]);
    const split = tickets.find((ticket) => ticket.title === 'CSV export of invoices is empty')!;
    const splitMessages = (await server.request('GET', `/api/tickets/${split._id}/messages`, { token: agent })).body.messages;
    expect(splitMessages.map((message: { content: string }) => message.content)).toEqual(['One more thing: the CSV export of my invoices comes out empty.']);
    const old = tickets.find((ticket) => ticket.title === 'Dashboard takes a minute to load')!;
    const oldMessages = (await server.request('GET', `/api/tickets/${old._id}`, { token: agent })).body.messages;
    expect(oldMessages.map((message: { content: string }) => message.content)).toContain(`Moved to #${split.ticketId}`);
    // Sofia, the customer, follows the redirect to her own original.
    const sofia = await signIn('sofia.garcia@example.com', DEMO_PASSWORDS.customer);
    const seen = (await server.request('GET', `/api/tickets/${merged[0]!._id}`, { token: sofia })).body.ticket;
    expect(seen.mergedInto).toEqual({ _id: original.ticket._id, ticketId: original.ticket.ticketId });
  });

  it('when staff look at categories and canned replies, then there are categories with custom fields and replies with shortcodes', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const categories = (await server.request('GET', '/api/categories', { token: agent })).body.categories as Array<{
      name: string;
      customFields: Array<{ fieldName: string }>;
    }>;
    expect(categories.map((category) => category.name)).toEqual(expect.arrayContaining(['Billing', 'Technical', 'Account']));
    expect(categories.every((category) => category.customFields.length > 0)).toBe(true);
    const canned = (await server.request('GET', '/api/canned-messages', { token: agent })).body.cannedMessages as Array<{ shortcode: string }>;
    expect(canned.length).toBe(desk.cannedMessages);
    expect(canned.map((message) => message.shortcode)).toEqual(expect.arrayContaining(['hello', 'refund', 'reset-pw']));
    const macros = (await server.request('GET', '/api/macros', { token: agent })).body.macros as Array<{ name: string; shared: boolean }>;
    expect(macros.map(({ name, shared }) => [name, shared])).toEqual([
      ['Refund issued', true],
      ['Taking this one', false],
    ]);
    const views = (await server.request('GET', '/api/views', { token: agent })).body.views as Array<{ name: string; scope: string; isDefault: boolean }>;
    expect(views.filter((view) => !view.isDefault).map(({ name, scope }) => [name, scope])).toEqual([
      ['Urgent and high', 'everyone'],
      ['Payments queue', 'team'],
      ['My billing', 'personal'],
    ]);
    const admin = await signIn(desk.accounts.admin.email, ADMIN.password);
    const rules = (await server.request('GET', '/api/rules', { token: admin })).body.rules as Array<{ name: string; order: number; enabled: boolean }>;
    expect(rules.map(({ name, order, enabled }) => [order, name, enabled])).toEqual([
      [1, 'Urgent billing: tag and tell Payments', true],
      [2, 'Breached: raise to urgent', true],
      [3, 'Auto-close after 4 days', false],
    ]);
    expect(rules).toHaveLength(desk.rules);
  });

  it('when staff look at teams, then Billing and Technical route their tickets to Payments and Technical Support (docs/teams.md)', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const teams = (await server.request('GET', '/api/teams', { token: agent })).body.teams as Array<{ _id: string; name: string; members: unknown[] }>;
    expect(teams.map((team) => [team.name, team.members.length])).toEqual([
      ['Payments', 2],
      ['Technical Support', 3],
    ]);
    const billing = (await server.request('GET', '/api/tickets?limit=100', { token: agent })).body.tickets.filter(
      (ticket: { category: { name: string } }) => ticket.category.name === 'Billing',
    );
    expect(billing.length).toBeGreaterThan(0);
    expect(billing.every((ticket: { team: { name: string } | null }) => ticket.team?.name === 'Payments')).toBe(true);
  });

  it('when staff look at tags, then tickets carry them, the suggestions count them and the tag filter finds them (docs/teams.md)', async () => {
    const agent = await signIn(desk.accounts.agent.email, DEMO_PASSWORDS.agent);
    const suggested = (await server.request('GET', '/api/tags?q=', { token: agent })).body.tags as Array<{ tag: string; count: number }>;
    expect(suggested.map(({ tag }) => tag)).toEqual(expect.arrayContaining(['bug', 'refund', 'shipping', 'invoice']));
    const bugs = (await server.request('GET', '/api/tickets?tag=bug&limit=100', { token: agent })).body.tickets as Array<{ title: string; tags: string[] }>;
    expect(bugs.map(({ title }) => title).sort()).toEqual([
      'App crashes when uploading a photo',
      'Dashboard takes a minute to load',
      'Export to CSV fails with an error',
    ]);
    expect(bugs.every(({ tags }) => tags.includes('bug'))).toBe(true);
  });

  it('when demo customers open a ticket, then the category asks its custom fields and the one-open-ticket rule holds for seeded tickets', async () => {
    const admin = await signIn(desk.accounts.admin.email, ADMIN.password);
    const categories = (await server.request('GET', '/api/categories', { token: admin })).body.categories as Array<{ _id: string; name: string }>;
    const account = categories.find((category) => category.name === 'Account')!._id;
    const ticket = { title: 'Cannot change my avatar', description: 'The upload button does nothing.', category: account };

    // The printed customer has only finished tickets: the category's required field is asked, then it opens.
    const customer = await signIn(desk.accounts.customer.email, DEMO_PASSWORDS.customer);
    const missing = await server.request('POST', '/api/tickets', { token: customer, body: ticket });
    expect(missing.status).toBe(400);
    const created = await server.request('POST', '/api/tickets', {
      token: customer,
      body: { ...ticket, customFieldValues: { accountEmail: desk.accounts.customer.email } },
    });
    expect(created.status).toBe(201);

    // A customer whose seeded ticket is still being worked on holds the open-ticket claim.
    const withOpen = await signIn('liam.chen@example.com', DEMO_PASSWORDS.customer);
    const refused = await server.request('POST', '/api/tickets', {
      token: withOpen,
      body: { ...ticket, customFieldValues: { accountEmail: 'liam.chen@example.com' } },
    });
    expect(refused).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS' } });
  });

  it('when the data directory already has events, then seeding is refused with a clear message and nothing is appended', async () => {
    await server.close();
    const events = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    try {
      const before = await events.headPosition();
      const attempt = seedDemoDesk(events, { adminEmail: 'someone@example.com' });
      await expect(attempt).rejects.toBeInstanceOf(DemoRefusedError);
      await expect(attempt).rejects.toThrow(/only seeded into an empty data directory.*already has \d+ events/);
      expect(await events.headPosition()).toBe(before);
    } finally {
      await events.close();
    }
  });
});
