import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

const at = (iso: string) => new Date(iso);
const minutes = (date: Date, count: number) => new Date(date.getTime() + count * 60_000);

describe('Dashboard statistics (docs/product.md section 9)', () => {
  let server: TestServer;
  let admin: string;
  const clock = { now: at('2026-11-10T08:00:00.000Z') };
  let expected: Record<string, unknown>;

  beforeAll(async () => {
    server = await startTestServer({ clock: () => clock.now });
    admin = await server.login();
    const agent = await addMember(server, admin, 'agent');
    const hardware = await addCategory(server, admin, { name: 'Hardware', color: '#ff0000' });
    const software = await addCategory(server, admin, { name: 'Software', color: '#00ff00' });
    const [ann, ben, cat] = await Promise.all([
      addMember(server, admin, 'customer'),
      addMember(server, admin, 'customer'),
      addMember(server, admin, 'customer'),
    ]);

    // An old ticket: answered after three days (response capped at 1440 minutes), closed then.
    const c = await openTicket(server, cat, software, { title: 'Old one' });
    clock.now = minutes(at('2026-11-10T08:00:00.000Z'), 3 * 1440);
    await server.request('POST', `/api/tickets/${c._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
    await server.request('PUT', `/api/tickets/${c._id}`, { token: agent.token, body: { status: 'closed' } });

    // Late yesterday (UTC): taken after 30 minutes, resolved after 90.
    const aOpened = at('2026-11-20T22:30:00.000Z');
    clock.now = aOpened;
    const a = await openTicket(server, ann, hardware, { title: 'Late one' });
    clock.now = minutes(aOpened, 30);
    await server.request('POST', `/api/tickets/${a._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
    clock.now = minutes(aOpened, 90);
    await server.request('PUT', `/api/tickets/${a._id}`, { token: agent.token, body: { status: 'resolved' } });

    // This morning, untouched.
    clock.now = at('2026-11-21T08:00:00.000Z');
    await openTicket(server, ben, hardware, { title: 'Fresh one' });
    clock.now = at('2026-11-21T12:00:00.000Z');

    expected = {
      total: 3,
      open: 1,
      inProgress: 0,
      pendingCustomer: 0,
      resolved: 1,
      closed: 1,
      unassigned: 1,
      weekTickets: 2,
      avgResponseTime: Math.round((90 + 1440) / 2),
      avgResolutionTime: Math.round((90 + 3 * 1440) / 2),
      categoryStats: [
        { _id: hardware, name: 'Hardware', color: '#ff0000', count: 2, open: 1, avgResolutionTime: 90 },
        { _id: software, name: 'Software', color: '#00ff00', count: 1, open: 0, avgResolutionTime: 3 * 1440 },
      ],
    };
  });
  afterAll(() => server.stop());

  const stats = async (query = '') => {
    const answer = await server.request('GET', `/api/tickets/stats${query}`, { token: admin });
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('when staff ask, then counts and averages follow the rules of docs/product.md section 9', async () => {
    expect(await stats('?tz=UTC')).toMatchObject({ ...expected, todayTickets: 1 });
  });

  it("when the caller's time zone is given, then today starts at their local midnight", async () => {
    expect((await stats('?tz=Asia/Tokyo')).todayTickets).toBe(2);
    expect((await stats('?tz=Asia/Kolkata')).todayTickets).toBe(2);
    expect((await stats('?tz=America/Los_Angeles')).todayTickets).toBe(1);
    expect((await server.request('GET', '/api/tickets/stats?tz=Mars/Olympus', { token: admin })).status).toBe(400);
  });

  it('when asked for recent activity, then the newest tickets come as new or updated entries, latest first', async () => {
    const { recentActivity } = await stats();
    expect(recentActivity.map((a: { type: string; message: string }) => [a.type, a.message])).toEqual([
      ['new', expect.stringMatching(/^New ticket #\d+: Fresh one$/)],
      ['updated', expect.stringMatching(/^Ticket #\d+ updated: Late one \(resolved\)$/)],
      ['updated', expect.stringMatching(/^Ticket #\d+ updated: Old one \(closed\)$/)],
    ]);
  });

  it('when the read models are rebuilt from the log, then the statistics are the same', async () => {
    const before = await stats('?tz=UTC');
    await server.deps.projections.rebuild();
    expect(await stats('?tz=UTC')).toEqual(before);
  });

  it('when per-category statistics are asked for, then staff get them and customers do not', async () => {
    const answer = await server.request('GET', '/api/categories/stats', { token: admin });
    expect(answer.body.stats).toEqual(expected.categoryStats);
    const customer = await addMember(server, admin, 'customer');
    expect((await server.request('GET', '/api/tickets/stats', { token: customer.token })).status).toBe(403);
    expect((await server.request('GET', '/api/categories/stats', { token: customer.token })).status).toBe(403);
  });

  it('when a ticket is deleted, then it leaves the statistics', async () => {
    const { tickets } = (await server.request('GET', '/api/tickets?q=fresh', { token: admin })).body;
    await server.request('DELETE', `/api/tickets/${tickets[0]._id}`, { token: admin });
    expect(await stats('?tz=UTC')).toMatchObject({ total: 2, open: 0, unassigned: 0, todayTickets: 0, weekTickets: 1 });
  });
});
