import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { LiveClient } from '../../../test/support/liveClient';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { viewsProjection } from '../../projections/views';

interface SavedView {
  _id: string;
  name: string;
  scope: string;
  isDefault: boolean;
}

describe('Saved views over HTTP and the live channel (docs/views.md)', () => {
  let server: TestServer;
  let admin: string;
  let ana: Member;
  let bob: Member;
  let carla: Member;
  let billing: string;
  let category: string;
  const clients: LiveClient[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    [ana, bob, carla] = await Promise.all([
      addMember(server, admin, 'agent', 'Ana'),
      addMember(server, admin, 'agent', 'Bob'),
      addMember(server, admin, 'customer', 'Carla'),
    ]);
    billing = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Billing', members: [ana.id] } })).body.team._id;
    category = await addCategory(server, admin, { name: 'Invoices' });
  }, 30_000);
  afterEach(() => clients.splice(0).forEach((client) => client.socket.disconnect()));
  afterAll(() => server.stop());

  const call = (method: string, url: string, token: string, body?: unknown) =>
    server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const names = async (token: string) => ((await call('GET', '/views', token)).body.views as SavedView[]).map((view) => view.name);
  const watch = async (token: string) => {
    const client = await LiveClient.connect(server.url, token);
    clients.push(client);
    expect(await client.socket.timeout(2000).emitWithAck('watch_views', {})).toEqual({ ok: true });
    return client;
  };
  /** The last count a socket was sent for a view. */
  const countOf = (client: LiveClient, viewId: string) =>
    client
      .events('view_counts')
      .map((push) => push.counts[viewId] as number | undefined)
      .filter((count) => count !== undefined)
      .at(-1);

  describe('when staff save views in each scope', () => {
    it('then anyone on staff keeps personal ones, team members (or admins) share with the team, only admins with everyone, and customers are refused', async () => {
      const mine = await call('POST', '/views', bob.token, { name: 'My urgent', filters: { priority: 'urgent' } });
      expect(mine).toMatchObject({ status: 201, body: { view: { name: 'My urgent', scope: 'personal', teamId: null, sort: 'latest', isDefault: false } } });
      expect(await call('POST', '/views', bob.token, { name: 'Billing queue', scope: 'team', teamId: billing })).toMatchObject({
        status: 403,
        body: { error: 'Only members of the team (or admins) can share views with it' },
      });
      expect(await call('POST', '/views', ana.token, { name: 'Billing queue', scope: 'team', teamId: billing })).toMatchObject({ status: 201 });
      expect(await call('POST', '/views', ana.token, { name: 'Escalations', scope: 'everyone' })).toMatchObject({
        status: 403,
        body: { error: 'Only admins can share views with everyone' },
      });
      expect(await call('POST', '/views', admin, { name: 'Escalations', scope: 'everyone', filters: { priority: 'high,urgent' } })).toMatchObject({
        status: 201,
      });

      const defaults = [
        'All',
        'Mine, waiting on us',
        'Unassigned',
        'My Tickets',
        'Open',
        'In Progress',
        'Awaiting Rating',
        'Rated 1–2',
        'Breached',
        'Due Within 1 h',
      ];
      expect(await names(ana.token)).toEqual([...defaults, 'Escalations', 'Billing queue']);
      expect(await names(bob.token)).toEqual([...defaults, 'Escalations', 'My urgent']);
      expect(await names(admin)).toEqual([...defaults, 'Escalations', 'Billing queue']);
      // Another's personal view does not exist for them; a team view is its members' to change.
      expect(await call('PUT', `/views/${mine.body.view._id}`, ana.token, { name: 'Taken' })).toMatchObject({ status: 404, body: { error: 'View not found' } });
      expect(await call('PUT', '/views/open', admin, { name: 'Open work' })).toMatchObject({
        status: 403,
        body: { error: 'The default views cannot be changed or deleted' },
      });
      expect(await call('DELETE', '/views/all', admin)).toMatchObject({ status: 403 });
      for (const [method, url] of [
        ['GET', '/views'],
        ['GET', '/views/counts'],
        ['POST', '/views'],
        ['PUT', `/views/${mine.body.view._id}`],
        ['DELETE', `/views/${mine.body.view._id}`],
      ] as const)
        expect((await call(method, url, carla.token, method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined)).status).toBe(403);
    });

    it('then a member who leaves the team can no longer change its views, and moving a view checks the new scope too', async () => {
      const team = (await call('POST', '/teams', admin, { name: 'Returns', members: [ana.id, bob.id] })).body.team._id as string;
      const view = (await call('POST', '/views', bob.token, { name: 'Returns open', scope: 'team', teamId: team, filters: { team, status: 'open' } })).body
        .view;
      expect(await call('PUT', `/views/${view._id}`, bob.token, { scope: 'everyone', teamId: null })).toMatchObject({ status: 403 });
      expect((await call('DELETE', `/teams/${team}/members/${bob.id}`, admin)).status).toBe(200);
      expect(await call('PUT', `/views/${view._id}`, bob.token, { name: 'Gone' })).toMatchObject({ status: 404 });
      expect(await call('PUT', `/views/${view._id}`, ana.token, { scope: 'personal', teamId: null })).toMatchObject({
        status: 403,
        body: { error: "Only a view's owner can make it personal" },
      });
      const renamed = await call('PUT', `/views/${view._id}`, ana.token, { name: 'Returns waiting', filters: { team, waiting: 'true' } });
      expect(renamed).toMatchObject({ status: 200, body: { view: { scope: 'team', name: 'Returns waiting', filters: { team, waiting: 'true' } } } });
      const events = await server.deps.events.readStream(`view-${view._id}`);
      expect(events.map((event) => [event.type, event.metadata.actor?.userId])).toEqual([
        ['ViewCreated', bob.id],
        ['ViewUpdated', ana.id],
      ]);
      expect(events[1]!.data).toEqual({
        viewId: view._id,
        changes: { name: 'Returns waiting', filters: { team, waiting: 'true' } },
        previous: { name: 'Returns open', filters: { team, status: 'open' } },
      });
    });
  });

  describe('when a view is saved with wrong input', () => {
    it('then 400 names the problem, a name taken in its scope is 409, and a default view name is taken for everyone', async () => {
      expect(await call('POST', '/views', ana.token, { name: '' })).toMatchObject({ status: 400, body: { error: 'Name is required' } });
      expect(await call('POST', '/views', ana.token, { name: 'Bad', filters: { status: 'lost' } })).toMatchObject({
        status: 400,
        body: { error: 'Status must be one of open, in_progress, pending_customer, resolved, closed' },
      });
      expect((await call('POST', '/views', ana.token, { name: 'Bad', filters: { colour: 'red' } })).status).toBe(400);
      expect((await call('POST', '/views', ana.token, { name: 'Bad', columns: ['number', 'number'] })).body.error).toBe('Each column may be listed once');
      expect((await call('POST', '/views', ana.token, { name: 'Bad', scope: 'team' })).body.error).toBe(
        'A team view needs teamId, and only a team view has one',
      );
      expect(await call('POST', '/views', admin, { name: 'Nowhere', scope: 'team', teamId: 'no-such-team' })).toMatchObject({
        status: 422,
        body: { code: 'UNKNOWN_TEAM' },
      });
      expect((await call('POST', '/views', ana.token, { name: 'Twice' })).status).toBe(201);
      expect(await call('POST', '/views', ana.token, { name: 'twice' })).toMatchObject({ status: 409, body: { code: 'VIEW_NAME_TAKEN' } });
      expect((await call('POST', '/views', bob.token, { name: 'Twice' })).status).toBe(201);
      expect(await call('POST', '/views', admin, { name: 'open', scope: 'everyone' })).toMatchObject({ status: 409, body: { code: 'VIEW_NAME_TAKEN' } });
    });

    it('then a deleted view lets its name go, and the read model rebuilds equal from the log', async () => {
      const first = (await call('POST', '/views', ana.token, { name: 'Reused' })).body.view;
      expect((await call('DELETE', `/views/${first._id}`, ana.token)).status).toBe(204);
      expect((await call('POST', '/views', ana.token, { name: 'Reused' })).status).toBe(201);
      const check = await checkProjections(server.deps.events, [viewsProjection], server.deps.readStore, {
        livePosition: () => server.deps.projections.position,
      });
      expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
    });
  });

  describe('when a teammate watches a team view', () => {
    it('then its count goes up as a matching ticket opens and down as it leaves the view, pushed without asking', async () => {
      const view = (await call('POST', '/views', ana.token, { name: 'Invoices open', scope: 'team', teamId: billing, filters: { category, status: 'open' } }))
        .body.view as SavedView;
      const teammate = await watch(ana.token);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(countOf(teammate, view._id)).toBe(0);
      const customer = await addMember(server, admin, 'customer', 'Dora');
      const ticket = await openTicket(server, customer, category);
      await teammate.next('view_counts', (push) => push.counts[view._id] === 1, 3000);
      expect((await call('GET', '/views/counts', ana.token)).body.counts[view._id]).toBe(1);
      expect((await call('PUT', `/tickets/${ticket._id}`, admin, { status: 'resolved' })).status).toBe(200);
      await teammate.next('view_counts', (push) => push.counts[view._id] === 0, 3000);
    });

    it('then chat on a ticket counts only the views a message can change, at most every half second', async () => {
      // Gil sees the defaults, everyone's view and these two; a message can change four of them: his "Invoices
      // waiting", "Mine, waiting on us", "Breached" and "Due Within 1 h".
      const gil = await addMember(server, admin, 'agent', 'Gil');
      const view = (await call('POST', '/views', gil.token, { name: 'Invoices any', filters: { category } })).body.view as SavedView;
      const waiting = (await call('POST', '/views', gil.token, { name: 'Invoices waiting', filters: { category, waiting: 'true' } })).body.view as SavedView;
      const customer = await addMember(server, admin, 'customer', 'Eve');
      const ticket = await openTicket(server, customer, category);
      const watcher = await watch(gil.token);
      await watcher.next('view_counts', (push) => push.counts[waiting._id] === 1);
      await new Promise((resolve) => setTimeout(resolve, 700));
      const queries = async () => (await server.deps.metrics.registry.getSingleMetric('desk_view_counts_total')!.get()).values[0]!.value;
      const before = await queries();
      const started = Date.now();
      for (const content of ['one', 'two', 'three', 'four'])
        expect((await call('POST', `/tickets/${ticket._id}/messages`, customer.token, { content })).status).toBe(201);
      const rounds = Math.ceil((Date.now() - started) / 500) + 1;
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const counted = (await queries()) - before;
      expect(counted).toBeGreaterThan(0);
      expect(counted).toBeLessThanOrEqual(4 * rounds);
      expect(watcher.events('view_counts').filter((push) => view._id in push.counts)).toHaveLength(1);
    });

    it('then a customer may not watch view counts', async () => {
      const client = await LiveClient.connect(server.url, carla.token);
      clients.push(client);
      expect(await client.socket.timeout(2000).emitWithAck('watch_views', {})).toEqual({ ok: false, error: 'Only staff see view counts' });
    });
  });
});
