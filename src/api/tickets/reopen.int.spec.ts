import { type Member, addMember, openTicket } from '../../../test/support/desk';
import { liveDesk } from '../../../test/support/liveClient';
import { TICKET_CLOSED_MESSAGE } from '#contract/tickets';

const WAIT_MS = 5000;
const AROUND_THE_CLOCK = {
  id: 'standard',
  name: 'Standard',
  categoryId: null,
  calendarId: null,
  targets: Object.fromEntries(['low', 'medium', 'high', 'urgent'].map((priority) => [priority, { firstResponse: 60, nextResponse: 120, resolution: 480 }])),
};
const ALL_WEEK = [{ start: '00:00', end: '24:00' }];
const SLA_SETTINGS = {
  calendars: [{ id: 'always', name: 'Always', timeZone: 'UTC', week: Array.from({ length: 7 }, () => ALL_WEEK), holidays: [] }],
  defaultCalendarId: 'always',
  policies: [AROUND_THE_CLOCK],
  pauseStatuses: ['pending_customer'],
  warnPercent: 80,
};
const OPEN_VIEW = 'status=open,in_progress,pending_customer';

describe('A customer’s reply brings the ticket back to the desk (issue 50, docs/tickets.md, reopening)', () => {
  const desk = liveDesk();
  const server = () => desk.server;
  beforeAll(async () => {
    expect((await server().request('PUT', '/api/sla/settings', { token: desk.admin, body: SLA_SETTINGS })).status).toBe(200);
  });

  const request = (method: string, url: string, token: string, body?: unknown) => server().request(method, `/api${url}`, { token, ...(body ? { body } : {}) });
  const say = (member: Member, ticketId: string, content: string) => request('POST', `/tickets/${ticketId}/messages`, member.token, { content });
  const setStatus = async (ticketId: string, status: string) =>
    expect((await request('PUT', `/tickets/${ticketId}`, desk.agent.token, { status })).status).toBe(200);
  const ticketOf = async (ticketId: string) => (await request('GET', `/tickets/${ticketId}`, desk.agent.token)).body;
  const listed = async (query: string) =>
    ((await request('GET', `/tickets?${query}&limit=1000`, desk.agent.token)).body.tickets as Array<{ _id: string }>).map((row) => row._id);
  const stats = async () => (await request('GET', '/tickets/stats', desk.agent.token)).body;
  const slaOf = async (ticketId: string) => (await request('GET', `/tickets/${ticketId}/sla`, desk.agent.token)).body.sla;

  /** A ticket the agent took, answered and left waiting on the customer. */
  async function waitingOnCustomer(name: string) {
    const customer = await addMember(server(), desk.admin, 'customer', name);
    const ticket = await openTicket(server(), customer, desk.category, { title: `${name}'s printer` });
    expect((await request('POST', `/tickets/${ticket._id}/assign`, desk.agent.token, { agentId: desk.agent.id })).status).toBeLessThan(300);
    expect((await say(desk.agent, ticket._id, 'Which model is it?')).status).toBe(201);
    await setStatus(ticket._id, 'pending_customer');
    return { customer, ticket };
  }

  it('when the customer replies on a ticket waiting on them, then it is open with its clock running, in the Open count and the assignee’s “waiting on us”, and the assignee is told', async () => {
    const { customer, ticket } = await waitingOnCustomer('Pia');
    expect(await slaOf(ticket._id)).toMatchObject({ paused: true, nextDueAt: null });
    const openBefore = (await stats()).open;
    const agentTab = await desk.connect(desk.agent.token);

    const reply = await say(customer, ticket._id, 'It is an HP LaserJet 1020');
    expect(reply.status).toBe(201);

    const { ticket: now, messages } = await ticketOf(ticket._id);
    expect(now).toMatchObject({ status: 'open', waitingSince: reply.body.message.createdAt });
    const sla = await slaOf(ticket._id);
    expect(sla).toMatchObject({ paused: false, nextDueAt: expect.any(String) });
    expect(sla.targets.find((target: { target: string }) => target.target === 'resolution')).toMatchObject({ state: 'running', dueAt: expect.any(String) });
    expect(sla.targets.find((target: { target: string }) => target.target === 'nextResponse')).toMatchObject({ state: 'running', dueAt: expect.any(String) });
    expect((await stats()).open).toBe(openBefore + 1);
    expect(await listed('status=open')).toContain(ticket._id);
    expect(await listed(`assigned=me&waiting=true&${OPEN_VIEW}`)).toContain(ticket._id);

    const pushed = await agentTab.next('ticket_updated', (payload) => payload.ticket._id === ticket._id, WAIT_MS);
    expect(pushed.change).toEqual({ kind: 'status', from: 'pending_customer', to: 'open', by: customer.id, reason: 'customer-replied' });
    // At the same moment, the conversation shows the message first: the line says what it did.
    expect(messages.map((message: { content: string }) => message.content).slice(-2)).toEqual([
      'It is an HP LaserJet 1020',
      'Status changed to open: the customer replied',
    ]);
    // The customer reads the same line about their own message, in words for them.
    const seenByCustomer = (await request('GET', `/tickets/${ticket._id}`, customer.token)).body.messages;
    expect(seenByCustomer.map((message: { content: string }) => message.content).slice(-2)).toEqual([
      'It is an HP LaserJet 1020',
      'You replied, so the ticket is open again',
    ]);
    const { events } = (await request('GET', `/tickets/${ticket._id}/history`, desk.agent.token)).body;
    const [reopened, posted] = events.slice(-2);
    expect(reopened).toMatchObject({
      type: 'TicketStatusChanged',
      actor: { userId: customer.id, role: 'customer' },
      data: { from: 'pending_customer', to: 'open', reason: 'customer-replied' },
      summary: 'Changed the status from waiting for customer response to open by replying',
    });
    expect(posted).toMatchObject({ type: 'MessagePosted', revision: reopened.revision + 1, at: reopened.at });
  });

  it('when the customer replies on a resolved ticket, then it is open again and counted; a staff reply leaves it resolved', async () => {
    const { customer, ticket } = await waitingOnCustomer('Rui');
    await setStatus(ticket._id, 'resolved');
    expect((await say(desk.agent, ticket._id, 'Glad it works')).status).toBe(201);
    expect((await ticketOf(ticket._id)).ticket.status).toBe('resolved');

    expect((await say(customer, ticket._id, 'Sorry, it jams again')).status).toBe(201);
    expect((await ticketOf(ticket._id)).ticket).toMatchObject({ status: 'open', waitingSince: expect.any(String) });
    expect(await listed(OPEN_VIEW)).toContain(ticket._id);
    expect(await slaOf(ticket._id)).toMatchObject({ paused: false, nextDueAt: expect.any(String) });
    // It holds its customer's one open ticket again.
    const another = await request('POST', '/tickets', customer.token, { title: 'Another', description: 'More', category: desk.category });
    expect(another).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: ticket._id } } });
  });

  it('when the customer replies on a resolved ticket while another of theirs is open, then it is refused naming that one and nothing is written', async () => {
    const customer = await addMember(server(), desk.admin, 'customer', 'Sol');
    const old = await openTicket(server(), customer, desk.category, { title: 'Old problem' });
    await setStatus(old._id, 'resolved');
    const current = await openTicket(server(), customer, desk.category, { title: 'Current problem' });
    const revisionBefore = (await request('GET', `/tickets/${old._id}/history`, desk.agent.token)).body.events.length;

    const refused = await say(customer, old._id, 'About the old one');
    expect(refused).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: current._id, ticketId: current.ticketId } } });
    expect((await request('GET', `/tickets/${old._id}/history`, desk.agent.token)).body.events).toHaveLength(revisionBefore);
    expect((await ticketOf(old._id)).ticket.status).toBe('resolved');

    // The refusal let nothing go: the current ticket still holds the claim, and once it is resolved the old one reopens.
    expect((await request('POST', '/tickets', customer.token, { title: 'Third', description: 'x', category: desk.category })).status).toBe(409);
    await setStatus(current._id, 'resolved');
    expect((await say(customer, old._id, 'About the old one')).status).toBe(201);
    expect((await ticketOf(old._id)).ticket.status).toBe('open');
  });

  it('when the customer writes on a closed ticket, then it is refused saying to open a new ticket; staff may still write', async () => {
    const { customer, ticket } = await waitingOnCustomer('Tom');
    await setStatus(ticket._id, 'closed');
    expect(await say(customer, ticket._id, 'Hello?')).toMatchObject({ status: 403, body: { code: 'TICKET_CLOSED', error: TICKET_CLOSED_MESSAGE } });
    expect((await ticketOf(ticket._id)).ticket.status).toBe('closed');
    expect((await say(desk.agent, ticket._id, 'Closing remark')).status).toBe(201);
    expect((await ticketOf(ticket._id)).ticket.status).toBe('closed');
  });
});

