import { EventStoreDbClientDouble } from '../../../test/support/eventStoreDbDouble';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { runTicketCommand } from '../../app/tickets/service';
import { ticketStream } from '../../domain/ticket/ticket';
import { EventStoreDbEventStore } from '../../platform/eventstore/eventstoredb';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { searchProjection } from '../../projections/search';
import { ticketsProjection } from '../../projections/tickets';

/** Far more than one event of the log takes: 5,000 messages of about 400 bytes each as copied (over 2 MB). */
const SOURCE_MESSAGES = 5000;
const MIB = 1024 * 1024;
/** Ids as long as a client's own may be, so that the unmerge's list of them takes more than one event too. */
const messageId = (index: number) => `message-${index}-${'0'.repeat(52)}`;
const words = (index: number) => `Message ${index}: the invoice was charged twice, ${'and it still is '.repeat(10)}`;

const stores = [
  ['the EventStoreDB double (1 MiB per append)', () => new EventStoreDbClientDouble()],
  ['the SQLite event store', () => null],
] as const;

describe.each(stores)('A merge of a 5,000-message ticket on %s (docs/tickets.md, merging)', (_name, makeClient) => {
  let server: TestServer;
  let client: EventStoreDbClientDouble | null;
  let admin: string;
  let agent: Member;
  let customer: Member;
  let category: string;

  beforeAll(async () => {
    client = makeClient();
    server = await startTestServer(client ? { events: new EventStoreDbEventStore(client.asClient()) } : {});
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    customer = await addMember(server, admin, 'customer', 'Carol');
    category = await addCategory(server, admin);
  }, 60_000);
  afterAll(() => server.stop());

  const get = (url: string) => server.request('GET', `/api${url}`, { token: agent.token });
  /**
   * A change of thousands of messages is done, and read back unless the read models took longer than the route
   * waits (5 s, on a loaded machine): then it answers so, with the log's position. The checks read once the models hold it.
   */
  const doneAndProjected = async (answer: { status: number; body: Record<string, unknown> }) => {
    if (answer.status === 202) expect(answer.body).toMatchObject({ code: 'ACCEPTED_PENDING', position: expect.any(Number) });
    else expect(answer.status).toBe(200);
    expect(await server.deps.projections.waitFor(await server.deps.events.headPosition(), 60_000)).toBe(true);
  };

  it('when merged, then the target holds every message, history, time travel and a rebuild agree, and an unmerge gives them all back', async () => {
    const target = await openTicket(server, customer, category, { title: 'First report' });
    expect((await server.request('PUT', `/api/tickets/${target._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
    const source = await openTicket(server, customer, category, { title: 'Same problem, long thread' });
    const now = new Date();
    for (let index = 1; index <= SOURCE_MESSAGES; index++) {
      const sender = index % 2 === 0 ? { userId: agent.id, role: 'agent' as const } : { userId: customer.id, role: 'customer' as const };
      await runTicketCommand(
        server.deps,
        source._id,
        {
          type: 'PostMessage',
          ticketId: source._id,
          messageId: messageId(index),
          actor: sender,
          content: words(index),
          isInternal: index % 10 === 0,
          platform: 'web',
          attachments: [],
          now,
        },
        { actor: { ...sender, platform: 'web' }, now },
      );
    }

    const merged = await server.request('POST', `/api/tickets/${source._id}/merge`, { token: agent.token, body: { target: target._id } });
    await doneAndProjected(merged);
    if (client) expect(Math.max(...client.appendSizes)).toBeLessThanOrEqual(MIB);
    // On SQLite too, every event of the target stays within what the production log takes.
    const written = await server.deps.events.readStream(ticketStream(target._id));
    expect(Math.max(...written.map((event) => Buffer.byteLength(JSON.stringify(event.data))))).toBeLessThan(MIB / 2);

    const ticket = (await get(`/tickets/${target._id}`)).body.ticket;
    expect(ticket).toMatchObject({ status: 'open', messageCount: SOURCE_MESSAGES, mergedFrom: [{ _id: source._id }] });
    const last = (await get(`/tickets/${target._id}/messages?limit=100`)).body.messages.at(-1);
    expect(last).toMatchObject({ content: words(SOURCE_MESSAGES), mergedFrom: { _id: source._id } });
    // The customer sees their words and staff's replies, never the notes.
    const theirs = await server.request('GET', `/api/tickets/${target._id}`, { token: customer.token });
    expect(theirs.body.ticket.messageCount).toBe(SOURCE_MESSAGES - SOURCE_MESSAGES / 10);

    const history = (await get(`/tickets/${target._id}/history`)).body;
    expect(history.integrity.ok).toBe(true);
    const summaries = history.events.map((entry: { summary: string }) => entry.summary);
    expect(summaries).toContain(`Merged #${source.ticketId} into this ticket with its ${SOURCE_MESSAGES} messages, reopening it`);
    const at = (await get(`/tickets/${target._id}/at?revision=${history.events.length - 1}`)).body;
    expect(at.ticket).toMatchObject({ status: 'open', messageCount: SOURCE_MESSAGES });
    expect(at.messages).toHaveLength(SOURCE_MESSAGES);
    const mergedAt = history.events.findIndex((entry: { type: string }) => entry.type === 'TicketMergedFrom');
    expect((await get(`/tickets/${target._id}/at?revision=${mergedAt - 1}`)).body.messages).toHaveLength(0);

    const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection, searchProjection], server.deps.readStore, {
      livePosition: () => server.deps.projections.position,
    });
    expect(check.ok).toBe(true);

    const undone = await server.request('POST', `/api/tickets/${source._id}/unmerge`, { token: agent.token });
    await doneAndProjected(undone);
    expect((await get(`/tickets/${target._id}`)).body.ticket).toMatchObject({ status: 'resolved', messageCount: 0, mergedFrom: [] });
    expect((await get(`/tickets/${source._id}`)).body.ticket).toMatchObject({ status: 'open', messageCount: SOURCE_MESSAGES, mergedInto: null });
    const stream = await server.deps.events.readStream(ticketStream(target._id));
    expect(stream.filter((event) => event.type === 'TicketMergeFromUndone')).toHaveLength(1);
    expect(stream.filter((event) => event.type === 'MergedMessagesRemoved').length).toBeGreaterThan(0);
    if (client) expect(Math.max(...client.appendSizes)).toBeLessThanOrEqual(MIB);
    expect(Math.max(...stream.map((event) => Buffer.byteLength(JSON.stringify(event.data))))).toBeLessThan(MIB / 2);
    const rebuilt = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection, searchProjection], server.deps.readStore, {
      livePosition: () => server.deps.projections.position,
    });
    expect(rebuilt.ok).toBe(true);
  }, 240_000);
});
