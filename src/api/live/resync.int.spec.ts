import { addMember, openTicket } from '../../../test/support/desk';
import { EventStoreDbClientDouble } from '../../../test/support/eventStoreDbDouble';
import { type LiveClient, liveDesk } from '../../../test/support/liveClient';
import { postMessage } from '../../app/tickets/service';
import { EventStoreDbEventStore } from '../../platform/eventstore/eventstoredb';
import { RESYNC_MAX_EVENTS, type ResyncAnswer } from '#contract/live';

const WAIT_MS = 10_000;

describe('Live channel > resync after a reconnect', () => {
  const desk = liveDesk();
  const { connect } = desk;
  const resync = (client: LiveClient, after: unknown): Promise<ResyncAnswer> => client.socket.timeout(WAIT_MS).emitWithAck('resync', { after });
  const post = async (token: string, ticketId: string, body: Record<string, unknown>) =>
    (await desk.server.request('POST', `/api/tickets/${ticketId}/messages`, { token, body })).body.message as { _id: string };

  it('when a customer was offline while the agent wrote, edited, noted and changed the status, then a resync brings exactly what they may see, once', async () => {
    const owner = await addMember(desk.server, desk.admin, 'customer');
    const ticket = await openTicket(desk.server, owner, desk.category);
    const before = await connect(owner.token);
    await before.join(ticket._id);
    await post(desk.agent.token, ticket._id, { content: 'Seen while online' });
    const lastSeen = (await before.next('new_message', () => true, WAIT_MS)).position as number;
    expect(lastSeen).toEqual(expect.any(Number));
    before.socket.disconnect();

    const first = await post(desk.agent.token, ticket._id, { content: 'First while away' });
    await post(desk.agent.token, ticket._id, { content: 'Note: refund approved', isInternal: true });
    await post(desk.agent.token, ticket._id, { content: 'Second while away' });
    await desk.server.request('PUT', `/api/messages/${first._id}`, { token: desk.agent.token, body: { content: 'First while away (edited)' } });
    await desk.server.request('PUT', `/api/tickets/${ticket._id}`, { token: desk.agent.token, body: { status: 'pending_customer' } });

    const after = await connect(owner.token);
    await after.join(ticket._id);
    const answer = await resync(after, lastSeen);
    expect(answer).toMatchObject({ ok: true, complete: true, position: expect.any(Number) });
    expect(after.events('new_message').map((p) => p.message.content)).toEqual(['First while away (edited)', 'Second while away']);
    expect(after.events('message_edited').map((p) => p.message.content)).toEqual(['First while away (edited)']);
    expect(after.events('ticket_updated').map((p) => p.ticket.status)).toEqual(['pending_customer']);
    expect(JSON.stringify(after.received)).not.toContain('refund approved');
    expect(JSON.stringify(after.received)).not.toContain('Seen while online');
    const positions = after.received.filter((r) => r.payload?.position !== undefined).map((r) => r.payload.position as number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(Math.max(...positions)).toBeLessThanOrEqual((answer as { position: number }).position);
  });

  it('when staff resync, then they get internal notes too, and tickets opened meanwhile', async () => {
    const owner = await addMember(desk.server, desk.admin, 'customer');
    const ticket = await openTicket(desk.server, owner, desk.category);
    const staff = await connect(desk.agent.token);
    await staff.join(ticket._id);
    await post(owner.token, ticket._id, { content: 'Hello?' });
    const lastSeen = (await staff.next('new_message', () => true, WAIT_MS)).position as number;
    staff.socket.disconnect();

    await post(desk.agent.token, ticket._id, { content: 'Internal: check billing', isInternal: true });
    const other = await addMember(desk.server, desk.admin, 'customer');
    const opened = await openTicket(desk.server, other, desk.category, { title: 'Opened while away' });

    const back = await connect(desk.agent.token);
    await back.join(ticket._id);
    expect((await resync(back, lastSeen)).ok).toBe(true);
    expect(back.events('new_message').map((p) => p.message.content)).toEqual(['Internal: check billing']);
    expect(back.events('new_ticket').map((p) => p.ticket._id)).toContain(opened._id);
  });

  it("when a customer resyncs from the start of the log, then nothing of another customer's tickets reaches them", async () => {
    const owner = await addMember(desk.server, desk.admin, 'customer');
    const ticket = await openTicket(desk.server, owner, desk.category, { title: 'Private matter' });
    await post(owner.token, ticket._id, { content: 'my private words' });
    const stranger = await connect((await addMember(desk.server, desk.admin, 'customer')).token);
    expect(await stranger.join(ticket._id)).toEqual({ ok: false, error: 'Ticket not found' });
    const answer = await resync(stranger, 0);
    expect(answer.ok).toBe(true);
    expect(JSON.stringify(stranger.received)).not.toContain(ticket._id);
  });

  it('when a client is more than the replay limit behind, then it is told to refetch, with the position to resume from', async () => {
    const owner = await addMember(desk.server, desk.admin, 'customer');
    const ticket = await openTicket(desk.server, owner, desk.category);
    const client = await connect(owner.token);
    await client.join(ticket._id);
    const from = await desk.server.deps.events.headPosition();
    for (let i = 0; i <= RESYNC_MAX_EVENTS; i++) {
      await postMessage(
        desk.server.deps,
        ticket._id,
        { content: `message ${i}`, isInternal: false, attachments: [], platform: 'web' },
        { actor: { userId: owner.id, role: 'customer', platform: 'web' }, now: new Date() },
      );
    }
    const head = await desk.server.deps.events.headPosition();
    await desk.server.deps.projections.waitFor(head, 30_000);
    const answer = await resync(client, from);
    // The resume position is where the read models are when the answer is made: at least the last
    // message, and further if the desk appended more meanwhile (workers record deliveries too).
    expect(answer).toEqual({ ok: true, complete: false, position: expect.any(Number) });
    expect((answer as { position: number }).position).toBeGreaterThanOrEqual(head);
    expect((answer as { position: number }).position).toBeLessThanOrEqual(await desk.server.deps.events.headPosition());
  }, 60_000);

  it('when the resync payload is not a log position, then the answer says what is needed', async () => {
    const client = await connect(desk.agent.token);
    expect(await resync(client, 'yesterday')).toEqual({ ok: false, error: 'resync needs the last log position seen, as {after}' });
    expect(await resync(client, -1)).toEqual({ ok: false, error: 'resync needs the last log position seen, as {after}' });
  });
});

describe('Live channel > resync on the EventStoreDB adapter (client double)', () => {
  const desk = liveDesk({ events: () => new EventStoreDbEventStore(new EventStoreDbClientDouble().asClient()) });
  const resync = (client: LiveClient, after: unknown): Promise<ResyncAnswer> => client.socket.timeout(WAIT_MS).emitWithAck('resync', { after });

  it('when a client names a position the log never gave (inside a record, which the server refuses), then it is told so and to refetch, at once', async () => {
    const owner = await addMember(desk.server, desk.admin, 'customer');
    const ticket = await openTicket(desk.server, owner, desk.category);
    const client = await desk.connect(owner.token);
    await client.join(ticket._id);
    await desk.server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: desk.agent.token, body: { content: 'Hello' } });
    const position = (await client.next('new_message', () => true, WAIT_MS)).position as number;
    expect(await resync(client, position)).toMatchObject({ ok: true, complete: true });
    const started = Date.now();
    expect(await resync(client, position - 1)).toEqual({ ok: false, error: expect.stringContaining(`could not be read after position ${position - 1}`) });
    expect(Date.now() - started).toBeLessThan(WAIT_MS / 2);
  });
});
