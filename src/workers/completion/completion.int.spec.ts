import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { loadTicket, runTicketCommand } from '../../app/tickets/service';

describe('Merges cut short between their two appends (docs/tickets.md, merging)', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { MERGE_COMPLETION_DELAY_MS: '300' } });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  it('when only the source was written (a crash before the target), then the workers complete the merge in the name of the agent who started it', async () => {
    const customer = await addMember(server, admin, 'customer', 'Carol');
    const target = await openTicket(server, customer, category, { title: 'First report' });
    expect((await server.request('PUT', `/api/tickets/${target._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
    const source = await openTicket(server, customer, category, { title: 'Same problem again' });
    expect(
      (await server.request('POST', `/api/tickets/${source._id}/messages`, { token: customer.token, body: { content: 'Still charged twice' } })).status,
    ).toBe(201);

    // The merge's first append alone, as a process that died right after it leaves the log.
    const { deps } = server;
    const actor = { userId: agent.id, role: 'agent', platform: 'web' as const };
    const targetState = (await loadTicket(deps, target._id)).state;
    await runTicketCommand(
      deps,
      source._id,
      { type: 'MergeInto', ticketId: source._id, actor: { userId: agent.id, role: 'agent' }, target: targetState, now: new Date() },
      { actor, now: new Date() },
    );
    const before = await server.request('GET', `/api/tickets/${target._id}/messages`, { token: agent.token });
    expect(before.body.messages.map((m: { content: string }) => m.content)).not.toContain('Still charged twice');

    await eventually(
      async () => {
        const after = await server.request('GET', `/api/tickets/${target._id}/messages`, { token: agent.token });
        return after.body.messages.some((m: { content: string }) => m.content === 'Still charged twice');
      },
      { describe: "the target holds the source's messages", timeoutMs: 20_000 },
    );
    const history = await server.request('GET', `/api/tickets/${target._id}/history`, { token: agent.token });
    const merged = history.body.events.find((entry: { type: string }) => entry.type === 'TicketMergedFrom');
    expect(merged.actor).toMatchObject({ userId: agent.id, role: 'agent' });
    // Done once: the completion checked again finds nothing left to do.
    const stream = await deps.events.readStream(`ticket-${target._id}`);
    expect(stream.filter((event) => event.type === 'TicketMergedFrom')).toHaveLength(1);
    expect((await server.request('GET', `/api/tickets/${target._id}`, { token: agent.token })).body.ticket.status).toBe('open');
  }, 60_000);
});
