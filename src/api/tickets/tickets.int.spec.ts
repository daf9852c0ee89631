import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { TICKET_CLOSED_MESSAGE } from '#contract/tickets';

describe('Tickets over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let otherAgent: Member;
  let category: string;
  const now = { value: new Date('2026-11-21T09:00:00.000Z') };

  beforeAll(async () => {
    server = await startTestServer({ clock: () => now.value });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    otherAgent = await addMember(server, admin, 'agent', 'Bob');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  const customer = () => addMember(server, admin, 'customer', 'Carol');

  describe('when a customer opens a ticket', () => {
    it('then it answers 201 with the ticket of docs/contract.md, readable at once, numbered from 1001 upwards', async () => {
      const carol = await customer();
      const created = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: '  Printer on fire ', description: 'Smoke everywhere', category },
      });
      expect(created.status).toBe(201);
      expect(created.body.ticket).toMatchObject({
        title: 'Printer on fire',
        description: 'Smoke everywhere',
        priority: 'medium',
        status: 'open',
        category: { _id: category },
        customer: { _id: carol.id, firstName: 'Carol' },
        assignedAgent: null,
        platform: 'web',
        messageCount: 0,
        resolvedAt: null,
        closedAt: null,
      });
      expect(created.body.ticket.ticketId).toBeGreaterThanOrEqual(1001);
      const read = await server.request('GET', `/api/tickets/${created.body.ticket._id}`, { token: carol.token });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ ticket: { _id: created.body.ticket._id }, messages: [], unreadCount: 0 });
      const byNumber = await server.request('GET', `/api/tickets/${created.body.ticket.ticketId}`, { token: carol.token });
      expect(byNumber.body.ticket._id).toBe(created.body.ticket._id);
    });

    it('then bad input is refused with the wording of docs/product.md and nothing is stored', async () => {
      const carol = await customer();
      const before = await server.deps.events.headPosition();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ title: '', description: 'd', category }, 'Title is required'],
        [{ title: 'x'.repeat(201), description: 'd', category }, 'Title must be at most 200 characters'],
        [{ title: 't', description: '', category }, 'Description is required'],
        [{ title: 't', description: 'x'.repeat(2001), category }, 'Description must be at most 2000 characters'],
        [{ title: 't', description: 'd' }, 'Category is required'],
        [{ title: 't', description: 'd', category: 'no-such-category' }, 'Please choose an active category'],
        [{ title: 't', description: 'd', category, priority: 'asap' }, 'Priority must be low, medium, high or urgent'],
      ];
      for (const [body, error] of cases) {
        const answer = await server.request('POST', '/api/tickets', { token: carol.token, body });
        expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 400, error });
      }
      expect(await server.deps.events.headPosition()).toBe(before);
    });

    it('then an inactive category is refused', async () => {
      const inactive = await addCategory(server, admin, { isActive: false });
      const answer = await server.request('POST', '/api/tickets', {
        token: (await customer()).token,
        body: { title: 't', description: 'd', category: inactive },
      });
      expect(answer).toMatchObject({ status: 400, body: { error: 'Please choose an active category' } });
    });

    it('then custom-field answers are checked against the category and kept with their prompts', async () => {
      const withFields = await addCategory(server, admin, {
        customFields: [
          { fieldName: 'order', fieldType: 'text', prompt: 'Order number', validation: { pattern: '^[0-9]+$' } },
          { fieldName: 'amount', fieldType: 'number', prompt: 'Amount', required: false, validation: { min: 1 } },
        ],
      });
      const carol = await customer();
      const missing = await server.request('POST', '/api/tickets', { token: carol.token, body: { title: 't', description: 'd', category: withFields } });
      expect(missing).toMatchObject({ status: 400, body: { error: 'Order number is required' } });
      const wrong = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 't', description: 'd', category: withFields, customFieldValues: { order: 'abc' } },
      });
      expect(wrong).toMatchObject({ status: 400, body: { error: 'Order number does not have the expected format' } });
      const ticket = await openTicket(server, carol, withFields, {
        customFieldValues: [
          { fieldName: 'order', value: '42' },
          { fieldName: 'amount', value: 9.5 },
        ],
      });
      expect(ticket).toMatchObject({
        customFieldValues: [
          { fieldName: 'order', fieldPrompt: 'Order number', value: '42' },
          { fieldName: 'amount', fieldPrompt: 'Amount', value: 9.5 },
        ],
      });
    });
  });

  describe('when a customer already has an open ticket', () => {
    it('then a second one is refused with 409 naming the open ticket, and allowed again once it is resolved', async () => {
      const carol = await customer();
      const first = await openTicket(server, carol, category, { title: 'First' });
      const second = await server.request('POST', '/api/tickets', { token: carol.token, body: { title: 'Second', description: 'd', category } });
      expect(second).toMatchObject({
        status: 409,
        body: {
          error: 'Please resolve your existing ticket before creating a new one',
          code: 'OPEN_TICKET_EXISTS',
          existingTicket: { _id: first._id, ticketId: first.ticketId, title: 'First', status: 'open' },
        },
      });
      await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'pending_customer' } });
      expect((await server.request('POST', '/api/tickets', { token: carol.token, body: { title: 'Third', description: 'd', category } })).status).toBe(409);
      await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'resolved' } });
      const next = await openTicket(server, carol, category, { title: 'Next' });
      expect(next.ticketId).toBeGreaterThan(first.ticketId);
      const reopen = await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'open' } });
      expect(reopen).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: next._id } } });
      await server.request('DELETE', `/api/tickets/${next._id}`, { token: admin });
      const reopened = await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'open' } });
      expect(reopened).toMatchObject({ status: 200, body: { ticket: { status: 'open' } } });
    });

    it('then 20 concurrent creations give exactly one 201 and nineteen 409s naming it', async () => {
      const carol = await customer();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          server.request('POST', '/api/tickets', { token: carol.token, body: { title: `Race ${i}`, description: 'd', category } }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status === 409);
      expect(created).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const answer of refused)
        expect(answer.body.existingTicket).toMatchObject({ _id: created[0]!.body.ticket._id, ticketId: created[0]!.body.ticket.ticketId });
      const mine = await server.request('GET', '/api/tickets', { token: carol.token });
      expect(mine.body.pagination.total).toBe(1);
    });
  });

  it('when many customers open tickets at once, then every display number is unique and numbers increase', async () => {
    const customers = await Promise.all(Array.from({ length: 12 }, () => customer()));
    const tickets = await Promise.all(customers.map((member) => openTicket(server, member, category)));
    const numbers = tickets.map((t) => t.ticketId);
    expect(new Set(numbers).size).toBe(numbers.length);
    const later = await openTicket(server, await customer(), category);
    expect(later.ticketId).toBeGreaterThan(Math.max(...numbers));
  });

  describe('when tickets are listed', () => {
    let dana: Member;
    let urgent: { _id: string; ticketId: number };
    beforeAll(async () => {
      dana = await customer();
      urgent = await openTicket(server, dana, category, { title: 'Urgent outage in Zurich', priority: 'urgent' });
    });

    it('then a customer sees only their own', async () => {
      const list = await server.request('GET', '/api/tickets?limit=1000', { token: dana.token });
      expect(list.body.tickets.map((t: { _id: string }) => t._id)).toEqual([urgent._id]);
      expect(list.body.pagination).toEqual({ page: 1, limit: 1000, total: 1, pages: 1 });
    });

    it('then staff filter by status, priority, assignment, category and text, and sort and page', async () => {
      const get = async (query: string) => (await server.request('GET', `/api/tickets?${query}`, { token: agent.token })).body;
      expect((await get('q=zurich')).tickets.map((t: { _id: string }) => t._id)).toEqual([urgent._id]);
      expect((await get(`q=%23${urgent.ticketId}`)).tickets.map((t: { _id: string }) => t._id)).toEqual([urgent._id]);
      expect((await get('q=.*')).tickets).toEqual([]);
      expect((await get('priority=urgent')).tickets.every((t: { priority: string }) => t.priority === 'urgent')).toBe(true);
      expect((await get('sort=priority&limit=1')).tickets[0].priority).toBe('urgent');
      const open = await get('status=open,in_progress,pending_customer&limit=1000');
      expect(open.tickets.every((t: { status: string }) => ['open', 'in_progress', 'pending_customer'].includes(t.status))).toBe(true);
      expect((await get('assigned=unassigned&limit=1000')).tickets.every((t: { assignedAgent: unknown }) => t.assignedAgent === null)).toBe(true);
      expect((await get(`category=${category}&limit=1`)).pagination.pages).toBeGreaterThan(1);
      const latest = (await get('limit=1000')).tickets.map((t: { createdAt: string }) => t.createdAt);
      expect(latest).toEqual([...latest].sort().reverse());
      const page2 = await get('limit=2&page=2');
      expect(page2.pagination).toMatchObject({ page: 2, limit: 2 });
      expect(page2.tickets).toHaveLength(2);
    });

    it('then a list by category or by priority, and its total, read no whole collection on SQLite', async () => {
      const store = server.deps.readStore as { fullScans?: number };
      const before = store.fullScans;
      for (const query of [`category=${category}`, 'priority=urgent,high', `category=${category}&priority=urgent&sort=oldest`])
        expect((await server.request('GET', `/api/tickets?${query}`, { token: agent.token })).status).toBe(200);
      expect(store.fullScans).toBe(before);
    });

    it('then bad queries are refused with 400', async () => {
      for (const query of ['status=done', 'limit=1001', 'page=0', 'sort=random', 'assigned=them', 'priority=asap']) {
        expect((await server.request('GET', `/api/tickets?${query}`, { token: agent.token })).status).toBe(400);
      }
    });
  });

  describe('when staff work a ticket', () => {
    let erin: Member;
    let ticket: { _id: string };
    beforeAll(async () => {
      erin = await customer();
      ticket = await openTicket(server, erin, category);
    });

    it('then Assign to Me assigns the agent and starts work on it', async () => {
      const answer = await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
      expect(answer).toMatchObject({ status: 200, body: { ticket: { status: 'in_progress', assignedAgent: { _id: agent.id, firstName: 'Alice' } } } });
    });

    it('then another agent may neither take it for someone else nor unassign it; an admin may', async () => {
      const forOther = await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: otherAgent.token, body: { agentId: agent.id } });
      expect(forOther.status).toBe(403);
      const unassign = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: otherAgent.token, body: { assignedAgent: null } });
      expect(unassign.status).toBe(403);
      const byAdmin = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { assignedAgent: null } });
      expect(byAdmin).toMatchObject({ status: 200, body: { ticket: { assignedAgent: null, status: 'in_progress' } } });
      const toCustomer = await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: admin, body: { agentId: erin.id } });
      expect(toCustomer).toMatchObject({ status: 400, body: { error: 'Tickets can only be assigned to an active agent or admin' } });
    });

    it('then the outcome is trimmed, kept with who and when, and hidden from the customer', async () => {
      const answer = await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, {
        token: agent.token,
        body: { outcomeMessage: '  Replaced the cable  ' },
      });
      expect(answer).toMatchObject({
        status: 200,
        body: {
          ticket: { outcomeMessage: 'Replaced the cable', outcomeUpdatedBy: { _id: agent.id, firstName: 'Alice' }, outcomeUpdatedAt: now.value.toISOString() },
        },
      });
      expect((await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, { token: agent.token, body: { outcomeMessage: '   ' } })).body.error).toBe(
        'Outcome is required',
      );
      expect(
        (await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, { token: agent.token, body: { outcomeMessage: 'x'.repeat(1001) } })).body.error,
      ).toBe('Outcome must be at most 1000 characters');
      const seen = await server.request('GET', `/api/tickets/${ticket._id}`, { token: erin.token });
      expect(seen.body.ticket).toMatchObject({ outcomeMessage: null, outcomeUpdatedBy: null });
    });

    it('then resolving and closing keep their dates', async () => {
      now.value = new Date('2026-11-21T10:00:00.000Z');
      const resolved = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'resolved' } });
      expect(resolved.body.ticket).toMatchObject({ status: 'resolved', resolvedAt: '2026-11-21T10:00:00.000Z', closedAt: null });
      now.value = new Date('2026-11-21T11:00:00.000Z');
      const closed = await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'closed' } });
      expect(closed.body.ticket).toMatchObject({ status: 'closed', resolvedAt: '2026-11-21T10:00:00.000Z', closedAt: '2026-11-21T11:00:00.000Z' });
      now.value = new Date('2026-11-21T09:00:00.000Z');
    });

    it('then customers can change nothing and only admins delete', async () => {
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: erin.token, body: { status: 'open' } })).status).toBe(403);
      expect((await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: erin.token, body: { agentId: agent.id } })).status).toBe(403);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, { token: erin.token, body: { outcomeMessage: 'x' } })).status).toBe(403);
      expect((await server.request('DELETE', `/api/tickets/${ticket._id}`, { token: agent.token })).status).toBe(403);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: {} })).status).toBe(400);
      expect((await server.request('DELETE', `/api/tickets/${ticket._id}`, { token: admin })).status).toBe(204);
      expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: admin })).status).toBe(404);
      expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: erin.token })).status).toBe(404);
    });
  });

  describe("when a customer reaches for someone else's ticket", () => {
    it('then every call answers 404, never 403', async () => {
      const owner = await customer();
      const stranger = await customer();
      const ticket = await openTicket(server, owner, category);
      const message = await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: owner.token, body: { content: 'mine' } });
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/api/tickets/${ticket._id}`],
        ['GET', `/api/tickets/${ticket.ticketId}`],
        ['GET', `/api/tickets/${ticket._id}/messages`],
        ['POST', `/api/tickets/${ticket._id}/messages`, { content: 'hello' }],
        ['POST', `/api/tickets/${ticket._id}/messages/read`],
        ['PUT', `/api/messages/${message.body.message._id}`, { content: 'changed' }],
      ];
      for (const [method, url, body] of calls) {
        const answer = await server.request(method, url, { token: stranger.token, body });
        expect({ url, method, status: answer.status }).toEqual({ url, method, status: 404 });
      }
      expect((await server.request('GET', '/api/tickets?limit=1000', { token: stranger.token })).body.tickets).toEqual([]);
    });
  });

  describe('when the conversation goes on', () => {
    let fred: Member;
    let ticket: { _id: string };
    beforeAll(async () => {
      fred = await customer();
      ticket = await openTicket(server, fred, category);
    });
    const post = (member: { token: string } | string, body: unknown) =>
      server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: typeof member === 'string' ? member : member.token, body });

    it('then messages are posted, internal notes stay with staff, and unread counts follow read marks', async () => {
      const hello = await post(fred, { content: 'Hello?' });
      expect(hello).toMatchObject({
        status: 201,
        body: { message: { content: 'Hello?', messageType: 'text', isInternal: false, sender: { _id: fred.id, role: 'customer' } } },
      });
      await post(agent, { content: 'Looking into it' });
      const note = await post(agent, { content: 'Customer seems confused', isInternal: true });
      expect(note.body.message.isInternal).toBe(true);

      const forCustomer = await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: fred.token });
      expect(forCustomer.body.messages.map((m: { content: string }) => m.content)).toEqual(['Hello?', 'Looking into it']);
      expect(forCustomer.body.unreadCount).toBe(1);
      expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: fred.token })).body.ticket.messageCount).toBe(2);
      const forStaff = await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: otherAgent.token });
      expect(forStaff.body.messages).toHaveLength(3);
      expect(forStaff.body.unreadCount).toBe(3);
      expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: agent.token })).body.ticket.messageCount).toBe(3);

      expect((await server.request('POST', `/api/tickets/${ticket._id}/messages/read`, { token: fred.token })).status).toBe(204);
      expect((await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: fred.token })).body.unreadCount).toBe(0);
      await post(agent, { content: 'Fixed?' });
      expect((await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: fred.token })).body.unreadCount).toBe(1);
    });

    it('then messages page from the newest, each page oldest first', async () => {
      const page = await server.request('GET', `/api/tickets/${ticket._id}/messages?limit=2&page=1`, { token: agent.token });
      expect(page.body.messages.map((m: { content: string }) => m.content)).toEqual(['Customer seems confused', 'Fixed?']);
      expect(page.body.pagination).toEqual({ page: 1, limit: 2, total: 4, pages: 2 });
    });

    it('then the answer to a post is the message as the conversation lists it, by record id or display number', async () => {
      const { ticketId: number } = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: fred.token })).body.ticket;
      const byId = await post(fred, { content: 'Answered from the event' });
      const byNumber = await server.request('POST', `/api/tickets/${number}/messages`, {
        token: agent.token,
        body: { content: 'A note by number', isInternal: true },
      });
      const unread = await server.request('POST', `/api/tickets/%23${number}/messages/read`, { token: fred.token });
      expect([byId.status, byNumber.status, unread.status]).toEqual([201, 201, 204]);
      const listed = (await server.request('GET', `/api/tickets/${ticket._id}/messages?limit=2`, { token: agent.token })).body.messages;
      expect(listed).toEqual([byId.body.message, byNumber.body.message]);
      expect(byId.body.message).toMatchObject({
        ticket: ticket._id,
        sender: { _id: fred.id, firstName: expect.any(String), role: 'customer' },
        editedAt: null,
        attachments: [],
      });
      const stranger = await customer();
      const refused = await server.request('POST', `/api/tickets/${number}/messages`, { token: stranger.token, body: { content: 'hello' } });
      expect(refused).toMatchObject({ status: 404, body: { error: 'Ticket not found' } });
    });

    it('then a customer cannot post an internal note, an empty or too long message', async () => {
      expect((await post(fred, { content: 'x', isInternal: true })).status).toBe(403);
      expect(await post(fred, { content: '   ' })).toMatchObject({ status: 400, body: { error: 'A message needs text or at least one file' } });
      expect(await post(fred, { content: 'x'.repeat(2001) })).toMatchObject({ status: 400, body: { error: 'Message must be at most 2000 characters' } });
      expect((await post(fred, { content: 'x'.repeat(2000) })).status).toBe(201);
      expect((await post(fred, { content: 'x', messageType: 'system' })).status).toBe(400);
    });

    it('then the sender edits their own text within 5 minutes, and never after', async () => {
      const sent = await post(fred, { content: 'Typo here' });
      const id = sent.body.message._id;
      now.value = new Date(now.value.getTime() + 4 * 60_000);
      const edited = await server.request('PUT', `/api/messages/${id}`, { token: fred.token, body: { content: 'No typo here' } });
      expect(edited).toMatchObject({ status: 200, body: { message: { content: 'No typo here', editedAt: now.value.toISOString() } } });
      expect((await server.request('PUT', `/api/messages/${id}`, { token: agent.token, body: { content: 'Hijack' } })).body.code).toBe('NOT_MESSAGE_SENDER');
      expect((await server.request('PUT', `/api/messages/${id}`, { token: fred.token, body: { content: ' ' } })).status).toBe(400);
      now.value = new Date(now.value.getTime() + 2 * 60_000);
      const late = await server.request('PUT', `/api/messages/${id}`, { token: fred.token, body: { content: 'Too late' } });
      expect(late).toMatchObject({ status: 403, body: { code: 'EDIT_WINDOW_EXPIRED' } });
      const events = await server.deps.events.readStream(`ticket-${ticket._id}`);
      expect(events.filter((e) => e.type === 'MessageEdited').map((e) => e.data)).toContainEqual(
        expect.objectContaining({ messageId: id, content: 'No typo here', previousContent: 'Typo here' }),
      );
    });

    it('then an internal note is not found for a customer who guesses its id', async () => {
      const note = await post(agent, { content: 'secret', isInternal: true });
      expect((await server.request('PUT', `/api/messages/${note.body.message._id}`, { token: fred.token, body: { content: 'x' } })).status).toBe(404);
    });

    it('then a closed ticket refuses the customer but not staff', async () => {
      await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'closed' } });
      expect(await post(fred, { content: 'Still there?' })).toMatchObject({ status: 403, body: { error: TICKET_CLOSED_MESSAGE, code: 'TICKET_CLOSED' } });
      expect((await post(agent, { content: 'Closing note' })).status).toBe(201);
    });
  });
});
