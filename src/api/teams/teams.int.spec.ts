import { type Member, addCategory, addMember, oneSlaPolicy, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { slaProjection } from '../../projections/sla';
import { tagsProjection } from '../../projections/tags';
import { teamsProjection } from '../../projections/teams';
import { ticketsProjection } from '../../projections/tickets';

describe('Teams over HTTP (docs/teams.md)', () => {
  let server: TestServer;
  let admin: string;
  let otherAdmin: Member;
  let agent: Member;
  let secondAgent: Member;
  let customer: Member;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    [otherAdmin, agent, secondAgent, customer] = await Promise.all([
      addMember(server, admin, 'admin', 'Olga'),
      addMember(server, admin, 'agent', 'Alice'),
      addMember(server, admin, 'agent', 'Bert'),
      addMember(server, admin, 'customer', 'Cora'),
    ]);
  });
  afterAll(() => server.stop());

  const call = (method: string, url: string, token: string, body?: unknown) =>
    server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const createTeam = async (name: string, members: string[] = []) => {
    const created = await call('POST', '/teams', admin, { name, members });
    expect(created.status).toBe(201);
    return created.body.team as { _id: string; name: string };
  };
  const memberIds = (team: { members: Array<{ _id: string }> }) => team.members.map((member) => member._id).sort();

  describe('when an admin creates, renames, staffs and archives a team', () => {
    it('then each change is an event with the admin as actor, and the list follows', async () => {
      const created = await call('POST', '/teams', admin, { name: '  Billing  ', members: [agent.id] });
      expect(created.status).toBe(201);
      expect(created.body.team).toMatchObject({ name: 'Billing', archived: false, members: [{ _id: agent.id, firstName: 'Alice' }] });
      const id = created.body.team._id as string;
      expect((await call('PUT', `/teams/${id}`, admin, { name: 'Billing desk' })).body.team.name).toBe('Billing desk');
      const added = await call('POST', `/teams/${id}/members`, admin, { userId: otherAdmin.id });
      expect(memberIds(added.body.team)).toEqual([agent.id, otherAdmin.id].sort());
      const removed = await call('DELETE', `/teams/${id}/members/${agent.id}`, admin);
      expect(memberIds(removed.body.team)).toEqual([otherAdmin.id]);
      expect((await call('GET', '/teams', agent.token)).body.teams.map((team: { _id: string }) => team._id)).toContain(id);
      expect((await call('DELETE', `/teams/${id}`, admin)).status).toBe(204);
      expect((await call('GET', '/teams', agent.token)).body.teams.map((team: { _id: string }) => team._id)).not.toContain(id);
      expect((await call('GET', '/teams?includeArchived=true', agent.token)).body.teams.find((team: { _id: string }) => team._id === id)).toMatchObject({
        archived: true,
      });
      const history = await server.deps.events.readStream(`team-${id}`);
      expect(history.map((event) => event.type)).toEqual([
        'TeamCreated',
        'TeamMemberAdded',
        'TeamRenamed',
        'TeamMemberAdded',
        'TeamMemberRemoved',
        'TeamArchived',
      ]);
      expect(history[2]).toMatchObject({ data: { name: 'Billing desk', previous: 'Billing' }, metadata: { actor: { role: 'admin', platform: 'web' } } });
    });
  });

  describe('when the input is bad', () => {
    it('then it answers 400 with the reason and stores nothing', async () => {
      const before = await server.deps.events.headPosition();
      expect(await call('POST', '/teams', admin, { name: ' ' })).toMatchObject({ status: 400, body: { error: 'Name is required', code: 'VALIDATION_FAILED' } });
      expect(await call('POST', '/teams', admin, { name: 'x'.repeat(61) })).toMatchObject({
        status: 400,
        body: { error: 'Name must be at most 60 characters' },
      });
      expect((await call('POST', '/teams', admin, { name: 'X', colour: 'red' })).body.details).toEqual([
        expect.objectContaining({ message: 'Unknown field: colour' }),
      ]);
      expect(await call('POST', '/teams', admin, { name: 'X', members: [customer.id] })).toMatchObject({
        status: 400,
        body: { error: 'Only active agents and admins can be team members', details: [{ path: 'members.0' }] },
      });
      expect(await call('POST', '/teams', admin, { name: 'X', members: ['nobody'] })).toMatchObject({ status: 400 });
      expect(await call('GET', '/teams?includeArchived=maybe', admin)).toMatchObject({ status: 400, body: { error: 'includeArchived must be true or false' } });
      expect(await server.deps.events.headPosition()).toBe(before);
      const team = await createTeam('Shipping');
      expect(await call('POST', `/teams/${team._id}/members`, admin, { userId: customer.id })).toMatchObject({
        status: 400,
        body: { details: [{ path: 'userId' }] },
      });
      expect(await call('POST', `/teams/${team._id}/members`, admin, {})).toMatchObject({ status: 400, body: { error: 'userId is required' } });
    });
  });

  describe('when someone other than an admin changes teams', () => {
    it('then agents may read them and only admins change them (403); customers may not read them', async () => {
      const team = await createTeam('Hardware');
      expect((await call('GET', `/teams/${team._id}`, agent.token)).status).toBe(200);
      expect((await call('POST', '/teams', agent.token, { name: 'Mine' })).status).toBe(403);
      expect((await call('PUT', `/teams/${team._id}`, agent.token, { name: 'Mine' })).status).toBe(403);
      expect((await call('POST', `/teams/${team._id}/members`, agent.token, { userId: agent.id })).status).toBe(403);
      expect((await call('DELETE', `/teams/${team._id}`, agent.token)).status).toBe(403);
      expect((await call('GET', '/teams', customer.token)).status).toBe(403);
    });
  });

  describe('when the team or member does not exist', () => {
    it('then it answers 404, also for an archived team', async () => {
      expect(await call('GET', '/teams/nope', agent.token)).toMatchObject({ status: 404, body: { error: 'Team not found' } });
      expect((await call('PUT', '/teams/nope', admin, { name: 'X' })).status).toBe(404);
      expect((await call('DELETE', '/teams/nope', admin)).status).toBe(404);
      const team = await createTeam('Returns');
      expect(await call('DELETE', `/teams/${team._id}/members/${agent.id}`, admin)).toMatchObject({ status: 404, body: { error: 'Team member not found' } });
      await call('DELETE', `/teams/${team._id}`, admin);
      expect((await call('PUT', `/teams/${team._id}`, admin, { name: 'Back' })).status).toBe(404);
      expect((await call('POST', `/teams/${team._id}/members`, admin, { userId: agent.id })).status).toBe(404);
      expect((await call('DELETE', `/teams/${team._id}`, admin)).status).toBe(404);
    });
  });

  describe('when two admins change the same team at the same moment', () => {
    it('then both members are added, each rename records the name it replaced, and an archive wins over a later rename', async () => {
      const team = await createTeam('Accounts');
      const [first, second] = await Promise.all([
        call('POST', `/teams/${team._id}/members`, admin, { userId: agent.id }),
        call('POST', `/teams/${team._id}/members`, otherAdmin.token, { userId: secondAgent.id }),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(memberIds((await call('GET', `/teams/${team._id}`, admin)).body.team)).toEqual([agent.id, secondAgent.id].sort());
      const renames = await Promise.all([
        call('PUT', `/teams/${team._id}`, admin, { name: 'Accounts A' }),
        call('PUT', `/teams/${team._id}`, otherAdmin.token, { name: 'Accounts B' }),
      ]);
      expect(renames.map((answer) => answer.status)).toEqual([200, 200]);
      const renamed = (await server.deps.events.readStream(`team-${team._id}`)).filter((event) => event.type === 'TeamRenamed');
      expect(renamed.map((event) => event.data.previous)).toEqual(['Accounts', renamed[0]!.data.name]);
      const [archived, late] = await Promise.all([
        call('DELETE', `/teams/${team._id}`, admin),
        call('PUT', `/teams/${team._id}`, otherAdmin.token, { name: 'Accounts C' }),
      ]);
      expect(archived.status).toBe(204);
      expect([200, 404]).toContain(late.status);
      expect((await server.deps.events.readStream(`team-${team._id}`)).at(-1)!.type).toBe('TeamArchived');
    });
  });

  describe('when a category routes its new tickets to a team', () => {
    let billing: { _id: string; name: string };
    let category: string;
    let ticket: { _id: string; ticketId: number };
    beforeAll(async () => {
      billing = await createTeam('Billing team', [agent.id]);
      category = await addCategory(server, admin, { routeTeamId: billing._id });
      ticket = await openTicket(server, customer, category);
    });

    it('then the category must name an active team (400)', async () => {
      const archived = await createTeam('Gone');
      await call('DELETE', `/teams/${archived._id}`, admin);
      for (const routeTeamId of ['nope', archived._id])
        expect(await call('POST', '/categories', admin, { name: 'Routed', routeTeamId })).toMatchObject({
          status: 400,
          body: { error: 'Please choose an active team', details: [{ path: 'routeTeamId' }] },
        });
      expect((await call('GET', `/categories/${category}`, admin)).body.category.routeTeamId).toBe(billing._id);
      expect((await call('PUT', `/categories/${category}`, admin, { routeTeamId: 'nope' })).status).toBe(400);
    });

    it('then a new ticket there is with that team, by the rule, shown to staff only', async () => {
      expect((await call('GET', `/tickets/${ticket._id}`, agent.token)).body.ticket.team).toEqual({ _id: billing._id, name: 'Billing team' });
      expect((await call('GET', `/tickets/${ticket._id}`, customer.token)).body.ticket.team).toBeNull();
      const history = (await call('GET', `/tickets/${ticket._id}/history`, agent.token)).body.events;
      expect(history.find((event: { type: string }) => event.type === 'TicketTeamChanged')).toMatchObject({
        summary: expect.stringMatching(/^Routed to the team "Billing team" by the category "Category \d+"$/),
        data: { reason: 'category-routing', categoryId: category, teamId: billing._id },
      });
    });

    it('then Live Tickets filters by that team and by "My teams" for its members, and a customer may not filter by team (403)', async () => {
      const ids = async (token: string, query: string) => (await call('GET', `/tickets?${query}`, token)).body.tickets.map((t: { _id: string }) => t._id);
      expect(await ids(agent.token, `team=${billing._id}`)).toEqual([ticket._id]);
      expect(await ids(agent.token, 'team=mine')).toEqual([ticket._id]);
      expect(await ids(secondAgent.token, 'team=mine')).toEqual([]);
      expect(await call('GET', `/tickets?team=${billing._id}`, customer.token)).toMatchObject({
        status: 403,
        body: { error: 'Only staff can filter by team or tag' },
      });
    });

    it('then staff move it to another team or none, with their name on the event; a renamed team shows its new name', async () => {
      const other = await createTeam('Escalations');
      expect(await call('PUT', `/tickets/${ticket._id}`, secondAgent.token, { team: 'nope' })).toMatchObject({
        status: 400,
        body: { error: 'Please choose an active team' },
      });
      expect((await call('PUT', `/tickets/${ticket._id}`, customer.token, { team: other._id })).status).toBe(403);
      expect((await call('PUT', '/tickets/nope', agent.token, { team: other._id })).status).toBe(404);
      const moved = await call('PUT', `/tickets/${ticket._id}`, secondAgent.token, { team: other._id });
      expect(moved.body.ticket.team).toEqual({ _id: other._id, name: 'Escalations' });
      await call('PUT', `/teams/${other._id}`, admin, { name: 'Escalations desk' });
      expect((await call('GET', `/tickets/${ticket._id}`, agent.token)).body.ticket.team.name).toBe('Escalations desk');
      const history = (await call('GET', `/tickets/${ticket._id}/history`, agent.token)).body.events.filter(
        (event: { type: string }) => event.type === 'TicketTeamChanged',
      );
      expect(history.at(-1)).toMatchObject({
        actor: { userId: secondAgent.id },
        summary: 'Put the ticket with the team "Escalations" (previously "Billing team")',
      });
      expect((await call('PUT', `/tickets/${ticket._id}`, agent.token, { team: null })).body.ticket.team).toBeNull();
    });
  });

  describe('when staff change a ticket’s priority and category under service levels', () => {
    let ticket: { _id: string };
    let shipping: string;
    beforeAll(async () => {
      const settings = oneSlaPolicy({ firstResponse: 240, nextResponse: null, resolution: 2880 });
      settings.policies[0]!.targets.urgent = { firstResponse: 30, nextResponse: null, resolution: 480 };
      expect((await call('PUT', '/sla/settings', admin, settings)).status).toBe(200);
      const general = await addCategory(server, admin);
      shipping = await addCategory(server, admin, { name: 'Shipping desk' });
      const someone = await addMember(server, admin, 'customer', 'Dan');
      ticket = await openTicket(server, someone, general, { priority: 'low' });
    });

    it('then the change is refused to customers (403), for a bad value (400) and an unknown ticket (404)', async () => {
      expect((await call('PUT', `/tickets/${ticket._id}`, customer.token, { priority: 'high' })).status).toBe(403);
      expect(await call('PUT', `/tickets/${ticket._id}`, agent.token, { priority: 'asap' })).toMatchObject({
        status: 400,
        body: { error: 'Priority must be low, medium, high or urgent' },
      });
      expect(await call('PUT', `/tickets/${ticket._id}`, agent.token, { category: 'nope' })).toMatchObject({
        status: 400,
        body: { error: 'Please choose an active category' },
      });
      expect(await call('PUT', `/tickets/${ticket._id}`, agent.token, {})).toMatchObject({ status: 400 });
      expect((await call('PUT', '/tickets/nope', agent.token, { priority: 'high' })).status).toBe(404);
    });

    it('then the ticket shows them, the history names who did it, and the SLA targets follow the new priority', async () => {
      const before = (await call('GET', `/tickets/${ticket._id}/sla`, agent.token)).body.sla;
      expect(before.targets.find((t: { target: string }) => t.target === 'firstResponse').targetMinutes).toBe(240);
      const changed = await call('PUT', `/tickets/${ticket._id}`, agent.token, { priority: 'urgent', category: shipping });
      expect(changed.status).toBe(200);
      expect(changed.body.ticket).toMatchObject({ priority: 'urgent', category: { _id: shipping, name: 'Shipping desk' } });
      const after = (await call('GET', `/tickets/${ticket._id}/sla`, agent.token)).body.sla;
      const first = after.targets.find((t: { target: string }) => t.target === 'firstResponse');
      expect(first).toMatchObject({ targetMinutes: 30, episode: 1, startedAt: before.targets[0].startedAt });
      const history = (await call('GET', `/tickets/${ticket._id}/history`, agent.token)).body.events;
      expect(
        history
          .filter((e: { type: string }) => /Changed|Reapplied/.test(e.type))
          .map((e: { type: string; actor: { userId: string } }) => [e.type, e.actor.userId]),
      ).toEqual([
        ['TicketCategoryChanged', agent.id],
        ['SlaPolicyReapplied', agent.id],
        ['TicketPriorityChanged', agent.id],
        ['SlaPolicyReapplied', agent.id],
      ]);
      expect(history.find((e: { type: string }) => e.type === 'TicketPriorityChanged').summary).toBe('Changed the priority from low to urgent');
      expect((await call('GET', `/tickets?priority=urgent&category=${shipping}`, agent.token)).body.tickets.map((t: { _id: string }) => t._id)).toEqual([
        ticket._id,
      ]);
    });
  });

  describe('when staff tag tickets', () => {
    let ticket: { _id: string };
    let other: { _id: string };
    beforeAll(async () => {
      const category = await addCategory(server, admin);
      const [first, second] = await Promise.all([addMember(server, admin, 'customer', 'Eve'), addMember(server, admin, 'customer', 'Finn')]);
      ticket = await openTicket(server, first, category);
      other = await openTicket(server, second, category);
    });
    const tags = (answer: { body: { ticket: { tags: string[] } } }) => answer.body.ticket.tags;

    it('then tags are kept lowercase, once each, suggested by prefix, and filter Live Tickets', async () => {
      expect(tags(await call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: ' Refund ' }))).toEqual(['refund']);
      expect(tags(await call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: 'refund' }))).toEqual(['refund']);
      expect(tags(await call('POST', `/tickets/${ticket._id}/tags`, secondAgent.token, { tag: 'vip' }))).toEqual(['refund', 'vip']);
      await call('POST', `/tickets/${other._id}/tags`, agent.token, { tag: 'refund-later' });
      await call('POST', `/tickets/${other._id}/tags`, agent.token, { tag: 'refund' });
      expect((await call('GET', '/tags?q=REF', agent.token)).body.tags).toEqual([
        { tag: 'refund', uses: 2 },
        { tag: 'refund-later', uses: 1 },
      ]);
      const ids = async (query: string) => (await call('GET', `/tickets?${query}`, agent.token)).body.tickets.map((t: { _id: string }) => t._id).sort();
      expect(await ids('tag=refund')).toEqual([ticket._id, other._id].sort());
      expect(await ids('tag=vip')).toEqual([ticket._id]);
      expect(tags(await call('DELETE', `/tickets/${other._id}/tags/refund`, agent.token))).toEqual(['refund-later']);
      expect(await ids('tag=refund')).toEqual([ticket._id]);
      const history = (await call('GET', `/tickets/${ticket._id}/history`, agent.token)).body.events;
      expect(
        history
          .filter((e: { type: string }) => e.type === 'TicketTagAdded')
          .map((e: { summary: string; actor: { userId: string } }) => [e.summary, e.actor.userId]),
      ).toEqual([
        ['Added the tag "refund"', agent.id],
        ['Added the tag "vip"', secondAgent.id],
      ]);
    });

    it('then `tag:` in the Live Tickets search filters by tag beside the words, for staff only', async () => {
      const ids = async (q: string) =>
        (await call('GET', `/tickets?q=${encodeURIComponent(q)}`, agent.token)).body.tickets.map((t: { _id: string }) => t._id).sort();
      expect(await ids('tag:refund')).toEqual([ticket._id]);
      expect(await ids('tag:REFUND-later')).toEqual([other._id]);
      expect(await ids('tag:refund tag:vip')).toEqual([ticket._id]);
      expect(await ids('tag:refund tag:refund-later')).toEqual([]);
      expect(await ids('sign tag:refund-later')).toEqual([other._id]);
      expect(await ids('tag:vip elephant')).toEqual([]);
      expect(await call('GET', '/tickets?q=tag:', agent.token)).toMatchObject({
        status: 400,
        body: { error: 'A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit' },
      });
      expect((await call('GET', '/tickets?q=tag:refund', customer.token)).status).toBe(403);
    });

    it('then a bad tag is 400, the 21st is 422, a tag the ticket lacks or an unknown ticket 404, and customers 403', async () => {
      expect(await call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: 'two words' })).toMatchObject({
        status: 400,
        body: { error: 'A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit' },
      });
      expect((await call('GET', '/tickets?tag=-x', agent.token)).status).toBe(400);
      expect((await call('GET', '/tags?limit=0', agent.token)).status).toBe(400);
      expect(await call('DELETE', `/tickets/${ticket._id}/tags/nope`, agent.token)).toMatchObject({ status: 404, body: { error: 'Tag not found' } });
      expect((await call('POST', '/tickets/nope/tags', agent.token, { tag: 'x' })).status).toBe(404);
      expect((await call('POST', `/tickets/${ticket._id}/tags`, customer.token, { tag: 'x' })).status).toBe(403);
      expect((await call('GET', '/tags', customer.token)).status).toBe(403);
      expect((await call('GET', '/tickets?tag=refund', customer.token)).status).toBe(403);
      for (let index = 0; index < 18; index++) await call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: `t${index}` });
      expect(await call('POST', `/tickets/${ticket._id}/tags`, agent.token, { tag: 'one-too-many' })).toMatchObject({
        status: 422,
        body: { code: 'TOO_MANY_TAGS', error: 'A ticket can have at most 20 tags' },
      });
    });
  });

  describe('when the read models are rebuilt from the log', () => {
    it('then teams, tags, tickets with their teams, tags, priorities and categories, and the SLA clocks equal the live ones', async () => {
      const check = await checkProjections(
        server.deps.events,
        [directoryProjection, teamsProjection, ticketsProjection, slaProjection, tagsProjection],
        server.deps.readStore,
        {
          livePosition: () => server.deps.projections.position,
        },
      );
      expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
    });
  });
});
