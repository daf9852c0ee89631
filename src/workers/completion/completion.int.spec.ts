import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { loadTicket, runTicketCommand } from '../../app/tickets/service';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { ticketsProjection } from '../../projections/tickets';

/** Enough messages of about 2 KB that the copy takes several events (docs/tickets.md, large merges). */
const LARGE_SOURCE = 400;

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

  it('when a large merge stopped between the appends of its copy (docs/tickets.md, large merges), then the workers copy the rest once', async () => {
    const customer = await addMember(server, admin, 'customer', 'Cleo');
    const target = await openTicket(server, customer, category, { title: 'First report' });
    expect((await server.request('PUT', `/api/tickets/${target._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
    const source = await openTicket(server, customer, category, { title: 'A long thread' });
    const { deps } = server;
    const now = new Date();
    const sender = { userId: customer.id, role: 'customer' as const };
    const context = { actor: { ...sender, platform: 'web' as const }, now };
    for (let index = 1; index <= LARGE_SOURCE; index++)
      await runTicketCommand(
        deps,
        source._id,
        {
          type: 'PostMessage',
          ticketId: source._id,
          messageId: `m-${index}`,
          actor: sender,
          content: `${index} ${'y'.repeat(1900)}`,
          isInternal: false,
          platform: 'web',
          attachments: [],
          now,
        },
        context,
      );

    // The merge's first appends alone, as a process that died between two parts of the copy leaves the log.
    const actor = { userId: agent.id, role: 'agent' as const };
    const agentContext = { actor: { ...actor, platform: 'web' as const }, now };
    const into = await runTicketCommand(
      deps,
      source._id,
      { type: 'MergeInto', ticketId: source._id, actor, target: (await loadTicket(deps, target._id)).state, now },
      agentContext,
    );
    const mergeFrom = { type: 'MergeFrom' as const, ticketId: target._id, actor, source: into.state, reopen: false, now };
    await runTicketCommand(deps, target._id, mergeFrom, agentContext);
    await runTicketCommand(deps, target._id, { ...mergeFrom, continuing: true }, agentContext);
    const partial = (await server.request('GET', `/api/tickets/${target._id}`, { token: agent.token })).body.ticket.messageCount;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(LARGE_SOURCE);

    await eventually(
      async () => (await server.request('GET', `/api/tickets/${target._id}`, { token: agent.token })).body.ticket.messageCount === LARGE_SOURCE,
      { describe: "the target holds all of the source's messages", timeoutMs: 20_000 },
    );
    const stream = await deps.events.readStream(`ticket-${target._id}`);
    const copied = stream.flatMap((event) =>
      event.type === 'TicketMergedFrom' || event.type === 'MergedMessagesCopied' ? (event.data.messages as Array<{ messageId: string }>) : [],
    );
    expect(copied.map((message) => message.messageId)).toEqual(Array.from({ length: LARGE_SOURCE }, (_, index) => `m-${index + 1}`));
    expect(stream.filter((event) => event.type === 'TicketMergedFrom')).toHaveLength(1);
    const last = stream.filter((event) => event.type === 'MergedMessagesCopied').at(-1)!;
    expect(last.metadata.actor).toMatchObject({ userId: agent.id, role: 'agent' });
    const page = (await server.request('GET', `/api/tickets/${target._id}/messages?limit=1`, { token: agent.token })).body.messages;
    expect(page[0].content).toMatch(new RegExp(`^${LARGE_SOURCE} `));
  }, 60_000);
});

describe('Merges whose target went away before taking the source (docs/tickets.md, merges under races)', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;

  beforeAll(async () => {
    // Long enough for the test to move the target away before the check runs.
    server = await startTestServer({ env: { MERGE_COMPLETION_DELAY_MS: '2500' } });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  const get = (token: string, url: string) => server.request('GET', `/api${url}`, { token });
  const resolve = async (ticketId: string) =>
    expect((await server.request('PUT', `/api/tickets/${ticketId}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);

  /** The customer's resolved tickets (`others`), then their open one with a message: the source whose merge is cut short. */
  async function cutShort(customer: Member, others: number) {
    const resolved = [];
    for (let index = 0; index < others; index++) {
      const ticket = await openTicket(server, customer, category, { title: `Earlier report ${index}` });
      await resolve(ticket._id);
      resolved.push(ticket);
    }
    const source = await openTicket(server, customer, category, { title: 'Same problem again' });
    expect(
      (await server.request('POST', `/api/tickets/${source._id}/messages`, { token: customer.token, body: { content: 'Still charged twice' } })).status,
    ).toBe(201);
    const { deps } = server;
    const target = resolved[0]!;
    await runTicketCommand(
      deps,
      source._id,
      {
        type: 'MergeInto',
        ticketId: source._id,
        actor: { userId: agent.id, role: 'agent' },
        target: (await loadTicket(deps, target._id)).state,
        now: new Date(),
      },
      { actor: { userId: agent.id, role: 'agent', platform: 'web' }, now: new Date() },
    );
    return { source, target, resolved };
  }

  /** Waits for the workers' check, then answers the source's history entry that took the merge back. */
  async function takenBack(sourceId: string) {
    const entry = await eventually(
      async () => {
        const history = await get(agent.token, `/tickets/${sourceId}/history`);
        return history.body.events.find((event: { type: string }) => event.type === 'TicketMergeIntoUndone');
      },
      { describe: 'the merge taken back', timeoutMs: 20_000 },
    );
    expect(entry.actor).toMatchObject({ userId: agent.id, role: 'agent' });
    return entry as { summary: string; revision: number };
  }

  const contents = async (token: string, ticketId: string) =>
    (await get(token, `/tickets/${ticketId}`)).body.messages.map((message: { content: string }) => message.content);

  it('when the target is merged into a third ticket meanwhile, then the workers take the merge back: the words stay in the source, nothing redirects to a redirect', async () => {
    const customer = await addMember(server, admin, 'customer', 'Dora');
    const { source, target, resolved } = await cutShort(customer, 2);
    const third = resolved[1]!;
    const onward = await server.request('POST', `/api/tickets/${target._id}/merge`, { token: agent.token, body: { target: third._id } });
    expect(onward.status).toBe(200);

    const entry = await takenBack(source._id);
    // The third ticket reopened with the target's messages and holds the customer's one open ticket: the source comes back resolved.
    expect(entry.summary).toBe(
      `Took back the merge into #${target.ticketId}, which was merged into #${third.ticketId} at the same time: the ticket is resolved`,
    );
    const now = await get(customer.token, `/tickets/${source._id}`);
    expect(now.body.ticket).toMatchObject({ status: 'resolved', mergedInto: null });
    expect(await contents(customer.token, source._id)).toContain('Still charged twice');
    expect((await get(agent.token, `/tickets/${target._id}`)).body.ticket.mergedFrom).toEqual([]);
    const open = await server.request('POST', `/api/tickets/${third._id}/messages`, { token: customer.token, body: { content: 'Any news?' } });
    expect(open.status).toBe(201);
    // Time travel shows the merge and its taking back, each at its revision.
    const before = await get(agent.token, `/tickets/${source._id}/at?revision=${entry.revision - 1}`);
    expect(before.body.ticket).toMatchObject({ status: 'closed', mergedInto: { _id: target._id } });
    const after = await get(agent.token, `/tickets/${source._id}/at?revision=${entry.revision}`);
    expect(after.body.ticket).toMatchObject({ status: 'resolved', mergedInto: null });
  }, 60_000);

  it('when the target is deleted meanwhile, then the workers take the merge back and the source is the customer’s open ticket again', async () => {
    const customer = await addMember(server, admin, 'customer', 'Eve');
    const { source, target } = await cutShort(customer, 1);
    expect((await server.request('DELETE', `/api/tickets/${target._id}`, { token: admin })).status).toBe(204);

    const entry = await takenBack(source._id);
    expect(entry.summary).toBe(`Took back the merge into #${target.ticketId}, which was deleted at the same time: the ticket is open`);
    expect((await get(customer.token, `/tickets/${source._id}`)).body.ticket).toMatchObject({ status: 'open', mergedInto: null });
    expect((await server.request('POST', `/api/tickets/${source._id}/messages`, { token: customer.token, body: { content: 'Hello again' } })).status).toBe(201);
    const another = await server.request('POST', '/api/tickets', { token: customer.token, body: { title: 'x', description: 'y', category } });
    expect(another).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: source._id } } });
    const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection], server.deps.readStore, {
      livePosition: () => server.deps.projections.position,
    });
    expect(check.ok).toBe(true);
  }, 60_000);
});
