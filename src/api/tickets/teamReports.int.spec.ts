import { type Member, addCategory, addMember, oneSlaPolicy, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { satisfactionProjection } from '../../projections/satisfaction';
import { slaProjection } from '../../projections/sla';
import { ticketsProjection } from '../../projections/tickets';

const MINUTE = 60_000;
/** Monday 2 November 2026, 09:00 UTC: the desk's clock, moved by the tests. */
const START = Date.UTC(2026, 10, 2, 9, 0);

describe('Teams in the dashboard reports (docs/teams.md)', () => {
  let server: TestServer;
  let now = START;
  let admin: string;
  let agent: Member;
  let payments: { _id: string; name: string };
  let devices: { _id: string; name: string };
  const at = (minutes: number) => {
    now = START + minutes * MINUTE;
  };
  const call = (method: string, url: string, token: string, body?: unknown) =>
    server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const ok = async (method: string, url: string, token: string, body?: unknown) => {
    const answer = await call(method, url, token, body);
    if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };

  /**
   * Payments: A answered after 30 min, resolved after 120, rated 5; B answered after 90 (first response
   * breached), resolved after 300 (resolution breached), rated 2. Devices: C answered after 10, still in
   * progress. No team: D, never answered.
   */
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    await ok('PUT', '/sla/settings', admin, oneSlaPolicy({ firstResponse: 60, nextResponse: null, resolution: 240 }));
    payments = (await ok('POST', '/teams', admin, { name: 'Payments', members: [agent.id] })).body.team;
    devices = (await ok('POST', '/teams', admin, { name: 'Devices', members: [agent.id] })).body.team;
    const category = await addCategory(server, admin);
    const customers = await Promise.all(['Ann', 'Ben', 'Cid', 'Dot'].map((name) => addMember(server, admin, 'customer', name)));
    const [a, b, c, d] = await Promise.all(customers.map((customer) => openTicket(server, customer, category)));
    await ok('PUT', `/tickets/${a!._id}`, agent.token, { team: payments._id });
    await ok('PUT', `/tickets/${b!._id}`, agent.token, { team: payments._id });
    await ok('PUT', `/tickets/${c!._id}`, agent.token, { team: devices._id });
    void d;
    const reply = (ticket: { _id: string }) => ok('POST', `/tickets/${ticket._id}/messages`, agent.token, { content: 'Looking into it' });
    at(10);
    await ok('POST', `/tickets/${c!._id}/assign`, agent.token, { agentId: agent.id });
    await reply(c!);
    at(30);
    await ok('POST', `/tickets/${a!._id}/assign`, agent.token, { agentId: agent.id });
    await reply(a!);
    at(90);
    await ok('POST', `/tickets/${b!._id}/assign`, agent.token, { agentId: agent.id });
    await reply(b!);
    at(120);
    await ok('PUT', `/tickets/${a!._id}`, agent.token, { status: 'resolved' });
    await ok('PUT', `/tickets/${a!._id}/satisfaction`, customers[0]!.token, { score: 5 });
    at(300);
    await ok('PUT', `/tickets/${b!._id}`, agent.token, { status: 'resolved' });
    await ok('PUT', `/tickets/${b!._id}/satisfaction`, customers[1]!.token, { score: 2 });
    at(360);
  });
  afterAll(() => server.stop());

  it('then the dashboard counts each team, the tickets in no team as "No team", with first-response and resolution times', async () => {
    const { teamStats } = (await ok('GET', '/tickets/stats', agent.token)).body;
    expect(teamStats).toEqual([
      { _id: payments._id, name: 'Payments', count: 2, open: 0, avgFirstResponseTime: 60, avgResolutionTime: 210 },
      { _id: devices._id, name: 'Devices', count: 1, open: 1, avgFirstResponseTime: 10, avgResolutionTime: 0 },
      { _id: null, name: 'No team', count: 1, open: 1, avgFirstResponseTime: 0, avgResolutionTime: 0 },
    ]);
  });

  it('then the service-level report attains per team, and its CSV has the team rows', async () => {
    const { report } = (await ok('GET', '/sla/report', agent.token)).body;
    const figures = (rows: Array<{ name: string; targets: Array<{ target: string; met: number; breached: number; attainment: number | null }> }>) =>
      rows.map((row) => [
        row.name,
        row.targets.filter((target) => target.met + target.breached > 0).map(({ target, met, breached }) => [target, met, breached]),
      ]);
    // D (no team) breached its first response at 60 and its resolution at 240; C breached its resolution at 240.
    expect(figures(report.byTeam)).toEqual([
      [
        'Devices',
        [
          ['firstResponse', 1, 0],
          ['resolution', 0, 1],
        ],
      ],
      [
        'No team',
        [
          ['firstResponse', 0, 1],
          ['resolution', 0, 1],
        ],
      ],
      [
        'Payments',
        [
          ['firstResponse', 1, 1],
          ['resolution', 1, 1],
        ],
      ],
    ]);
    const csv = (await call('GET', '/sla/report.csv', agent.token)).body as string;
    expect(csv).toContain('"team","Payments","First response","1","1","50"');
  });

  it("then satisfaction is reported per team, and its CSV names each resolution's team", async () => {
    const { report } = (await ok('GET', '/satisfaction/report', agent.token)).body;
    expect(report.byTeam).toEqual([{ id: payments._id, name: 'Payments', surveyed: 2, rated: 2, score: 50, responseRate: 100 }]);
    const csv = (await call('GET', '/satisfaction/report.csv', agent.token)).body as string;
    expect(csv.split('\r\n')[0]).toContain('"agent","team","score"');
    expect(csv.split('\r\n').filter((line) => line.includes('"Payments"'))).toHaveLength(2);
  });

  it('then the rebuilt read models equal the live ones', async () => {
    const check = await checkProjections(
      server.deps.events,
      [directoryProjection, ticketsProjection, slaProjection, satisfactionProjection],
      server.deps.readStore,
      { livePosition: () => server.deps.projections.position },
    );
    expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
  });
});