describe('A split and the question it leaves behind (issue 50)', () => {
  const desk = liveDesk();
  const server = () => desk.server;
  const request = (method: string, url: string, token: string, body?: unknown) => server().request(method, `/api${url}`, { token, ...(body ? { body } : {}) });
  const say = async (member: Member, ticketId: string, content: string) =>
    (await request('POST', `/tickets/${ticketId}/messages`, member.token, { content })).body.message;

  it('when the question left behind was never answered, then the split is refused and nothing is written; once answered, it splits and resolves', async () => {
    const customer = await addMember(server(), desk.admin, 'customer', 'Uma');
    const ticket = await openTicket(server(), customer, desk.category, { title: 'Card declined' });
    const second = await say(customer, ticket._id, 'Also, my invoice has the wrong address');
    const before = (await request('GET', `/tickets/${ticket._id}/history`, desk.agent.token)).body.events.length;

    const refused = await request('POST', `/tickets/${ticket._id}/split`, desk.agent.token, {
      messageId: second._id,
      withFollowing: false,
      title: 'Invoice address',
    });
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'UNANSWERED_QUESTION', error: expect.stringContaining('answer it first, or move it to the new ticket too') },
    });
    expect((await request('GET', `/tickets/${ticket._id}/history`, desk.agent.token)).body.events).toHaveLength(before);
    expect((await request('GET', `/tickets/${ticket._id}`, desk.agent.token)).body.ticket.status).toBe('open');
    expect((await request('GET', `/tickets/${ticket._id}/satisfaction`, customer.token)).body.satisfaction).toMatchObject({ episode: null });

    await say(desk.agent, ticket._id, 'Your card was declined by the bank; please call them.');
    const split = await request('POST', `/tickets/${ticket._id}/split`, desk.agent.token, {
      messageId: second._id,
      withFollowing: false,
      title: 'Invoice address',
    });
    expect(split.status).toBe(201);
    expect((await request('GET', `/tickets/${ticket._id}`, desk.agent.token)).body.ticket.status).toBe('resolved');
  });
});
