import { type TestServer, startTestServer } from '../../../test/support/server';
import { recordAccessAttempt } from '../../app/whitelist/service';

describe('Telegram whitelist and access requests over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    await server.request('POST', '/api/users', {
      token: admin,
      body: { firstName: 'W', lastName: 'L', username: 'wl_agent', email: 'wl@example.com', password: 'secret-123', role: 'agent' },
    });
    agent = await server.login('wl@example.com', 'secret-123');
  });
  afterAll(() => server.stop());

  const add = (body: unknown) => server.request('POST', '/api/whitelist', { token: admin, body });
  const entries = async () =>
    (await server.request('GET', '/api/whitelist', { token: admin })).body.entries as Array<{ _id: string; telegramId: string; isActive: boolean }>;
  /** What the bot does when someone who is not whitelisted writes to it. */
  const knock = async (telegramId: string, message: string, username = 'knocker') => {
    const position = await recordAccessAttempt(
      server.deps,
      telegramId,
      { username, firstName: 'Kno', lastName: 'Cker', message },
      {
        actor: { userId: `telegram:${telegramId}`, role: 'customer', platform: 'telegram' },
        now: new Date(),
      },
    );
    await server.deps.projections.waitFor(position);
  };

  it('when an ID is added, edited by record id or Telegram ID, toggled and deleted, then the list follows', async () => {
    const created = await add({ telegramId: 111222333, username: '@alice_tg', firstName: 'Alice', notes: 'VIP' });
    expect(created.status).toBe(201);
    expect(created.body.entry).toEqual({
      _id: expect.any(String),
      telegramId: '111222333',
      username: 'alice_tg',
      firstName: 'Alice',
      lastName: '',
      notes: 'VIP',
      isActive: true,
      createdAt: expect.any(String),
    });
    const id = created.body.entry._id as string;
    expect(await add({ telegramId: '111222333' })).toMatchObject({ status: 409, body: { error: 'This Telegram ID is already whitelisted' } });
    const byTelegramId = await server.request('PUT', '/api/whitelist/111222333', { token: admin, body: { isActive: false } });
    expect(byTelegramId.body).toMatchObject({ entry: { isActive: false }, message: 'User deactivated successfully' });
    const byId = await server.request('PUT', `/api/whitelist/${id}`, {
      token: admin,
      body: { isActive: true, notes: 'VIP customer', telegramId: '111222333' },
    });
    expect(byId.body).toMatchObject({ entry: { isActive: true, notes: 'VIP customer' }, message: 'User activated successfully' });
    expect((await server.request('PUT', `/api/whitelist/${id}`, { token: admin, body: { lastName: 'Liddell' } })).body.message).toBe(
      'Whitelist entry updated successfully',
    );
    expect(await server.request('PUT', `/api/whitelist/${id}`, { token: admin, body: { telegramId: '999' } })).toMatchObject({
      status: 400,
      body: { error: 'The Telegram ID cannot be changed; add a new entry instead' },
    });
    expect(await server.request('GET', '/api/whitelist/check/111222333', { token: admin })).toMatchObject({
      status: 200,
      body: { whitelisted: true, entry: { _id: id } },
    });
    expect((await server.request('GET', '/api/whitelist/check/@ALICE_TG', { token: admin })).body.whitelisted).toBe(true);
    expect(await server.request('GET', '/api/whitelist/check/424242', { token: admin })).toEqual({ status: 200, body: { whitelisted: false } });
    expect((await server.request('DELETE', `/api/whitelist/entry/${id}`, { token: admin })).status).toBe(204);
    expect((await server.request('DELETE', `/api/whitelist/entry/${id}`, { token: admin })).status).toBe(404);
    expect((await entries()).map((e) => e.telegramId)).not.toContain('111222333');
    // Deleted for good, so the same Telegram ID may be added again as a new record.
    const again = await add({ telegramId: '111222333' });
    expect(again.status).toBe(201);
    expect(again.body.entry._id).not.toBe(id);
    expect((await server.request('DELETE', '/api/whitelist/111222333', { token: admin })).status).toBe(204);
  });

  it('when the form is bad, then it answers 400 with the rule', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'Telegram ID is required'],
      [{ telegramId: '' }, 'Telegram ID is required'],
      [{ telegramId: 'abc' }, 'Telegram ID must be a number (find it with a helper bot such as @userinfobot)'],
      [{ telegramId: '1', notes: 'n'.repeat(501) }, 'Notes must be at most 500 characters'],
      [{ telegramId: '1', username: 'bad name' }, 'Username can only contain letters, numbers and underscores'],
      [{ telegramId: '1', isActive: 'no' }, 'isActive must be true or false'],
      [{ telegramId: '1', role: 'admin' }, 'Unknown field: role'],
    ];
    for (const [body, error] of cases) {
      const response = await add(body);
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error });
    }
  });

  it('when an unknown Telegram user keeps writing, then one pending request counts the attempts; approve whitelists them', async () => {
    await knock('700800900', 'hello?', 'bob_tg');
    await knock('700800900', 'anyone there?', 'bob_tg');
    const pending = (await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests;
    expect(pending).toEqual([
      {
        _id: expect.any(String),
        telegramId: '700800900',
        username: 'bob_tg',
        firstName: 'Kno',
        lastName: 'Cker',
        firstAttemptAt: expect.any(String),
        lastAttemptAt: expect.any(String),
        attemptCount: 2,
        lastMessage: 'anyone there?',
      },
    ]);
    const approved = await server.request('POST', '/api/whitelist/access-requests/700800900/approve', { token: admin });
    expect(approved.body).toMatchObject({
      message: 'Approved bob_tg and added to whitelist',
      entry: { telegramId: '700800900', username: 'bob_tg', isActive: true },
    });
    expect((await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests).toEqual([]);
    expect((await entries()).find((e) => e.telegramId === '700800900')?.isActive).toBe(true);
    expect((await server.request('POST', '/api/whitelist/access-requests/700800900/approve', { token: admin })).status).toBe(404);
  });

  it('when a request is rejected or removed, then it leaves the pending list and a later message opens a new one', async () => {
    await knock('100200300', 'let me in', '');
    const [request] = (await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests;
    const rejected = await server.request('POST', `/api/whitelist/access-requests/${request._id}/reject`, { token: admin });
    expect(rejected.body.message).toBe('Rejected access request from 100200300');
    expect((await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests).toEqual([]);
    await knock('100200300', 'please?', '');
    const [reopened] = (await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests;
    expect(reopened).toMatchObject({ attemptCount: 1, lastMessage: 'please?' });
    expect(reopened._id).not.toBe(request._id);
    expect((await server.request('DELETE', `/api/whitelist/access-requests/entry/${reopened._id}`, { token: admin })).status).toBe(204);
    expect((await server.request('GET', '/api/whitelist/access-requests', { token: admin })).body.requests).toEqual([]);
    const history = (await server.deps.events.readStream('accessrequest-100200300')).map((e) => e.type);
    expect(history).toEqual(['AccessAttempted', 'AccessRequestRejected', 'AccessAttempted', 'AccessRequestRemoved']);
  });

  it('when an agent calls any whitelist route, then it is 403', async () => {
    const calls: Array<[string, string]> = [
      ['GET', '/api/whitelist'],
      ['POST', '/api/whitelist'],
      ['PUT', '/api/whitelist/1'],
      ['DELETE', '/api/whitelist/1'],
      ['DELETE', '/api/whitelist/entry/1'],
      ['GET', '/api/whitelist/check/1'],
      ['GET', '/api/whitelist/access-requests'],
      ['POST', '/api/whitelist/access-requests/1/approve'],
      ['POST', '/api/whitelist/access-requests/1/reject'],
      ['DELETE', '/api/whitelist/access-requests/entry/1'],
    ];
    for (const [method, url] of calls) {
      const response = await server.request(method, url, { token: agent, ...(method === 'GET' ? {} : { body: { telegramId: '5' } }) });
      expect({ method, url, status: response.status }).toEqual({ method, url, status: 403 });
    }
  });
});
