import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { LiveClient } from '../../../test/support/liveClient';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { inboxStream } from '../../domain/inbox/inbox';
import { ticketStream } from '../../domain/ticket/ticket';

const usernameOf = (member: Member) => member.email.split('@')[0]!;
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('Mentions in internal notes', () => {
  let server: TestServer;
  let admin: string;
  let category: string;
  let alice: Member;
  let bob: Member;
  let carol: Member;
  const clients: LiveClient[] = [];

  const post = (member: Member, ticketId: string, content: string, isInternal = true) =>
    server.request('POST', `/api/tickets/${ticketId}/messages`, { token: member.token, body: { content, isInternal } });
  const listOf = (member: Member) => server.request('GET', '/api/notifications', { token: member.token });
  /** A ticket of a customer of its own: a customer holds one open ticket at a time. */
  const ticketOf = async (title: string) => {
    const customer = await addMember(server, admin, 'customer', 'Carol');
    return { customer, ticket: await openTicket(server, customer, category, { title }) };
  };
  const connect = async (member: Member) => {
    const client = await LiveClient.connect(server.url, member.token);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    category = await addCategory(server, admin);
    alice = await addMember(server, admin, 'agent', 'Alice');
    bob = await addMember(server, admin, 'agent', 'Bob');
    carol = await addMember(server, admin, 'customer', 'Carol');
  }, 30_000);

  afterEach(() => clients.splice(0).forEach((client) => client.socket.disconnect()));

  afterAll(() => server.stop());

  it('when a note names a colleague, then that colleague alone gets one notification and a live push; unknown names, customers, the deactivated and the author get none', async () => {
    const dave = await addMember(server, admin, 'agent', 'Dave');
    await server.request('PUT', `/api/users/${dave.id}`, { token: admin, body: { isActive: false } });
    const bobLive = await connect(bob);
    const aliceLive = await connect(alice);
    const carolLive = await connect(carol);
    const ticket = await openTicket(server, carol, category, { title: 'Refund twice' });
    const content = `@${usernameOf(bob).toUpperCase()} can you check the refund? cc @nobody_here @${usernameOf(carol)} @${usernameOf(dave)} @${usernameOf(alice)} mail@${usernameOf(bob)}`;

    const posted = await post(alice, ticket._id, content);
    expect(posted.status).toBe(201);
    expect(posted.body.message.content).toBe(content);

    const pushed = await bobLive.next('notification');
    expect(pushed.unread).toBe(1);
    expect(pushed.notification).toMatchObject({
      _id: posted.body.message._id,
      kind: 'mention',
      ticket: { _id: ticket._id, ticketId: ticket.ticketId, title: 'Refund twice' },
      by: { _id: alice.id, firstName: 'Alice' },
      read: false,
    });
    expect(pushed.notification.excerpt).toMatch(/^@\S+ can you check the refund\?/);
    const listed = await listOf(bob);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ unread: 1, pagination: { page: 1, total: 1 } });
    expect(listed.body.notifications).toEqual([pushed.notification]);

    const [note] = (await server.deps.events.readStream(ticketStream(ticket._id))).filter((event) => event.type === 'MessagePosted');
    expect(note!.data.mentions).toEqual([bob.id]);
    await settle();
    expect((await listOf(alice)).body).toMatchObject({ notifications: [], unread: 0 });
    expect(aliceLive.events('notification')).toEqual([]);
    expect(carolLive.events('notification')).toEqual([]);
    expect(bobLive.events('notification')).toHaveLength(1);
  });

  it('when a public reply names a colleague, then nobody is notified and the customer sees no mention anywhere', async () => {
    const bobLive = await connect(bob);
    const before = (await listOf(bob)).body.pagination.total;
    const { customer, ticket } = await ticketOf('Where is my parcel');
    expect((await post(alice, ticket._id, `Hello! @${usernameOf(bob)} will follow up.`, false)).status).toBe(201);
    expect((await post(alice, ticket._id, `@${usernameOf(bob)} private: customer is upset`)).status).toBe(201);
    await bobLive.next('notification');
    expect((await listOf(bob)).body.pagination.total).toBe(before + 1);

    const seen = await Promise.all(
      [`/api/tickets/${ticket._id}`, `/api/tickets/${ticket._id}/messages`, `/api/tickets/${ticket._id}/history`, '/api/events'].map((url) =>
        server.request('GET', url, { token: customer.token }),
      ),
    );
    for (const answer of seen) {
      expect(JSON.stringify(answer.body)).not.toContain('private: customer is upset');
      expect(JSON.stringify(answer.body)).not.toContain('mentions');
    }
  });

  it('when a customer asks for notifications or staff, then it is 403', async () => {
    for (const [method, url] of [
      ['GET', '/api/notifications'],
      ['POST', '/api/notifications/read'],
      ['POST', '/api/notifications/x/read'],
      ['GET', '/api/staff?q=b'],
    ] as const) {
      expect((await server.request(method, url, { token: carol.token })).status).toBe(403);
    }
  });

  it('when the colleague marks one or all read, then it is recorded with them as actor and their sockets hear the count; another person cannot', async () => {
    const { ticket } = await ticketOf('Two notes');
    const before = (await listOf(bob)).body.unread as number;
    const first = await post(alice, ticket._id, `@${usernameOf(bob)} one`);
    await post(alice, ticket._id, `@${usernameOf(bob)} two`);
    const bobLive = await connect(bob);
    // A post answers once the ticket's views hold the note (ticketViewsReach); the notifications model may come a moment later on MongoDB.
    const unread = await eventually(async () => {
      const count = (await listOf(bob)).body.unread as number;
      return count === before + 2 && count;
    });

    expect((await server.request('POST', `/api/notifications/${first.body.message._id}/read`, { token: alice.token })).status).toBe(404);
    expect((await server.request('POST', '/api/notifications/unknown-id/read', { token: bob.token })).status).toBe(404);
    const one = await server.request('POST', `/api/notifications/${first.body.message._id}/read`, { token: bob.token });
    expect(one.body).toEqual({ unread: unread - 1 });
    expect((await bobLive.next('notifications_read')).unread).toBe(unread - 1);
    const again = await server.request('POST', `/api/notifications/${first.body.message._id}/read`, { token: bob.token });
    expect(again.body).toEqual({ unread: unread - 1 });

    const all = await server.request('POST', '/api/notifications/read', { token: bob.token });
    expect(all.body).toEqual({ unread: 0 });
    expect((await listOf(bob)).body.notifications.every((item: { read: boolean }) => item.read)).toBe(true);
    const recorded = await server.deps.events.readStream(inboxStream(bob.id));
    expect(recorded.map((event) => [event.type, event.metadata.actor?.userId])).toEqual([
      ['NotificationMarkedRead', bob.id],
      ['AllNotificationsMarkedRead', bob.id],
    ]);
  });

  it('when staff type after @, then active colleagues are suggested by username or name', async () => {
    const found = await server.request('GET', '/api/staff?q=bo', { token: alice.token });
    expect(found.status).toBe(200);
    expect(found.body.staff).toContainEqual({ _id: bob.id, username: usernameOf(bob), firstName: 'Bob', lastName: 'Tester' });
    expect(found.body.staff.every((member: { firstName: string; username: string }) => /^bo/i.test(member.firstName) || member.username.startsWith('bo'))).toBe(
      true,
    );
    expect((await server.request('GET', '/api/staff?q=carol', { token: alice.token })).body.staff).toEqual([]);
  });
});
