import pino from 'pino';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';
import { ticketStream } from '../../domain/ticket/ticket';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Request ids and request logs', () => {
  let server: TestServer;
  const lines: string[] = [];
  let admin: string;
  let carol: Member;
  let ticket: { _id: string };

  /** The request log lines written so far, parsed. */
  const requestLines = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
  const lineOf = (reqId: string) => requestLines().find((line) => line.reqId === reqId);

  beforeAll(async () => {
    server = await startTestServer({ logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }) });
    admin = await server.login();
    carol = await addMember(server, admin, 'customer', 'Carol');
    ticket = await openTicket(server, carol, await addCategory(server, admin));
  });
  afterAll(() => server.stop());

  describe('when a message is posted with X-Request-Id: abc-123', () => {
    let answer: Awaited<ReturnType<TestServer['request']>>;
    beforeAll(async () => {
      answer = await server.request('POST', `/api/tickets/${ticket._id}/messages`, {
        token: carol.token,
        body: { content: 'Any news?' },
        headers: { 'x-request-id': 'abc-123' },
      });
    });

    it('then the answer carries the same id', () => {
      expect(answer.status).toBe(201);
      expect(answer.headers.get('x-request-id')).toBe('abc-123');
    });

    it('then the event it appended has correlationId abc-123 in its metadata', async () => {
      const events = await server.deps.events.readStream(ticketStream(ticket._id));
      const posted = events.find((event) => event.type === 'MessagePosted' && (event.data as { messageId?: string }).messageId === answer.body.message._id);
      expect(posted?.metadata.correlationId).toBe('abc-123');
      // The ticket's earlier events came from other requests.
      expect(events[0]!.metadata.correlationId).not.toBe('abc-123');
    });

    it('then one log line tells the method, the route pattern, the status, the duration, the id and the user', () => {
      const line = lineOf('abc-123');
      expect(line).toMatchObject({ method: 'POST', route: '/api/tickets/:id/messages', status: 201, userId: carol.id, level: 30 });
      expect(typeof line!.ms).toBe('number');
      expect(JSON.stringify(line)).not.toContain(ticket._id);
      expect(JSON.stringify(line)).not.toContain('Any news?');
    });
  });

  it.each([
    ['no X-Request-Id', {}],
    ['an id with spaces', { 'x-request-id': 'abc 123' }],
    ['an id of 101 characters', { 'x-request-id': 'a'.repeat(101) }],
    ['an id that would forge a log line', { 'x-request-id': 'abc\\n{"level":60}' }],
  ])('when a request comes with %s, then it gets a fresh UUID, answered and logged', async (_case, headers: Record<string, string>) => {
    const answer = await server.request('GET', '/api/settings/public', { headers });
    const id = answer.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(lineOf(id!)).toMatchObject({ method: 'GET', route: '/api/settings/public', status: 200 });
  });

  it('when someone signs in, then the session events carry the request id and the log line has no password and no token', async () => {
    const answer = await server.request('POST', '/api/auth/login', { body: ADMIN, headers: { 'x-request-id': 'login-7' } });
    expect(answer.status).toBe(200);
    const { accessToken, refreshToken } = answer.body as { accessToken: string; refreshToken: string };
    const recent = await server.deps.events.readAll({ after: 0, maxCount: 10_000 });
    expect(recent.filter((event) => event.metadata.correlationId === 'login-7').map((event) => event.type)).toEqual(expect.arrayContaining(['SessionStarted']));

    // A token in a query string never reaches the log either.
    await server.request('GET', `/api/tickets?q=${accessToken}`, { token: accessToken, headers: { 'x-request-id': 'query-8' } });
    const logged = JSON.stringify([lineOf('login-7'), lineOf('query-8')]);
    expect(lineOf('login-7')).toMatchObject({ route: '/api/auth/login', status: 200 });
    expect(lineOf('query-8')).toMatchObject({ route: '/api/tickets', status: expect.any(Number) });
    for (const secret of [ADMIN.password, accessToken, refreshToken, accessToken.slice(0, 20)]) expect(logged).not.toContain(secret);
  });

  it('when a route is unknown or a sign-in fails, then the line names no raw URL nor the password and tells the status', async () => {
    await server.request('GET', '/api/no/such/place?token=secret-value', { headers: { 'x-request-id': 'lost-1' } });
    await server.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'hunter2-secret' }, headers: { 'x-request-id': 'bad-2' } });
    expect(lineOf('lost-1')).toMatchObject({ route: 'unmatched', status: 404 });
    expect(lineOf('bad-2')).toMatchObject({ route: '/api/auth/login', status: 401 });
    expect(JSON.stringify(lines)).not.toContain('secret-value');
    expect(JSON.stringify(lines)).not.toContain('hunter2-secret');
  });
});
