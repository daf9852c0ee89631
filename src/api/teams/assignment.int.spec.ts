import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { teamsProjection } from '../../projections/teams';
import { ticketsProjection } from '../../projections/tickets';
import { usersProjection } from '../../projections/users';

describe('Availability and automatic assignment over HTTP (docs/teams.md)', () => {
  let server: TestServer;
  let admin: string;
  let alice: Member;
  let bert: Member;
  let adminId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const signedIn = await server.signIn();
    admin = signedIn.accessToken;
    adminId = signedIn.user._id;
    [alice, bert] = await Promise.all([addMember(server, admin, 'agent', 'Alice'), addMember(server, admin, 'agent', 'Bert')]);
  });
  afterAll(() => server.stop());

  const call = (method: string, url: string, token: string, body?: unknown) =>
    server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  /** A team of Alice and Bert assigning by `assignment`, and a category routing to it. */
  const routedDesk = async (assignment: Record<string, unknown>, members = [alice, bert]) => {
    const team = (await call('POST', '/teams', admin, { name: 'Payments', members: members.map((member) => member.id) })).body.team as { _id: string };
    const set = await call('PUT', `/teams/${team._id}/assignment`, admin, assignment);
    expect(set.status).toBe(200);
    return { teamId: team._id, category: await addCategory(server, admin, { routeTeamId: team._id }) };
  };
  const newTicket = async (category: string) => openTicket(server, await addMember(server, admin, 'customer'), category);
  const assigneeOf = async (ticketId: string) => (await call('GET', `/tickets/${ticketId}`, admin)).body.ticket.assignedAgent?._id ?? null;
  const setOwn = (member: Member, availability: string) => call('PUT', '/auth/availability', member.token, { availability });

  describe('when agents set their availability', () => {
    it('then each change is an event with its actor, shown on the team, and only an admin sets a colleague', async () => {
      const { teamId } = await routedDesk({ mode: 'manual' });
      expect((await call('GET', '/auth/availability', alice.token)).body).toEqual({ availability: 'available' });
      expect((await setOwn(alice, 'away')).body).toEqual({ availability: 'away' });
      expect((await call('GET', `/teams/${teamId}`, bert.token)).body.team.members.find((m: { _id: string }) => m._id === alice.id).availability).toBe('away');
      expect((await call('PUT', `/teams/${teamId}/members/${alice.id}/availability`, bert.token, { availability: 'available' })).status).toBe(403);
      const byAdmin = await call('PUT', `/teams/${teamId}/members/${alice.id}/availability`, admin, { availability: 'available' });
      expect(byAdmin.body.team.members.find((m: { _id: string }) => m._id === alice.id).availability).toBe('available');
      const changes = (await server.deps.events.readStream(`user-${alice.id}`)).filter((event) => event.type === 'AvailabilitySet');
      expect(changes.map((event) => [event.data.availability, event.metadata.actor?.userId])).toEqual([
        ['away', alice.id],
        ['available', adminId],
      ]);
    });

    it('then a bad value is 400, a customer 403, and a non-member of the team 404', async () => {
      const { teamId } = await routedDesk({ mode: 'manual' });
      expect((await setOwn(alice, 'busy')).status).toBe(400);
      const customer = await addMember(server, admin, 'customer');
      expect((await setOwn(customer, 'away')).status).toBe(403);
      expect((await call('PUT', `/teams/${teamId}/members/${customer.id}/availability`, admin, { availability: 'away' })).status).toBe(404);
      expect((await call('PUT', `/teams/${teamId}/assignment`, admin, { mode: 'fastest' })).status).toBe(400);
      expect((await call('PUT', `/teams/${teamId}/assignment`, admin, { mode: 'round-robin', cap: 0 })).status).toBe(400);
      expect((await call('PUT', `/teams/${teamId}/assignment`, alice.token, { mode: 'round-robin' })).status).toBe(403);
    });
  });

  describe('when a team assigns round-robin with a cap', () => {
    it('then new tickets go to its Available agents in turn, none to an Away one, none past the cap, each by the system with the rule', async () => {
      await setOwn(alice, 'available');
      await setOwn(bert, 'available');
      const { teamId, category } = await routedDesk({ mode: 'round-robin', cap: 2 });
      const first = await newTicket(category);
      const second = await newTicket(category);
      expect(new Set([await assigneeOf(first._id), await assigneeOf(second._id)])).toEqual(new Set([alice.id, bert.id]));
      const next = (await assigneeOf(second._id)) === alice.id ? bert : alice;
      const other = next === alice ? bert : alice;
      await setOwn(next, 'away');
      expect(await assigneeOf((await newTicket(category))._id)).toBe(other.id);
      // The other agent holds two now, the cap, and the next in turn is away: the ticket waits with the team.
      const waiting = await newTicket(category);
      expect(await assigneeOf(waiting._id)).toBeNull();
      expect((await call('GET', `/tickets/${waiting._id}`, admin)).body.ticket.team._id).toBe(teamId);
      // Closing one frees a place under the cap.
      expect((await call('PUT', `/tickets/${first._id}`, admin, { status: 'closed' })).status).toBe(200);
      await setOwn(next, 'available');
      expect(await assigneeOf((await newTicket(category))._id)).toBe(next.id);

      const history = (await call('GET', `/tickets/${second._id}/history`, admin)).body.events as Array<{
        type: string;
        actor: { role: string };
        summary: string;
      }>;
      const assigned = history.find((event) => event.type === 'AgentAssignedToTicket')!;
      expect(assigned.actor.role).toBe('system');
      expect(assigned.summary).toMatch(/by the team "Payments"'s round-robin rule$/);
    });

    it('then least-loaded gives the ticket to the agent with fewer open tickets, counting those taken by hand', async () => {
      const [cleo, dan] = await Promise.all([addMember(server, admin, 'agent', 'Cleo'), addMember(server, admin, 'agent', 'Dan')]);
      const { category } = await routedDesk({ mode: 'least-loaded', cap: null }, [cleo, dan]);
      const manual = await openTicket(server, await addMember(server, admin, 'customer'), await addCategory(server, admin));
      expect((await call('PUT', `/tickets/${manual._id}`, cleo.token, { assignedAgent: cleo.id })).status).toBe(200);
      expect(await assigneeOf((await newTicket(category))._id)).toBe(dan.id);
      expect(await assigneeOf((await newTicket(category))._id)).not.toBeNull();
    });
  });

  it('then the users, teams and tickets read models equal a rebuild from the log', async () => {
    const check = await checkProjections(
      server.deps.events,
      [directoryProjection, usersProjection, teamsProjection, ticketsProjection],
      server.deps.readStore,
      {
        livePosition: () => server.deps.projections.position,
      },
    );
    expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
  });
});
