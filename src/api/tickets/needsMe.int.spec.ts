import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { liveDesk } from '../../../test/support/liveClient';

/** Lets pushes already on their way arrive before asserting that something did not. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('What needs me (issue 41): unread counts, waiting since, the waiting sort and views', () => {
  const desk = liveDesk();
  const { connect } = desk;
  const server = () => desk.server;
  let admin: string;
  let agent: Member;
  let category: string;
  beforeAll(async () => {
    ({ admin, agent } = desk);
    category = await addCategory(server(), admin, { name: 'Needs me' });
  });

  const post = (token: string, ticketId: string, content: string, isInternal = false) =>
    server().request('POST', `/api/tickets/${ticketId}/messages`, { token, body: { content, isInternal } });
  const listed = async (token: string, query: string) => {
    const answer = await server().request('GET', `/api/tickets?${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body.tickets as Array<{ _id: string; unreadCount: number; waitingSince: string | null; lastCustomerMessageAt: string | null }>;
  };
  const ticketOf = async (token: string, id: string) => (await server().request('GET', `/api/tickets/${id}`, { token })).body.ticket;

  it('when the customer writes, then each list item counts what the reader has not read, and reading clears it', async () => {
    const customer = await addMember(server(), admin, 'customer');
    const ticket = await openTicket(server(), customer, category, { title: 'Unread one' });
    await post(customer.token, ticket._id, 'First');
    await post(customer.token, ticket._id, 'Second');
    await post(agent.token, ticket._id, 'A note for staff', true);
    const forAgent = (await listed(agent.token, 'limit=100')).find((item) => item._id === ticket._id)!;
    expect(forAgent.unreadCount).toBe(2);
    // The customer reads none of their own, and never a note.
    expect((await listed(customer.token, 'limit=10')).find((item) => item._id === ticket._id)!.unreadCount).toBe(0);
    expect((await server().request('POST', `/api/tickets/${ticket._id}/messages/read`, { token: agent.token })).status).toBeLessThan(300);
    expect((await listed(agent.token, 'limit=100')).find((item) => item._id === ticket._id)!.unreadCount).toBe(0);
  });

  it('when the tickets of a page were read up to different messages, then each counts only what came after its own mark', async () => {
    // One open ticket per customer.
    const customer = await addMember(server(), admin, 'customer');
    const tickets = [];
    for (const title of ['Read early', 'Read late', 'Never read', 'All read'])
      tickets.push(await openTicket(server(), title === 'Read early' ? customer : await addMember(server(), admin, 'customer'), category, { title }));
    const [early, late, never, done] = tickets;
    const read = (id: string) => server().request('POST', `/api/tickets/${id}/messages/read`, { token: agent.token });
    for (const ticket of [early, late, never, done]) await post(admin, ticket!._id, 'One');
    await read(early!._id);
    await post(admin, late!._id, 'Two');
    await read(late!._id);
    await read(done!._id);
    for (const ticket of [early, late, never]) await post(admin, ticket!._id, 'Three');
    await post(admin, early!._id, 'Four');
    await post(agent.token, never!._id, 'My own reply');
    const counts = new Map((await listed(agent.token, 'limit=100')).map((item) => [item._id, item.unreadCount]));
    expect([early, late, never, done].map((ticket) => counts.get(ticket!._id))).toEqual([2, 1, 2, 0]);
  });

  it('when staff reply publicly, then the customer no longer waits; a note does not count; the customer writing again waits from then', async () => {
    const customer = await addMember(server(), admin, 'customer');
    const ticket = await openTicket(server(), customer, category, { title: 'Waiting one' });
    const opened = await ticketOf(agent.token, ticket._id);
    expect(opened.waitingSince).toBe(opened.createdAt);
    expect(opened.lastCustomerMessageAt).toBe(opened.createdAt);
    await post(customer.token, ticket._id, 'Hello?');
    expect((await ticketOf(agent.token, ticket._id)).waitingSince).toBe(opened.createdAt);
    await post(agent.token, ticket._id, 'Looking into it internally', true);
    expect((await ticketOf(agent.token, ticket._id)).waitingSince).toBe(opened.createdAt);
    await post(agent.token, ticket._id, 'We are on it');
    expect((await ticketOf(agent.token, ticket._id)).waitingSince).toBeNull();
    const again = (await post(customer.token, ticket._id, 'Any news?')).body.message;
    const now = await ticketOf(agent.token, ticket._id);
    expect([now.waitingSince, now.lastCustomerMessageAt]).toEqual([again.createdAt, again.createdAt]);
    await server().request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'pending_customer' } });
    expect((await ticketOf(agent.token, ticket._id)).waitingSince).toBeNull();
  });

  it('when asked for waiting tickets sorted by waiting longest, then the longest waiting come first and the answered are left out', async () => {
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => addMember(server(), admin, 'customer')));
    const older = await openTicket(server(), first!, category, { title: 'Waits longest' });
    const newer = await openTicket(server(), second!, category, { title: 'Waits less' });
    const answered = await openTicket(server(), third!, category, { title: 'Answered' });
    await post(agent.token, answered._id, 'Done for now');
    const ids = (await listed(agent.token, 'waiting=true&sort=waiting&limit=1000')).map((item) => item._id);
    expect(ids.indexOf(older._id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(older._id)).toBeLessThan(ids.indexOf(newer._id));
    expect(ids).not.toContain(answered._id);
    const all = (await listed(agent.token, 'sort=waiting&limit=1000')).map((item) => item._id);
    expect(all.indexOf(answered._id)).toBeGreaterThan(all.indexOf(newer._id));
    expect((await listed(agent.token, 'waiting=false&limit=1000')).map((item) => item._id)).toContain(answered._id);
  });

  it('when the waiting filter or the sort is not one the API knows, then it answers 400 saying what it takes', async () => {
    expect(await server().request('GET', '/api/tickets?waiting=yes', { token: agent.token })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('waiting must be true or false') },
    });
    expect(await server().request('GET', '/api/tickets?sort=longest', { token: agent.token })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('sort must be latest, oldest, priority, status, updated, waiting or due') },
    });
  });

  it('when a message is posted, then every member of staff hears of it without opening the ticket, and the customer only of public ones', async () => {
    const customer = await addMember(server(), admin, 'customer');
    const ticket = await openTicket(server(), customer, category, { title: 'Heard everywhere' });
    const [staff, owner] = await Promise.all([connect(agent.token), connect(customer.token)]);
    await post(customer.token, ticket._id, 'Are you there?');
    const heard = await staff.next('ticket_message', (p) => p.ticket._id === ticket._id);
    expect(heard.message).toMatchObject({ senderId: customer.id, senderRole: 'customer', isInternal: false });
    expect(heard.ticket.lastCustomerMessageAt).toBe(heard.message.createdAt);
    expect(JSON.stringify(heard)).not.toContain('Are you there?');
    await post(agent.token, ticket._id, 'Staff only', true);
    expect((await staff.next('ticket_message', (p) => p.ticket._id === ticket._id && p.message.isInternal)).message.senderId).toBe(agent.id);
    await settle();
    const ownerHeard = owner.received.filter((r) => r.event === 'ticket_message').map((r) => r.payload.message.isInternal);
    expect(ownerHeard).toEqual([false]);
  });
});
