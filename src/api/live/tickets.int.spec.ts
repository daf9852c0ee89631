import { type Member, addMember, openTicket } from '../../../test/support/desk';
import { liveDesk } from '../../../test/support/liveClient';
import type { TestServer } from '../../../test/support/server';
import { postMessage } from '../../app/tickets/service';

/** Lets pushes already on their way arrive before asserting that something did not. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('Live ticket channel', () => {
  const desk = liveDesk();
  const { connect } = desk;
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;
  beforeAll(() => ({ server, admin, agent, category } = desk));

  const post = (token: string, ticketId: string, body: Record<string, unknown>) => server.request('POST', `/api/tickets/${ticketId}/messages`, { token, body });

  it('when a ticket is opened, then staff and its customer are told, and no other customer', async () => {
    const owner = await addMember(server, admin, 'customer');
    const stranger = await addMember(server, admin, 'customer');
    const [staff, ownerSocket, strangerSocket] = await Promise.all([connect(agent.token), connect(owner.token), connect(stranger.token)]);
    const ticket = await openTicket(server, owner, category, { title: 'Live one' });
    expect((await staff.next('new_ticket', (p) => p.ticket._id === ticket._id)).ticket).toMatchObject({ title: 'Live one', status: 'open' });
    expect((await ownerSocket.next('new_ticket', (p) => p.ticket._id === ticket._id)).ticket.customer._id).toBe(owner.id);
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'pending_customer' } });
    const update = await staff.next('ticket_updated', (p) => p.ticket._id === ticket._id);
    expect(update.ticket.status).toBe('pending_customer');
    expect(update.change).toEqual({ kind: 'status', from: 'open', to: 'pending_customer', by: agent.id });
    expect((await ownerSocket.next('ticket_updated', (p) => p.ticket._id === ticket._id)).ticket.status).toBe('pending_customer');
    await settle();
    expect(strangerSocket.received.filter((r) => JSON.stringify(r.payload).includes(ticket._id))).toEqual([]);
  });

  it("when a customer asks to join someone else's ticket, then they are refused and hear nothing of it", async () => {
    const owner = await addMember(server, admin, 'customer');
    const stranger = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const strangerSocket = await connect(stranger.token);
    expect(await strangerSocket.join(ticket._id)).toEqual({ ok: false, error: 'Ticket not found' });
    strangerSocket.socket.emit('typing', { ticketId: ticket._id, isTyping: true });
    await post(owner.token, ticket._id, { content: 'private words' });
    await settle();
    expect(strangerSocket.events('new_message')).toEqual([]);
  });

  it('when messages are posted in a room, then the customer gets public ones and staff get internal notes too', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const [staff, customer] = await Promise.all([connect(agent.token), connect(owner.token)]);
    expect(await staff.join(ticket._id)).toEqual({ ok: true, ticketId: ticket._id });
    expect((await customer.join(ticket._id)).ok).toBe(true);

    await post(agent.token, ticket._id, { content: 'Note for colleagues', isInternal: true });
    await post(agent.token, ticket._id, { content: 'Hello Carol' });
    const hello = await customer.next('new_message', (p) => p.message.content === 'Hello Carol');
    expect(hello).toMatchObject({ message: { isInternal: false, sender: { _id: agent.id } }, ticket: { _id: ticket._id, messageCount: 1 } });
    const note = await staff.next('new_message', (p) => p.message.isInternal === true);
    expect(note).toMatchObject({ message: { content: 'Note for colleagues' }, ticket: { messageCount: 1 } });
    await staff.next('new_message', (p) => p.message.content === 'Hello Carol');
    await settle();
    expect(customer.events('new_message').map((p) => p.message.content)).toEqual(['Hello Carol']);
    expect(JSON.stringify(customer.received)).not.toContain('Note for colleagues');
  });

  it('when a message is edited, then the room gets message_edited; an edited note stays with staff', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const [staff, customer] = await Promise.all([connect(agent.token), connect(owner.token)]);
    await Promise.all([staff.join(ticket._id), customer.join(ticket._id)]);
    const sent = await post(owner.token, ticket._id, { content: 'Helo' });
    const note = await post(agent.token, ticket._id, { content: 'draft note', isInternal: true });
    await server.request('PUT', `/api/messages/${sent.body.message._id}`, { token: owner.token, body: { content: 'Hello' } });
    await server.request('PUT', `/api/messages/${note.body.message._id}`, { token: agent.token, body: { content: 'final note' } });
    expect((await staff.next('message_edited', (p) => p.message._id === sent.body.message._id)).message).toMatchObject({
      content: 'Hello',
      editedAt: expect.any(String),
    });
    expect((await customer.next('message_edited', (p) => p.message._id === sent.body.message._id)).message.content).toBe('Hello');
    await staff.next('message_edited', (p) => p.message._id === note.body.message._id);
    await settle();
    expect(customer.events('message_edited')).toHaveLength(1);
  });

  it('when someone types, then the other side of the room sees who, and a note being typed shows only to staff', async () => {
    const owner = await addMember(server, admin, 'customer', 'Carol');
    const ticket = await openTicket(server, owner, category);
    const [staff, otherStaff, customer] = await Promise.all([connect(agent.token), connect(admin), connect(owner.token)]);
    await Promise.all([staff.join(ticket._id), otherStaff.join(ticket._id), customer.join(ticket._id)]);

    customer.socket.emit('typing', { ticketId: ticket._id, userId: 'someone-else', isTyping: true });
    expect(await staff.next('user_typing')).toEqual({
      ticketId: ticket._id,
      userId: owner.id,
      isTyping: true,
      user: { firstName: 'Carol', lastName: 'Tester', role: 'customer' },
    });
    staff.socket.emit('typing', { ticketId: ticket._id, isTyping: true, isInternal: true });
    expect((await otherStaff.next('user_typing', (p) => p.userId === agent.id)).isTyping).toBe(true);
    staff.socket.emit('typing', { ticketId: ticket._id, isTyping: false });
    expect((await customer.next('user_typing', (p) => p.userId === agent.id)).isTyping).toBe(false);
    await settle();
    expect(customer.events('user_typing').filter((p) => p.isTyping)).toEqual([]);
    expect(customer.events('user_typing').filter((p) => p.userId === owner.id)).toEqual([]);
  });

  it('when a socket leaves the room, then it hears no more of the conversation', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const customer = await connect(owner.token);
    await customer.join(ticket._id);
    await customer.socket.timeout(2000).emitWithAck('leave_ticket', ticket._id);
    await post(agent.token, ticket._id, { content: 'Anyone?' });
    await settle();
    expect(customer.events('new_message')).toEqual([]);
  });

  it('when a change comes from outside the web API, then browsers get it the same way from the log', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const customer = await connect(owner.token);
    await customer.join(ticket._id);
    await postMessage(
      server.deps,
      ticket._id,
      { content: 'Sent from Telegram', isInternal: false, attachments: [], platform: 'telegram' },
      {
        actor: { userId: owner.id, role: 'customer', platform: 'telegram' },
        now: new Date(),
      },
    );
    expect((await customer.next('new_message')).message).toMatchObject({ content: 'Sent from Telegram', platform: 'telegram' });
  });
});
