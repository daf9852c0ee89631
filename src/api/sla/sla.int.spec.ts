import { addCategory, addMember, type Member, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
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
      await refused({ ...SETTINGS, policies: [{ ...STANDARD, targets: everyPriority(targets(null, null, null)) }] }, 'The policy Standard has no target');
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
      // The Breached view's tickets are sought on the entries' indexes (due time, paused breach), never read all:
      // Live Tickets counts the view every half second while someone watches it.
      const scans = () => (server.deps.readStore as { fullScans?: number }).fullScans;
      const before = scans();
      expect(await listed('sla=breached')).not.toContain(ticket._id);
      expect(scans()).toBe(before);

      now = Date.parse('2026-01-19T10:35:00Z');
      expect(await target(ticket._id, 'firstResponse')).toMatchObject({ state: 'breached', breachedAt: '2026-01-19T10:00:00.000Z', remainingMs: -35 * MINUTE });
      expect(await listed('sla=breached')).toContain(ticket._id);
      expect((await server.request('GET', '/api/tickets?sla=late', { token: agent.token })).body.error).toBe('sla must be breached or due_soon');
      for (const query of ['sla=breached', 'sort=due']) {
        const refused = await server.request('GET', `/api/tickets?${query}`, { token: customer.token });
        expect(refused).toMatchObject({ status: 403, body: { error: 'Only staff can filter or sort by service levels' } });
      }
      expect((await server.request('GET', `/api/tickets/${ticket._id}/sla`, { token: customer.token })).status).toBe(403);

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

    it('lists a breach in the Breached view while someone can act on it, and not once the ticket is merged away (issue 50)', async () => {
      now = Date.parse('2026-01-19T09:00:00Z');
      const ticket = await openTicket(server, await addMember(server, admin, 'customer', 'Gus'), category);
      const target = await openTicket(server, await addMember(server, admin, 'customer', 'Hal'), category);
      now = Date.parse('2026-01-19T10:30:00Z');
      expect(await listed('sla=breached')).toEqual(expect.arrayContaining([ticket._id, target._id]));
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'pending_customer' } })).status).toBe(200);
      expect(await listed('sla=breached')).toContain(ticket._id);
      // A merged ticket is closed with its clocks where they stood: its breach stays in the report, not in the work.
      expect((await server.request('POST', `/api/tickets/${ticket._id}/merge`, { token: admin, body: { target: target._id } })).status).toBe(200);
      expect(await listed('sla=breached')).not.toContain(ticket._id);
      expect(await listed('sla=breached&status=closed')).not.toContain(ticket._id);
      expect(await listed('sla=breached')).toContain(target._id);
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

  describe('reports, time travel and rebuild', () => {
    it('counts attainment per target by category and by agent as computed by hand, replays past moments, and rebuilds the same', async () => {
      const hardware = await addCategory(server, admin, { name: 'Hardware' });
      const bob = await addMember(server, admin, 'agent', 'Bob');
      const hardwarePolicy = { id: 'hardware', name: 'Hardware', categoryId: hardware, calendarId: null, targets: everyPriority(targets(30, null, 120)) };
      expect((await put({ ...SETTINGS, policies: [STANDARD, hardwarePolicy] })).status).toBe(200);
      const at = (time: string) => (now = Date.parse(`2026-03-02T${time}:00Z`));
      const as = (token: string) => ({
        reply: async (ticketId: string, content: string) =>
          expect((await server.request('POST', `/api/tickets/${ticketId}/messages`, { token, body: { content } })).status).toBe(201),
      });
      const assign = async (ticketId: string, agentId: string) =>
        expect((await server.request('POST', `/api/tickets/${ticketId}/assign`, { token: admin, body: { agentId } })).status).toBe(200);
      const resolve = async (ticketId: string) =>
        expect((await server.request('PUT', `/api/tickets/${ticketId}`, { token: admin, body: { status: 'resolved' } })).status).toBe(200);

      // Monday 2 March 2026, 10:00 in Berlin (09:00Z).
      at('09:00');
      const h1 = await openTicket(server, await addMember(server, admin, 'customer', 'Hal'), hardware);
      const h2 = await openTicket(server, await addMember(server, admin, 'customer', 'Hue'), hardware);
      const billingCustomer = await addMember(server, admin, 'customer', 'Bea');
      const b1 = await openTicket(server, billingCustomer, category);
      await assign(h1._id, agent.id);
      await assign(h2._id, bob.id);
      await assign(b1._id, agent.id);
      at('09:10');
      await as(agent.token).reply(h1._id, 'Replacing the toner'); // first response met (due 09:30)
      at('09:30');
      await as(agent.token).reply(b1._id, 'Checking the invoice'); // first response met (due 10:00, business hours)
      at('09:40');
      await as(billingCustomer.token).reply(b1._id, 'Any news?'); // next response starts, due 11:40
      at('09:45');
      await as(bob.token).reply(h2._id, 'Sorry for the wait'); // first response breached at 09:30
      at('10:00');
      await resolve(h1._id); // resolution met (due 11:00)
      at('12:00');
      await resolve(h2._id); // resolution breached at 11:00; B1's next response breached at 11:40, still waiting

      const report = (await server.request('GET', '/api/sla/report?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z', { token: agent.token })).body.report;
      const attainment = (met: number, breached: number, percent: number | null) => ({ met, breached, attainment: percent });
      const row = (firstResponse: object, nextResponse: object, resolution: object) => [
        { target: 'firstResponse', ...firstResponse },
        { target: 'nextResponse', ...nextResponse },
        { target: 'resolution', ...resolution },
      ];
      expect(report.total.targets).toEqual(row(attainment(2, 1, 66.7), attainment(0, 1, 0), attainment(1, 1, 50)));
      expect(report.byCategory).toEqual([
        { id: category, name: 'Billing', targets: row(attainment(1, 0, 100), attainment(0, 1, 0), attainment(0, 0, null)) },
        { id: hardware, name: 'Hardware', targets: row(attainment(1, 1, 50), attainment(0, 0, null), attainment(1, 1, 50)) },
      ]);
      expect(report.byAgent).toEqual([
        { id: agent.id, name: 'Alice Tester', targets: row(attainment(2, 0, 100), attainment(0, 1, 0), attainment(1, 0, 100)) },
        { id: bob.id, name: 'Bob Tester', targets: row(attainment(0, 1, 0), attainment(0, 0, null), attainment(0, 1, 0)) },
      ]);
      expect(
        report.breaches.map((breach: { number: number; target: string; dueAt: string; completedAt: string | null }) => [
          breach.number,
          breach.target,
          breach.dueAt,
          breach.completedAt,
        ]),
      ).toEqual([
        [b1.ticketId, 'nextResponse', '2026-03-02T11:40:00.000Z', null],
        [h2.ticketId, 'resolution', '2026-03-02T11:00:00.000Z', '2026-03-02T12:00:00.000Z'],
        [h2.ticketId, 'firstResponse', '2026-03-02T09:30:00.000Z', '2026-03-02T09:45:00.000Z'],
      ]);
      const csv = await fetch(`${server.url}/api/sla/report.csv?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z`, {
        headers: { authorization: `Bearer ${agent.token}` },
      });
      const text = await csv.text();
      expect(text).toContain('"category","Hardware","First response","1","1","50"\r\n');
      expect(text).toContain('"total","All","First response","2","1","66.7"\r\n');

      // Time travel: before the due time the first response ran with 10 minutes left; by 09:40 it had breached, with no event in between.
      const momentOf = async (time: string) =>
        (await server.request('GET', `/api/tickets/${h2._id}/at?time=2026-03-02T${time}:00Z`, { token: admin })).body.sla;
      expect((await momentOf('09:20')).targets[0]).toMatchObject({ target: 'firstResponse', state: 'running', remainingMs: 10 * MINUTE });
      expect((await momentOf('09:40')).targets[0]).toMatchObject({ target: 'firstResponse', state: 'breached', breachedAt: '2026-03-02T09:30:00.000Z' });
      expect((await momentOf('12:30')).targets).toMatchObject([
        { state: 'breached', completedAt: '2026-03-02T09:45:00.000Z' },
        { state: 'breached', completedAt: '2026-03-02T12:00:00.000Z' },
      ]);

      // A rebuild from the log reproduces every due time and breach.
      const slas = async () => Promise.all([h1, h2, b1].map((ticket) => slaOf(ticket._id)));
      const before = { report, slas: await slas() };
      await server.deps.projections.rebuild();
      expect({
        report: (await server.request('GET', '/api/sla/report?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z', { token: agent.token })).body.report,
        slas: await slas(),
      }).toEqual(before);
    });
  });

  describe('a ticket split off another', () => {
    it('follows the policy current at the split, recorded with the agent, its clocks started where the customer began waiting', async () => {
      const at = (time: string) => (now = Date.parse(`2026-04-13T${time}:00Z`));
      const say = async (token: string, ticketId: string, content: string) => {
        const sent = await server.request('POST', `/api/tickets/${ticketId}/messages`, { token, body: { content } });
        expect(sent.status).toBe(201);
        return sent.body.message._id as string;
      };
      // Monday 13 April 2026, 09:00 in Berlin (07:00Z, summer time).
      at('07:00');
      const customer = await addMember(server, admin, 'customer', 'Fay');
      const old = await openTicket(server, customer, category);
      const { version } = (await server.request('GET', '/api/sla/settings', { token: admin })).body.settings;
      at('07:10');
      await say(agent.token, old._id, 'Fixed the invoice');
      at('07:20');
      const waiting = await say(customer.token, old._id, 'Also my password reset mail never comes');
      at('07:30');
      const faster = { ...SETTINGS, policies: [{ ...STANDARD, name: 'Faster', targets: everyPriority(targets(30, 60, 240)) }] };
      expect((await put(faster)).body.settings.version).toBe(version + 1);
      at('08:00');
      const split = await server.request('POST', `/api/tickets/${old._id}/split`, { token: agent.token, body: { messageId: waiting, title: 'Password mail' } });
      expect(split.status).toBe(201);
      const created = split.body.ticket._id as string;

      // The old ticket keeps its version; the new one follows the one current at the split, counting from 07:20, not 08:00.
      expect(await slaOf(old._id)).toMatchObject({ version, policyName: 'Standard' });
      expect(await slaOf(created)).toMatchObject({ version: version + 1, policyName: 'Faster', nextDueAt: '2026-04-13T07:50:00.000Z' });
      expect(await target(created, 'firstResponse')).toMatchObject({
        state: 'breached',
        startedAt: '2026-04-13T07:20:00.000Z',
        breachedAt: '2026-04-13T07:50:00.000Z',
        remainingMs: -10 * MINUTE,
      });
      expect(await target(created, 'resolution')).toMatchObject({ state: 'running', startedAt: '2026-04-13T07:20:00.000Z', dueAt: '2026-04-13T11:20:00.000Z' });
      expect(await listed('sla=breached')).toContain(created);

      const history = await server.request('GET', `/api/tickets/${created}/history`, { token: admin });
      expect(history.body.events.find((event: { type: string }) => event.type === 'SlaPolicyApplied')).toMatchObject({
        actor: { userId: agent.id },
        summary: `Follows the SLA policy "Faster" (settings version ${version + 1}, business hours of "Berlin office"; clocks from 2026-04-13T07:20:00.000Z, when the customer began waiting)`,
      });

      // Breached before the split: its timers fire at once, and the breach is recorded once; a warning past the due time is not.
      const raised = async () =>
        ((await server.request('GET', `/api/tickets/${created}/history`, { token: admin })).body.events as Array<{ type: string; summary: string }>)
          .filter((event) => event.type === 'SlaWarningRaised')
          .map((event) => event.summary);
      await eventually(async () => (await raised()).length >= 1, { describe: 'the breach of the split ticket' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await raised()).toEqual(['First response breached its target (due 2026-04-13T07:50:00.000Z)']);

      // An answer stops the first response; time travel and a rebuild give the same clocks as live.
      at('08:10');
      await say(agent.token, created, 'Resent the reset mail');
      const live = await slaOf(created);
      expect(live.targets[0]).toMatchObject({ target: 'firstResponse', state: 'breached', completedAt: '2026-04-13T08:10:00.000Z' });
      const moment = async (time: string) => (await server.request('GET', `/api/tickets/${created}/at?time=2026-04-13T${time}:00Z`, { token: admin })).body.sla;
      expect(await moment('08:05')).toMatchObject({
        version: version + 1,
        targets: [{ target: 'firstResponse', state: 'breached', startedAt: '2026-04-13T07:20:00.000Z' }, {}],
      });
      expect(await moment('08:10')).toEqual(live);
      await server.deps.projections.rebuild();
      expect(await slaOf(created)).toEqual(live);
      await put(SETTINGS);
    });
  });
});
