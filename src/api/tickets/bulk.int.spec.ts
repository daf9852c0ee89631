import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startSmtpSink, subjectOf } from '../../../test/support/smtpSink';

/** docs/bulk.md: one action on many tickets, each ticket decided as its single route decides it. */
describe('Bulk changes (POST /api/tickets/bulk)', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;
  let category: string;
  let ada: Member;
  let bo: Member;

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url } });
    admin = await server.login();
    category = await addCategory(server, admin, { name: 'Billing' });
    [ada, bo] = await Promise.all([addMember(server, admin, 'agent', 'Ada'), addMember(server, admin, 'agent', 'Bo')]);
  });

  afterAll(async () => {
    await server.stop();
    await sink.close();
  });

  const bulk = (token: string, body: unknown, headers: Record<string, string> = {}) => server.request('POST', '/api/tickets/bulk', { token, body, headers });

  /** `count` customers with one open ticket each, and their creation mails already received. */
  async function customersWithTickets(count: number, title: string) {
    const customers: Member[] = [];
    for (let batch = 0; batch < count; batch += 10)
      customers.push(...(await Promise.all(Array.from({ length: Math.min(10, count - batch) }, () => addMember(server, admin, 'customer', 'Cy')))));
    const tickets = await Promise.all(customers.map((customer) => openTicket(server, customer, category, { title })));
    await eventually(() => customers.every((customer) => sink.mailsTo(customer.email).length === 1), { describe: 'the creation mails', timeoutMs: 60_000 });
    return { customers, tickets };
  }

  /** Waits until every customer has `expected` mails, then a little longer, so that a duplicate would have come. */
  async function mailsSettle(customers: Member[], expected: number) {
    await eventually(() => customers.every((customer) => sink.mailsTo(customer.email).length >= expected), { describe: 'the notices', timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return customers.map((customer) =>
      sink
        .mailsTo(customer.email)
        .slice(1)
        .map((mail) => subjectOf(mail.raw)),
    );
  }

  it('when staff close 50 tickets at once, then each is closed by its own events naming the change, and each customer gets exactly one notice', async () => {
    const { customers, tickets } = await customersWithTickets(50, 'Invoice twice');
    const closed = await bulk(ada.token, { tickets: tickets.map((ticket) => ticket._id), action: { type: 'status', status: 'closed' } });
    expect(closed.status).toBe(200);
    expect(closed.body.bulk).toMatchObject({ total: 50, applied: 50, unchanged: 0, failed: 0, action: { type: 'status', status: 'closed' } });
    expect(closed.body.bulk.tickets.map((result: { ticketId: number }) => result.ticketId)).toEqual(tickets.map((ticket) => ticket.ticketId));

    const notices = await mailsSettle(customers, 2);
    notices.forEach((subjects, index) => expect(subjects).toEqual([expect.stringMatching(new RegExp(`Ticket #${tickets[index]!.ticketId} is now closed$`))]));

    const history = (await server.request('GET', `/api/tickets/${tickets[7]!._id}/history`, { token: admin })).body.events;
    expect(history.at(-1)).toMatchObject({
      type: 'TicketStatusChanged',
      actor: { userId: ada.id },
      bulk: { id: closed.body.bulk._id, count: 50 },
      summary: expect.stringMatching(/ in a bulk change of 50 tickets$/),
    });
    // The customer's open-ticket claim went with the close, as with a single close: they can open a new one.
    await openTicket(server, customers[7]!, category, { title: 'Another question' });
  }, 240_000);

  it('when a macro with a reply and a status is applied in bulk, then each customer hears once: the reply', async () => {
    const { customers, tickets } = await customersWithTickets(4, 'Refund please');
    const macro = (
      await server.request('POST', '/api/macros', {
        token: ada.token,
        body: {
          name: 'Asked for the IBAN',
          shortcode: 'iban',
          reply: 'Hi {{customer.firstName}}, which IBAN?',
          actions: [{ type: 'status', status: 'pending_customer' }],
        },
      })
    ).body.macro;
    const applied = await bulk(ada.token, { tickets: tickets.map((ticket) => ticket._id), action: { type: 'macro', macroId: macro._id } });
    expect(applied.body.bulk).toMatchObject({ total: 4, applied: 4, failed: 0 });
    const notices = await mailsSettle(customers, 2);
    notices.forEach((subjects, index) => expect(subjects).toEqual([expect.stringMatching(new RegExp(`New reply on ticket #${tickets[index]!.ticketId}`))]));
    const ticket = (await server.request('GET', `/api/tickets/${tickets[0]!._id}`, { token: ada.token })).body.ticket;
    expect(ticket.status).toBe('pending_customer');
  });

  it('when some tickets are held by another agent, merged or unknown, then those fail with the single route’s reasons and the rest are applied', async () => {
    const { tickets } = await customersWithTickets(6, 'Card declined');
    const [free, heldA, heldB, alsoFree, mergedAway, target] = tickets as [(typeof tickets)[number], ...Array<(typeof tickets)[number]>];
    for (const held of [heldA!, heldB!])
      expect((await server.request('POST', `/api/tickets/${held._id}/assign`, { token: bo.token, body: { agentId: bo.id } })).status).toBe(200);
    const assigned = await bulk(ada.token, {
      tickets: [free._id, heldA!._id, 'no-such-ticket', heldB!._id, alsoFree!._id],
      action: { type: 'assign', agentId: 'me' },
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body.bulk).toMatchObject({ total: 5, applied: 2, failed: 3 });
    expect(assigned.body.bulk.tickets).toEqual([
      { _id: free._id, ticketId: free.ticketId, outcome: 'applied' },
      {
        _id: heldA!._id,
        ticketId: heldA!.ticketId,
        outcome: 'failed',
        status: 409,
        code: 'TICKET_ALREADY_ASSIGNED',
        error: expect.stringMatching(/already assigned to another agent/),
      },
      { _id: 'no-such-ticket', ticketId: null, outcome: 'failed', status: 404, code: 'NOT_FOUND', error: 'Ticket not found' },
      { _id: heldB!._id, ticketId: heldB!.ticketId, outcome: 'failed', status: 409, code: 'TICKET_ALREADY_ASSIGNED', error: expect.any(String) },
      { _id: alsoFree!._id, ticketId: alsoFree!.ticketId, outcome: 'applied' },
    ]);
    const agentOf = async (id: string) => (await server.request('GET', `/api/tickets/${id}`, { token: admin })).body.ticket.assignedAgent?._id;
    expect(await Promise.all([free, heldA!, heldB!, alsoFree!].map((ticket) => agentOf(ticket._id)))).toEqual([ada.id, bo.id, bo.id, ada.id]);

    // mergedAway and target belong to different customers: an admin merges across customers.
    expect((await server.request('POST', `/api/tickets/${mergedAway!._id}/merge`, { token: admin, body: { target: target!._id } })).status).toBe(200);
    const priority = await bulk(ada.token, { tickets: [mergedAway!._id, target!._id], action: { type: 'status', status: 'pending_customer' } });
    expect(priority.body.bulk.tickets).toEqual([
      {
        _id: mergedAway!._id,
        ticketId: mergedAway!.ticketId,
        outcome: 'failed',
        status: 409,
        code: 'TICKET_MERGED',
        error: `This ticket is merged into #${target!.ticketId}; continue there`,
      },
      { _id: target!._id, ticketId: target!.ticketId, outcome: 'applied' },
    ]);
  });

  it('when the same request races itself with one Idempotency-Key, then it is applied once and every answer is the same', async () => {
    const { tickets } = await customersWithTickets(5, 'Refund twice');
    const macro = (
      await server.request('POST', '/api/macros', {
        token: ada.token,
        body: { name: 'Sorry', shortcode: 'sorry', reply: 'Sorry for the wait, {{customer.firstName}}.', actions: [] },
      })
    ).body.macro;
    const body = { tickets: tickets.map((ticket) => ticket._id), action: { type: 'macro', macroId: macro._id } };
    const answers = await Promise.all(Array.from({ length: 4 }, () => bulk(ada.token, body, { 'Idempotency-Key': 'bulk-sorry-1' })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body)))).toEqual(new Set([JSON.stringify(answers[0]!.body)]));
    expect(answers[0]!.body.bulk).toMatchObject({ total: 5, applied: 5 });
    for (const ticket of tickets) {
      const { messages } = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: ada.token })).body;
      expect(messages.filter((message: { content?: string }) => message.content === 'Sorry for the wait, Cy.')).toHaveLength(1);
    }
    const retried = await bulk(ada.token, body, { 'Idempotency-Key': 'bulk-sorry-1' });
    expect(retried.body).toEqual(answers[0]!.body);
    expect(await bulk(ada.token, { ...body, action: { type: 'priority', priority: 'low' } }, { 'Idempotency-Key': 'bulk-sorry-1' })).toMatchObject({
      status: 422,
      body: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
  });

  it('when the input is wrong or the caller a customer, then the error says so and nothing changes', async () => {
    const customer = await addMember(server, admin, 'customer', 'Cy');
    const ticket = await openTicket(server, customer, category, { title: 'Wrong input' });
    expect(await bulk(ada.token, { tickets: [ticket._id], action: { type: 'explode' } })).toMatchObject({ status: 400 });
    expect(await bulk(ada.token, { tickets: [], action: { type: 'unassign' } })).toMatchObject({ status: 400, body: { error: 'Choose at least one ticket' } });
    expect(await bulk(ada.token, { tickets: [ticket._id, ticket._id], action: { type: 'unassign' } })).toMatchObject({
      status: 400,
      body: { error: 'Each ticket may be listed once' },
    });
    expect(await bulk(ada.token, { tickets: Array.from({ length: 501 }, (_, i) => `t${i}`), action: { type: 'unassign' } })).toMatchObject({
      status: 400,
      body: { error: 'A bulk change takes at most 500 tickets' },
    });
    expect(await bulk(ada.token, { action: { type: 'unassign' } })).toMatchObject({ status: 400, body: { error: 'Send either tickets or filter' } });
    expect((await bulk(customer.token, { tickets: [ticket._id], action: { type: 'status', status: 'closed' } })).status).toBe(403);
    expect(await bulk(ada.token, { filter: { tag: 'nothing-has-this' }, action: { type: 'unassign' } })).toMatchObject({
      status: 422,
      body: { code: 'BULK_NO_TICKETS' },
    });
  });

  it('when "all matching" a filter is asked, then the tickets the list would show are changed', async () => {
    const { tickets } = await customersWithTickets(3, 'Matching');
    for (const ticket of tickets) await server.request('POST', `/api/tickets/${ticket._id}/tags`, { token: ada.token, body: { tag: 'wave-3' } });
    const tagged = await bulk(ada.token, { filter: { tag: 'wave-3', status: 'open' }, action: { type: 'tags', add: ['vip'], remove: ['wave-3'] } });
    expect(tagged.body.bulk).toMatchObject({ total: 3, applied: 3, failed: 0 });
    const listed = (await server.request('GET', '/api/tickets?tag=vip', { token: ada.token })).body.tickets;
    expect(listed.map((ticket: { _id: string }) => ticket._id).sort()).toEqual(tickets.map((ticket) => ticket._id).sort());
    expect(listed.every((ticket: { tags: string[] }) => ticket.tags.join() === 'vip')).toBe(true);
  });
});
