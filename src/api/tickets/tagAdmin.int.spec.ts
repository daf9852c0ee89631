import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { tagsProjection } from '../../projections/tags';
import { ticketsProjection } from '../../projections/tickets';

describe('An admin renames and merges tags (docs/teams.md)', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let tickets: Array<{ _id: string }>;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    const category = await addCategory(server, admin);
    const customers = await Promise.all(['Eve', 'Finn', 'Gus'].map((name) => addMember(server, admin, 'customer', name)));
    tickets = [];
    for (const customer of customers) tickets.push(await openTicket(server, customer, category));
  });
  afterAll(() => server.stop());

  const call = (method: string, url: string, token: string, body?: unknown) =>
    server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const tag = (ticket: { _id: string }, name: string) => call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: name });
  const tagsOf = async (ticket: { _id: string }) => (await call('GET', `/tickets/${ticket._id}`, agent.token)).body.ticket.tags as string[];
  const uses = async () => (await call('GET', '/tags?limit=200', agent.token)).body.tags as Array<{ tag: string; uses: number }>;

  describe('when `refund` is renamed to `refunds` and `billing-issue` merged into `billing`', () => {
    let beforeChange: string;
    beforeAll(async () => {
      const [first, second, third] = tickets as [{ _id: string }, { _id: string }, { _id: string }];
      await tag(first, 'refund');
      await tag(first, 'billing-issue');
      await tag(first, 'billing');
      await tag(second, 'refund');
      await tag(second, 'billing-issue');
      await tag(third, 'billing');
      beforeChange = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
    });

    it('then every ticket carries the new tag once, the counts and suggestions follow, and each history names the admin', async () => {
      const renamed = await call('POST', '/tags/refund/rename', admin, { to: 'refunds' });
      expect(renamed).toMatchObject({ status: 200, body: { change: { from: 'refund', to: 'refunds', merged: false, tickets: 2 } } });
      const merged = await call('POST', '/tags/billing-issue/merge', admin, { into: 'billing' });
      expect(merged).toMatchObject({ status: 200, body: { change: { from: 'billing-issue', to: 'billing', merged: true, tickets: 2 } } });
      expect(await tagsOf(tickets[0]!)).toEqual(['refunds', 'billing']);
      expect(await tagsOf(tickets[1]!)).toEqual(['refunds', 'billing']);
      expect(await tagsOf(tickets[2]!)).toEqual(['billing']);
      expect(await uses()).toEqual([
        { tag: 'billing', uses: 3 },
        { tag: 'refunds', uses: 2 },
      ]);
      expect((await call('GET', '/tags?q=ref', agent.token)).body.tags).toEqual([{ tag: 'refunds', uses: 2 }]);
      const ids = (await call('GET', '/tickets?tag=billing', agent.token)).body.tickets.map((t: { _id: string }) => t._id).sort();
      expect(ids).toEqual(tickets.map((t) => t._id).sort());
      const history = (await call('GET', `/tickets/${tickets[0]!._id}/history`, agent.token)).body.events as Array<{
        type: string;
        summary: string;
        actor: { role: string };
      }>;
      expect(history.filter((event) => event.type === 'TicketTagRenamed').map((event) => [event.summary, event.actor.role])).toEqual([
        ['Renamed the tag "refund" to "refunds"', 'admin'],
        ['Merged the tag "billing-issue" into "billing", which the ticket already had', 'admin'],
      ]);
    });

    it('then the ticket as it was before the change still carries the old tags (time travel)', async () => {
      const before = await call('GET', `/tickets/${tickets[1]!._id}/at?time=${encodeURIComponent(beforeChange)}`, agent.token);
      expect(before.body.ticket.tags).toEqual(['refund', 'billing-issue']);
    });

    it('then a bad or unknown tag, a rename onto a tag in use, a merge into none, and anyone but an admin are refused', async () => {
      expect(await call('POST', '/tags/refund/rename', admin, { to: 'x' })).toMatchObject({ status: 404, body: { error: 'Tag not found' } });
      expect(await call('POST', '/tags/refunds/rename', admin, { to: 'billing' })).toMatchObject({
        status: 409,
        body: { code: 'TAG_EXISTS', error: 'The tag "billing" is in use: merge into it instead' },
      });
      expect(await call('POST', '/tags/refunds/merge', admin, { into: 'nothing-yet' })).toMatchObject({
        status: 400,
        body: { error: 'Merge into a tag in use' },
      });
      expect(await call('POST', '/tags/refunds/rename', admin, { to: 'Two words' })).toMatchObject({
        status: 400,
        body: { error: 'A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit' },
      });
      expect((await call('POST', '/tags/refunds/rename', admin, { to: 'refunds' })).status).toBe(400);
      expect((await call('POST', '/tags/refunds/rename', agent.token, { to: 'money-back' })).status).toBe(403);
      expect(await tagsOf(tickets[0]!)).toEqual(['refunds', 'billing']);
    });

    it("then the tickets CSV export has each ticket's team and tags, filters as the list does, and is staff's", async () => {
      const team = (await call('POST', '/teams', admin, { name: 'Payments', members: [agent.id] })).body.team as { _id: string };
      await call('PUT', `/tickets/${tickets[0]!._id}`, agent.token, { team: team._id });
      const exported = await call('GET', '/tickets/export.csv', agent.token);
      expect(exported.status).toBe(200);
      const lines = (exported.body as string).trim().split('\r\n');
      expect(lines[0]).toBe('"ticket","title","status","priority","category","customer","agent","team","tags","createdAt","updatedAt","resolvedAt"');
      const cells = (line: string) => line.slice(1, -1).split('","');
      expect(lines.slice(1).map((line) => [cells(line)[7], cells(line)[8]])).toEqual([
        ['No team', 'billing'],
        ['No team', 'refunds billing'],
        ['Payments', 'refunds billing'],
      ]);
      const billing = ((await call('GET', '/tickets/export.csv?tag=refunds&team=' + team._id, agent.token)).body as string).trim().split('\r\n');
      expect(billing).toHaveLength(2);
      expect((await call('GET', '/tickets/export.csv?status=nope', agent.token)).status).toBe(400);
      const customer = await addMember(server, admin, 'customer', 'Hal');
      expect((await call('GET', '/tickets/export.csv', customer.token)).status).toBe(403);
    });

    it('then a deleted ticket leaves the counts, and the rebuilt read models equal the live ones', async () => {
      expect((await call('DELETE', `/tickets/${tickets[2]!._id}`, admin)).status).toBe(204);
      expect(await uses()).toEqual([
        { tag: 'billing', uses: 2 },
        { tag: 'refunds', uses: 2 },
      ]);
      const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection, tagsProjection], server.deps.readStore, {
        livePosition: () => server.deps.projections.position,
      });
      expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
    });
  });

  // On MongoDB the tags model is written apart from the tickets model: a rename right after tagging found no such tag (404).
  it('when tags are added and each renamed at once, three tickets at a time over four rounds, then every rename finds the tag it was just given', async () => {
    // Tickets of its own: the cases above delete one of theirs.
    const category = await addCategory(server, admin);
    const own: Array<{ _id: string }> = [];
    for (const name of ['Hal', 'Ivy', 'Jo']) own.push(await openTicket(server, await addMember(server, admin, 'customer', name), category));
    const answers: number[] = [];
    for (let round = 0; round < 4; round++)
      await Promise.all(
        own.map(async (ticket, index) => {
          const name = `quick-${round}-${index}`;
          answers.push((await tag(ticket, name)).status);
          answers.push((await call('POST', `/tags/${name}/rename`, admin, { to: `${name}-renamed` })).status);
        }),
      );
    expect(answers).toEqual(Array(24).fill(200));
  });
});
