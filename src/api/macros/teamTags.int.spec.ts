import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { ticketStream } from '../../domain/ticket/ticket';

describe('Macros that put the ticket with a team and tag it', () => {
  let server: TestServer;
  let admin: string;
  let ana: Member;
  let category: string;
  let payments: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    ana = await addMember(server, admin, 'agent', 'Ana');
    category = await addCategory(server, admin, { name: 'Billing' });
    payments = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Payments', members: [ana.id] } })).body.team._id;
  });
  afterAll(() => server.stop());

  const create = (body: Record<string, unknown>) =>
    server.request('POST', '/api/macros', { token: ana.token, body: { name: 'Refund', shortcode: 'refund', ...body } });
  const ticketOf = async (customer: Member) => openTicket(server, customer, category, { title: 'Charged twice' });

  it('when an agent applies a macro with team and tags, then each change is its own event with the agent as actor and the macro in its data', async () => {
    const macro = (
      await create({
        actions: [
          { type: 'team', teamId: payments },
          { type: 'tags', add: ['refund', 'VIP'], remove: ['new', 'absent'] },
        ],
      })
    ).body.macro;
    expect(macro.actions).toEqual([
      { type: 'team', teamId: payments },
      { type: 'tags', add: ['refund', 'vip'], remove: ['new', 'absent'] },
    ]);
    const ticket = await ticketOf(await addMember(server, admin, 'customer', 'Cleo'));
    expect((await server.request('POST', `/api/tickets/${ticket._id}/tags`, { token: ana.token, body: { tag: 'new' } })).status).toBe(200);

    const preview = await server.request('GET', `/api/tickets/${ticket._id}/macros/${macro._id}/preview`, { token: ana.token });
    expect(preview.body.actions.map((action: { label: string }) => action.label)).toEqual([
      'put the ticket with the team "Payments"',
      'add the tags "refund", "vip" and remove the tags "new", "absent"',
    ]);
    const applied = await server.request('POST', `/api/tickets/${ticket._id}/macros/${macro._id}/apply`, { token: ana.token, body: { version: 1 } });
    expect(applied.status).toBe(200);
    expect(applied.body.ticket).toMatchObject({ team: { _id: payments, name: 'Payments' }, tags: ['refund', 'vip'] });

    const events = (await server.deps.events.readStream(ticketStream(ticket._id))).filter((event) => event.metadata.macro);
    expect(events.map((event) => [event.type, event.data.tag ?? event.data.teamName])).toEqual([
      ['TicketTeamChanged', 'Payments'],
      ['TicketTagAdded', 'refund'],
      ['TicketTagAdded', 'vip'],
      ['TicketTagRemoved', 'new'],
    ]);
    for (const event of events) {
      expect(event.metadata.actor).toMatchObject({ userId: ana.id, role: 'agent' });
      expect(event.metadata.macro).toEqual({ id: macro._id, name: 'Refund', version: 1 });
    }
  });

  it('when a macro names an unknown team or a bad tag, then saving it is 400 with the field path', async () => {
    expect(await create({ actions: [{ type: 'team', teamId: 'no-such-team' }] })).toMatchObject({
      status: 400,
      body: { error: 'Please choose an active team', details: [{ path: 'actions.0.teamId', message: 'Please choose an active team' }] },
    });
    const badTag = await create({
      actions: [
        { type: 'note', text: 'x' },
        { type: 'tags', add: ['ok', 'Not a tag!'], remove: [] },
      ],
    });
    expect(badTag.status).toBe(400);
    expect(badTag.body.details).toEqual([
      expect.objectContaining({ path: 'actions.1.add.1', message: expect.stringMatching(/^A tag is 1 to 30 lowercase letters/) }),
    ]);
    expect((await create({ actions: [{ type: 'tags', add: [], remove: [] }] })).body.details).toEqual([
      { path: 'actions.0.add', message: 'Tags needs a tag to add or remove' },
    ]);
  });

  it('when the team was archived after the macro was saved, then applying refuses the whole macro and changes nothing', async () => {
    const gone = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Old desk', members: [] } })).body.team._id;
    const macro = (
      await create({
        reply: 'On it',
        actions: [
          { type: 'tags', add: ['moved'], remove: [] },
          { type: 'team', teamId: gone },
        ],
      })
    ).body.macro;
    expect((await server.request('DELETE', `/api/teams/${gone}`, { token: admin })).status).toBe(204);
    const ticket = await ticketOf(await addMember(server, admin, 'customer', 'Dora'));
    const refused = await server.request('POST', `/api/tickets/${ticket._id}/macros/${macro._id}/apply`, { token: ana.token, body: {} });
    expect(refused).toMatchObject({ status: 400, body: { refusedAction: { index: 2, label: 'put the ticket with the team "Old desk"' } } });
    const after = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: ana.token })).body;
    expect(after.ticket).toMatchObject({ tags: [], team: null });
    expect(after.messages).toEqual([]);
  });

  it('when staff apply a team-and-tags macro in bulk, then every ticket gets the team and the tags', async () => {
    const macro = (
      await create({
        actions: [
          { type: 'team', teamId: payments },
          { type: 'tags', add: ['bulked'], remove: [] },
        ],
      })
    ).body.macro;
    const tickets = [await ticketOf(await addMember(server, admin, 'customer', 'Eva')), await ticketOf(await addMember(server, admin, 'customer', 'Finn'))];
    const bulk = await server.request('POST', '/api/tickets/bulk', {
      token: ana.token,
      body: { tickets: tickets.map((ticket) => ticket._id), action: { type: 'macro', macroId: macro._id } },
    });
    expect(bulk.body.bulk).toMatchObject({ total: 2, applied: 2, failed: 0 });
    for (const ticket of tickets)
      expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: ana.token })).body.ticket).toMatchObject({
        team: { _id: payments },
        tags: ['bulked'],
      });
  });
});
