import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/**
 * Races on unique values, fired at the same moment many times over: of two requests that would
 * give one value two holders, exactly one lands and the other is refused with 409; the desk keeps
 * answering at once afterwards (a duplicate in the log used to stop its read models for good).
 */
const ROUNDS = 12;

describe('Unique values under racing requests', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent');
  });
  afterAll(() => server.stop());

  /** Fires both at once; answers their statuses in order. */
  const race = async (...requests: Array<() => Promise<{ status: number }>>) => (await Promise.all(requests.map((request) => request()))).map((a) => a.status);

  it('when a canned message is renamed to a shortcode another request creates, then one of them gets it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const existing = await server.request('POST', '/api/canned-messages', {
        token: agent.token,
        body: { shortcode: `old${round}`, title: 't', content: 'c' },
      });
      const wanted = `zz${round}`;
      const statuses = await race(
        () => server.request('PUT', `/api/canned-messages/${existing.body.cannedMessage._id}`, { token: agent.token, body: { shortcode: wanted } }),
        () => server.request('POST', '/api/canned-messages', { token: agent.token, body: { shortcode: wanted, title: 'new', content: 'c' } }),
      );
      expect(statuses.filter((status) => status === 409)).toHaveLength(1);
      const { cannedMessages } = (await server.request('GET', '/api/canned-messages', { token: agent.token })).body;
      expect(cannedMessages.filter((message: { shortcode: string }) => message.shortcode === wanted)).toHaveLength(1);
    }
  });

  it('when two users are given one e-mail at once, or an admin edit races a sign-up, then one account has it', async () => {
    const [first, second, third] = [
      await addMember(server, admin, 'customer'),
      await addMember(server, admin, 'customer'),
      await addMember(server, admin, 'agent'),
    ];
    for (let round = 0; round < ROUNDS; round++) {
      const email = `shared${round}@example.com`;
      const edits = await race(
        () => server.request('PUT', `/api/users/${first.id}`, { token: admin, body: { email } }),
        () => server.request('PUT', `/api/users/${second.id}`, { token: admin, body: { email } }),
      );
      expect(edits.filter((status) => status === 409)).toHaveLength(1);

      const other = `signup${round}@example.com`;
      const signUp = await race(
        () => server.request('PUT', `/api/users/${third.id}`, { token: admin, body: { email: other } }),
        () =>
          server.request('POST', '/api/auth/register', {
            body: { username: `signup_${round}`, email: other, password: 'password-123', firstName: 'Sign', lastName: 'Up' },
          }),
      );
      expect(signUp.filter((status) => status === 409)).toHaveLength(1);
      for (const address of [email, other]) {
        const { users } = (await server.request('GET', `/api/users?q=${encodeURIComponent(address)}&limit=100`, { token: admin })).body;
        expect(users.filter((user: { email: string }) => user.email === address)).toHaveLength(1);
      }
    }
  }, 120_000);

  it('when a bot command is renamed to a name another request creates, then one of them gets it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const letter = String.fromCharCode(97 + round);
      const body = { description: 'd', handler: 'custom', response: 'r' };
      const created = await server.request('POST', '/api/bot-commands', { token: admin, body: { ...body, command: `old_${letter}` } });
      expect(created.status).toBe(201);
      const wanted = `zz_${letter}`;
      const statuses = await race(
        () => server.request('PUT', `/api/bot-commands/${created.body.command._id}`, { token: admin, body: { command: wanted } }),
        () => server.request('POST', '/api/bot-commands', { token: admin, body: { ...body, command: wanted } }),
      );
      expect(statuses.filter((status) => status === 409)).toHaveLength(1);
    }
    const { commands } = (await server.request('GET', '/api/bot-commands', { token: admin })).body;
    const names = (commands as Array<{ command: string }>).map((command) => command.command);
    expect(new Set(names).size).toBe(names.length);
  });

  it('when staff reopen a resolved ticket while its customer opens a new one, then the customer has one open ticket', async () => {
    const category = await addCategory(server, admin);
    for (let round = 0; round < ROUNDS; round++) {
      const customer = await addMember(server, admin, 'customer');
      const ticket = await openTicket(server, customer, category);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
      const statuses = await race(
        () => server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'open' } }),
        () => server.request('POST', '/api/tickets', { token: customer.token, body: { title: 'Again', description: 'Still broken', category } }),
      );
      expect(statuses.filter((status) => status === 409)).toHaveLength(1);
      const { tickets } = (await server.request('GET', '/api/tickets?status=open,in_progress,pending_customer&limit=100', { token: customer.token })).body;
      expect(tickets).toHaveLength(1);
    }
  }, 120_000);

  it('after all of it, the desk still answers a command at once', async () => {
    const started = Date.now();
    expect((await server.request('POST', '/api/canned-messages', { token: agent.token, body: { shortcode: 'after', title: 't', content: 'c' } })).status).toBe(
      201,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect((await server.request('GET', '/api/health')).body.status).not.toBe('degraded');
  });
});
