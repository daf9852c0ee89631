import { addCategory, addMember, type Member, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

const MINUTE = 60_000;
const nineToFive = [{ start: '09:00', end: '17:00' }];
const OFFICE = {
  id: 'office',
  name: 'Berlin office',
  timeZone: 'Europe/Berlin',
  week: [[], nineToFive, nineToFive, nineToFive, nineToFive, nineToFive, []],
  holidays: [{ date: '2026-01-20', name: 'Company day' }],
};
const targets = (firstResponse: number | null, nextResponse: number | null, resolution: number | null) => ({ firstResponse, nextResponse, resolution });
const everyPriority = (value: ReturnType<typeof targets>) => ({ low: value, medium: value, high: value, urgent: value });
const STANDARD = { id: 'standard', name: 'Standard', categoryId: null, calendarId: 'office', targets: everyPriority(targets(60, 120, 8 * 60)) };
const SETTINGS = { calendars: [OFFICE], defaultCalendarId: 'office', policies: [STANDARD], pauseStatuses: ['pending_customer'], warnPercent: 80 };

describe('Service levels', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;
  /** The server's clock: Monday 19 January 2026, 10:00 in Berlin, moved by the tests. */
  let now = Date.parse('2026-01-19T09:00:00Z');

  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin, { name: 'Billing' });
  });

  afterAll(async () => {
    await server.stop();
  });

  const put = (body: unknown, token = admin) => server.request('PUT', '/api/sla/settings', { token, body });
  const slaOf = async (ticketId: string) => (await server.request('GET', `/api/tickets/${ticketId}/sla`, { token: agent.token })).body.sla;
  const target = async (ticketId: string, name: string) => (await slaOf(ticketId)).targets.find((found: { target: string }) => found.target === name);
  const listed = async (query: string) =>
    ((await server.request('GET', `/api/tickets?${query}&limit=100`, { token: agent.token })).body.tickets as Array<{ _id: string }>).map((row) => row._id);

  describe('settings', () => {
    it('refuses bad calendars and policies with a clear 400, and non-admins with 403', async () => {
      const refused = async (body: unknown, message: string | RegExp) => {
        const answer = await put(body);
        expect(answer.status).toBe(400);
        expect(JSON.stringify(answer.body)).toMatch(message);
      };
      await refused({ ...SETTINGS, calendars: [{ ...OFFICE, timeZone: 'Mars/Olympus' }] }, 'Unknown time zone');
      await refused({ ...SETTINGS, calendars: [{ ...OFFICE, week: [[], [{ start: '9:00', end: '17:00' }], [], [], [], [], []] }] }, 'A start is HH:MM');
      await refused({ ...SETTINGS, calendars: [{ ...OFFICE, week: OFFICE.week.slice(1) }] }, 'seven days');
      await refused({ ...SETTINGS, calendars: [{ ...OFFICE, holidays: [{ date: '2026-02-30', name: 'Nope' }] }] }, 'Not a real date');
      await refused({ ...SETTINGS, policies: [{ ...STANDARD, calendarId: 'nowhere' }] }, 'No calendar nowhere');
      await refused({ ...SETTINGS, policies: [{ ...STANDARD, categoryId: 'no-such-category' }] }, 'No category no-such-category');
      await refused({ ...SETTINGS, policies: [{ ...STANDARD, targets: everyPriority(targets(0, null, null)) }] }, 'at least 1 minute');
      await refused({ ...SETTINGS, warnPercent: 100 }, 'warnPercent is at most 99');
      await refused({ ...SETTINGS, pauseStatuses: ['resolved'] }, 'pause the clock');
      expect((await put(SETTINGS, agent.token)).status).toBe(403);
    });

    it('records each change as the next version, and nothing for the same settings', async () => {
      const saved = await put(SETTINGS);
      expect(saved.status).toBe(200);
      expect(saved.body.settings).toMatchObject({ version: 1, defaultCalendarId: 'office', warnPercent: 80 });
      expect((await put(SETTINGS)).body.settings.version).toBe(1);
    });
  });

  describe('on a ticket', () => {
    it('shows due times in business hours, turns them to breached as time passes, and filters and orders by them', async () => {
      now = Date.parse('2026-01-19T09:00:00Z');
      const customer = await addMember(server, admin, 'customer', 'Bob');
      const ticket = await openTicket(server, customer, category);
      expect(await slaOf(ticket._id)).toMatchObject({
        policyId: 'standard',
        policyName: 'Standard',
        version: 1,
        calendarName: 'Berlin office',
        nextDueAt: '2026-01-19T10:00:00.000Z',
      });
      // 8 business hours from Monday 10:00: 7 on Monday; Tuesday is a holiday; 1 on Wednesday.
      expect(await target(ticket._id, 'resolution')).toMatchObject({ state: 'running', dueAt: '2026-01-21T09:00:00.000Z' });
      expect(await target(ticket._id, 'firstResponse')).toMatchObject({ state: 'running', remainingMs: 60 * MINUTE });
      expect(await listed('sla=due_soon')).toContain(ticket._id);
      expect(await listed('sla=breached')).not.toContain(ticket._id);

      now = Date.parse('2026-01-19T10:35:00Z');
      expect(await target(ticket._id, 'firstResponse')).toMatchObject({ state: 'breached', breachedAt: '2026-01-19T10:00:00.000Z', remainingMs: -35 * MINUTE });
      expect(await listed('sla=breached')).toContain(ticket._id);
      expect((await server.request('GET', '/api/tickets?sla=late', { token: agent.token })).body.error).toBe('sla must be breached or due_soon');

      const reply = await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'Looking into it' } });
      expect(reply.status).toBe(201);
      expect(await target(ticket._id, 'firstResponse')).toMatchObject({ state: 'breached', completedAt: '2026-01-19T10:35:00.000Z' });

      // Waiting for the customer stops the resolution clock; the order by due time follows.
      now = Date.parse('2026-01-19T11:00:00Z');
      const second = await openTicket(server, await addMember(server, admin, 'customer', 'Cleo'), category);
      expect((await listed('sort=due')).slice(0, 2)).toEqual([second._id, ticket._id]);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'pending_customer' } })).status).toBe(200);
      now = Date.parse('2026-01-22T11:00:00Z');
      expect(await slaOf(ticket._id)).toMatchObject({ paused: true, nextDueAt: null });
      expect(await target(ticket._id, 'resolution')).toMatchObject({ state: 'paused', remainingMs: 8 * 60 * MINUTE - 2 * 60 * MINUTE });
    });

    it('keeps the version a ticket opened under when the settings change', async () => {
      now = Date.parse('2026-01-19T09:00:00Z');
      const before = await openTicket(server, await addMember(server, admin, 'customer', 'Dan'), category);
      const faster = { ...SETTINGS, policies: [{ ...STANDARD, name: 'Faster', targets: everyPriority(targets(30, 60, 240)) }] };
      expect((await put(faster)).body.settings.version).toBe(2);
      const after = await openTicket(server, await addMember(server, admin, 'customer', 'Eve'), category);
      expect(await slaOf(before._id)).toMatchObject({ version: 1, policyName: 'Standard', nextDueAt: '2026-01-19T10:00:00.000Z' });
      expect(await slaOf(after._id)).toMatchObject({ version: 2, policyName: 'Faster', nextDueAt: '2026-01-19T09:30:00.000Z' });
      const history = await server.request('GET', `/api/tickets/${after._id}/history`, { token: admin });
      expect(JSON.stringify(history.body)).toContain('Follows the SLA policy \\"Faster\\" (settings version 2, business hours of \\"Berlin office\\")');
      await put(SETTINGS);
    });
  });
});
