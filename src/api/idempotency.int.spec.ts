import { type Member, addCategory, addMember } from '../../test/support/desk';
import { type TestServer, startTestServer } from '../../test/support/server';

/**
 * Idempotency-Key over real HTTP: a retry answers the first result with the same status and
 * appends nothing; a different request under the same key is refused; twins at once agree.
 */
describe('Idempotency-Key on the POSTs that create', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let customer: Member;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent');
    customer = await addMember(server, admin, 'customer');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  let requests = 0;
  const post = (url: string, token: string, body: unknown, key?: string, requestId = `idem-${++requests}`) =>
    server.request('POST', url, { token, body, headers: { 'X-Request-Id': requestId, ...(key ? { 'Idempotency-Key': key } : {}) } });
  /** The events a request appended: each carries the request's id as its correlationId (the workers append on their own). */
  const appendedBy = async (requestId: string) =>
    (await server.deps.events.readAll({ maxCount: 100_000 })).filter((event) => event.metadata.correlationId === requestId);

  /** Sends it twice with one key: the same answer, and the retry appends nothing to the log. */
  async function twice(url: string, token: string, body: unknown, key: string) {
    const first = await post(url, token, body, key);
    const retry = await post(url, token, body, key, `retry-${key}`);
    expect(await appendedBy(`retry-${key}`)).toEqual([]);
    expect(retry.status).toBe(first.status);
    expect(retry.body).toEqual(first.body);
    return first;
  }

  it('when a ticket is opened twice with one key, then there is one ticket and both answers are it', async () => {
    const first = await twice('/api/tickets', customer.token, { title: 'Printer on fire', description: 'Smoke', category }, 'ticket-key-1');
    expect(first.status).toBe(201);
    const { tickets } = (await server.request('GET', '/api/tickets', { token: customer.token })).body;
    expect(tickets.map((ticket: { _id: string }) => ticket._id)).toEqual([first.body.ticket._id]);
  });

  it('when a message is posted twice with one key, then the conversation has it once', async () => {
    const { tickets } = (await server.request('GET', '/api/tickets', { token: customer.token })).body;
    const ticketId = tickets[0]._id as string;
    const first = await twice(`/api/tickets/${ticketId}/messages`, agent.token, { content: 'Sent only once' }, 'message-key-1');
    expect(first.status).toBe(201);
    const { messages } = (await server.request('GET', `/api/tickets/${ticketId}/messages`, { token: agent.token })).body;
    expect(messages.filter((message: { content: string }) => message.content === 'Sent only once')).toHaveLength(1);
  });

  it('when a canned reply or a user is created twice with one key, then it exists once', async () => {
    const canned = await twice('/api/canned-messages', agent.token, { shortcode: 'once', title: 'Once', content: 'c' }, 'canned-key-1');
    expect(canned.status).toBe(201);
    const user = await twice(
      '/api/users',
      admin,
      { username: 'once_only', email: 'once@example.com', password: 'password-123', firstName: 'Once', lastName: 'Only', role: 'agent' },
      'user-key-1',
    );
    expect(user.status).toBe(201);
    // Without the key the same body is a new request: the unique shortcode refuses it.
    expect((await post('/api/canned-messages', agent.token, { shortcode: 'once', title: 'Once', content: 'c' })).status).toBe(409);
  });

  it('when one key comes with a different request, then it is refused with 422 and nothing is created', async () => {
    await post('/api/canned-messages', agent.token, { shortcode: 'first_body', title: 'First', content: 'c' }, 'reused-key');
    const other = await post('/api/canned-messages', agent.token, { shortcode: 'second_body', title: 'Second', content: 'c' }, 'reused-key', 'reused');
    expect(other).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(await appendedBy('reused')).toEqual([]);
  });

  it('when twins with one key arrive at once, then both answer the one thing created', async () => {
    const body = { shortcode: 'twins', title: 'Twins', content: 'c' };
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => post('/api/canned-messages', agent.token, body, 'twin-key')));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.body.cannedMessage._id)).size).toBe(1);
    const { cannedMessages } = (await server.request('GET', '/api/canned-messages', { token: agent.token })).body;
    expect(cannedMessages.filter((message: { shortcode: string }) => message.shortcode === 'twins')).toHaveLength(1);
    // A twin that lost must not have let the shortcode go while its winner holds it.
    expect((await post('/api/canned-messages', admin, { ...body, title: 'Another' })).status).toBe(409);
  });

  it('when twins open a ticket with one key at once, then there is one ticket and it keeps its open-ticket claim', async () => {
    const twin = await addMember(server, admin, 'customer');
    const body = { title: 'Twins', description: 'Sent twice at once', category };
    const answers = await Promise.all([1, 2, 3].map(() => post('/api/tickets', twin.token, body, 'ticket-twins')));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.body.ticket._id)).size).toBe(1);
    // A twin that lost must not have let the customer's one open ticket go.
    expect((await post('/api/tickets', twin.token, { ...body, title: 'Another' })).status).toBe(409);
  });

  it('when two people use the same key, then each gets their own', async () => {
    const other = await addMember(server, admin, 'agent');
    const mine = await post('/api/canned-messages', agent.token, { shortcode: 'mine', title: 'Mine', content: 'c' }, 'shared-key');
    const theirs = await post('/api/canned-messages', other.token, { shortcode: 'theirs', title: 'Theirs', content: 'c' }, 'shared-key');
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(mine.body.cannedMessage._id).not.toBe(theirs.body.cannedMessage._id);
  });

  it('when what a key created was deleted, then a retry with the key answers 409 IDEMPOTENCY_KEY_TARGET_DELETED and creates nothing', async () => {
    const gone = { status: 409, body: { code: 'IDEMPOTENCY_KEY_TARGET_DELETED' } };
    const canned = { shortcode: 'deleted_after', title: 'Gone', content: 'c' };
    const cannedId = (await post('/api/canned-messages', agent.token, canned, 'deleted-canned')).body.cannedMessage._id;
    expect((await server.request('DELETE', `/api/canned-messages/${cannedId}`, { token: admin })).status).toBe(204);
    expect(await post('/api/canned-messages', agent.token, canned, 'deleted-canned', 'retry-deleted-canned')).toMatchObject(gone);

    const user = { username: 'deleted_after', email: 'deleted_after@example.com', password: 'password-123', firstName: 'D', lastName: 'A', role: 'agent' };
    const userId = (await post('/api/users', admin, user, 'deleted-user')).body.user._id;
    expect((await server.request('DELETE', `/api/users/${userId}`, { token: admin })).status).toBeLessThan(300);
    expect(await post('/api/users', admin, user, 'deleted-user', 'retry-deleted-user')).toMatchObject(gone);

    const opener = await addMember(server, admin, 'customer');
    const ticket = { title: 'Deleted after', description: 'Then retried', category };
    const ticketId = (await post('/api/tickets', opener.token, ticket, 'deleted-ticket')).body.ticket._id;
    expect((await server.request('DELETE', `/api/tickets/${ticketId}`, { token: admin })).status).toBeLessThan(300);
    expect(await post('/api/tickets', opener.token, ticket, 'deleted-ticket', 'retry-deleted-ticket')).toMatchObject(gone);

    for (const retry of ['retry-deleted-canned', 'retry-deleted-user', 'retry-deleted-ticket'])
      expect({ retry, appended: await appendedBy(retry) }).toEqual({ retry, appended: [] });
  });

  it('when the key is not visible ASCII of at most 255 characters, then the answer is 400 naming the header', async () => {
    for (const key of ['x'.repeat(256), 'with space', 'é']) {
      const answer = await server.request('POST', '/api/canned-messages', {
        token: agent.token,
        body: { shortcode: 'badkey', title: 't', content: 'c' },
        headers: { 'Idempotency-Key': key },
      });
      expect(answer).toMatchObject({ status: 400, body: { error: 'Idempotency-Key must be 1 to 255 visible ASCII characters' } });
    }
  });
});
