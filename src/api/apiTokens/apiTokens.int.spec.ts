import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { LiveClient } from '../../../test/support/liveClient';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { apiTokenStream } from '../../domain/apiToken/apiToken';
import { apiTokenDecider } from '../../domain/apiToken/decide';
import { handleCommand } from '../../platform/commands';
import { createApiToken } from '../../app/apiTokens/service';

describe('API tokens over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;
  let clockAheadMs = 0;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(Date.now() + clockAheadMs) });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin);
  }, 60_000);
  afterEach(() => {
    clockAheadMs = 0;
  });
  afterAll(() => server.stop());

  const create = async (body: Record<string, unknown>) => {
    const created = await server.request('POST', '/api/api-tokens', { token: admin, body: { label: 'Sync', ...body } });
    expect(created.status).toBe(201);
    return created.body as { token: { _id: string; label: string; status: string }; secret: string };
  };

  it('when an admin creates a token, then its secret is shown once, stored nowhere but as a digest, and works as a bearer with its scopes', async () => {
    const { token, secret } = await create({ label: 'CRM sync', userId: agent.id, scopes: ['tickets:read'] });
    expect(secret).toMatch(/^sdt_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ label: 'CRM sync', userId: agent.id, scopes: ['tickets:read'], status: 'active', owner: { role: 'agent' } });
    const list = await server.request('GET', '/api/api-tokens', { token: admin });
    expect(list.body.tokens.find((t: { _id: string }) => t._id === token._id)).toMatchObject({ label: 'CRM sync', lastUsedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(-43));
    const log = await server.deps.events.readAll({ maxCount: 100_000 });
    expect(JSON.stringify(log)).not.toContain(secret.slice(-43));
    expect(log.find((e) => e.type === 'ApiTokenCreated')?.metadata.actor).toMatchObject({ role: 'admin' });

    expect((await server.request('GET', '/api/tickets', { token: secret })).status).toBe(200);
    expect(await server.request('POST', '/api/tickets', { token: secret, body: { title: 'x', description: 'y', category } })).toMatchObject({
      status: 403,
      body: { code: 'INSUFFICIENT_SCOPE', error: 'This API token lacks the tickets:write scope' },
    });
    expect(await server.request('GET', '/api/users', { token: secret })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_SCOPE' } });
    // A wrong secret for a real token id is refused as any unknown token.
    expect(await server.request('GET', '/api/tickets', { token: `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}` })).toMatchObject({
      status: 401,
      body: { code: 'INVALID_TOKEN' },
    });
    // The last use reaches the admin's list.
    await eventually(
      async () => (await server.request('GET', '/api/api-tokens', { token: admin })).body.tokens.find((t: { _id: string }) => t._id === token._id).lastUsedAt,
    );
  });

  it('when a token is made for a named service account, then the account is made as a user of that role that cannot sign in, and acts through the token', async () => {
    const created = await server.request('POST', '/api/api-tokens', {
      token: admin,
      body: { label: 'CRM', serviceAccount: { name: 'crm_sync', role: 'agent' }, scopes: ['tickets:read'] },
    });
    expect(created).toMatchObject({ status: 201, body: { token: { owner: { username: 'svc_crm_sync', role: 'agent' } } } });
    expect((await server.request('GET', '/api/tickets', { token: created.body.secret })).status).toBe(200);
    expect(await server.request('GET', '/api/users', { token: created.body.secret })).toMatchObject({ status: 403 });
    const again = await server.request('POST', '/api/api-tokens', {
      token: admin,
      body: { label: 'CRM 2', serviceAccount: { name: 'crm_sync', role: 'agent' }, scopes: ['tickets:read'] },
    });
    expect(again).toMatchObject({
      status: 409,
      body: {
        code: 'SERVICE_ACCOUNT_TAKEN',
        error: 'A service account named crm_sync already exists; give its tokens to it by userId, or choose another name',
      },
    });
    const both = await server.request('POST', '/api/api-tokens', {
      token: admin,
      body: { label: 'x', userId: agent.id, serviceAccount: { name: 'other', role: 'agent' }, scopes: ['tickets:read'] },
    });
    expect(both).toMatchObject({ status: 400, body: { error: 'Give either userId or serviceAccount' } });
  });

  it('when a token has a scope its owner’s role lacks, then the role wins: the narrower of the two', async () => {
    const { secret } = await create({ userId: agent.id, scopes: ['admin'] });
    expect((await server.request('GET', '/api/tickets', { token: secret })).status).toBe(200);
    expect(await server.request('GET', '/api/users', { token: secret })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
  });

  it('when a token tries to manage tokens, sign out, or open the live socket, then it is refused', async () => {
    const { secret } = await create({ userId: (await server.signIn()).user._id, scopes: ['admin'] });
    expect((await server.request('GET', '/api/users', { token: secret })).status).toBe(200);
    for (const [method, url] of [
      ['POST', '/api/api-tokens'],
      ['GET', '/api/api-tokens'],
      ['POST', '/api/auth/logout'],
    ] as const) {
      const body = method === 'POST' ? { label: 'x', userId: agent.id, scopes: ['admin'] } : undefined;
      const answer = await server.request(method, url, { token: secret, body });
      expect({ url, status: answer.status, code: answer.body.code }).toEqual({ url, status: 403, code: 'TOKEN_NOT_ALLOWED' });
    }
    await expect(LiveClient.connect(server.url, secret)).rejects.toThrow();
  });

  it('when a token tries to mint a token, by any spelling of the path or through the service, then it is refused and nothing is stored', async () => {
    const owner = (await server.signIn()).user._id;
    const { token, secret } = await create({ userId: owner, scopes: ['admin'] });
    const minted = async () => (await server.deps.events.readAll({ maxCount: 100_000 })).filter((e) => e.type === 'ApiTokenCreated').length;
    const before = await minted();
    const body = { label: 'Child', userId: owner, scopes: ['admin' as const] };
    for (const url of ['/api/api-tokens', '/api/API-TOKENS', '/api/api-tokens/', '/api/Api-Tokens/']) {
      const answer = await server.request('POST', url, { token: secret, body });
      expect({ url, status: answer.status, code: answer.body.code }).toEqual({
        url,
        status: url === '/api/api-tokens' ? 403 : 404,
        code: url === '/api/api-tokens' ? 'TOKEN_NOT_ALLOWED' : 'NOT_FOUND',
      });
    }
    const throughToken = { actor: { userId: owner, role: 'admin', platform: 'api' as const, token: { id: token._id, label: token.label } }, now: new Date() };
    await expect(createApiToken(server.deps, { ...body, expiresAt: null }, throughToken)).rejects.toMatchObject({ status: 403, code: 'TOKEN_NOT_ALLOWED' });
    expect(await minted()).toBe(before);
  });

  it('when a token was made through a token (as the API once allowed), then it is refused once its maker is revoked', async () => {
    const owner = (await server.signIn()).user._id;
    const maker = await create({ userId: owner, scopes: ['admin'] });
    // What the API wrote before it refused tokens on /api-tokens: a creation whose actor is the maker token.
    const tokenId = randomUUID();
    const secret = `sdt_${tokenId}_${randomBytes(32).toString('base64url')}`;
    const madeByToken = { actor: { userId: owner, role: 'admin', platform: 'api' as const, token: { id: maker.token._id, label: 'Sync' } }, now: new Date() };
    const creation = {
      tokenId,
      label: 'Child',
      userId: owner,
      scopes: ['admin' as const],
      expiresAt: null,
      secretHash: createHash('sha256').update(secret).digest('hex'),
    };
    await handleCommand(
      server.deps.events,
      apiTokenStream(tokenId),
      apiTokenDecider,
      { type: 'CreateApiToken', now: new Date().toISOString(), ...creation },
      madeByToken,
    );
    expect((await server.request('GET', '/api/users', { token: secret })).status).toBe(200);
    expect((await server.request('DELETE', `/api/api-tokens/${maker.token._id}`, { token: admin })).status).toBe(200);
    expect(await server.request('GET', '/api/users', { token: secret })).toMatchObject({
      status: 401,
      body: { code: 'TOKEN_REVOKED', error: 'The API token that made this one has been revoked' },
    });
  });

  it('when a token acts, then the ticket history names it and its owner as the actor', async () => {
    const ticket = await openTicket(server, await addMember(server, admin, 'customer'), category);
    const { secret } = await create({ label: 'Helpdesk bot', userId: agent.id, scopes: ['tickets:read', 'messages:write'] });
    const posted = await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: secret, body: { content: 'Answered by the bot' } });
    expect(posted.status).toBe(201);
    const history = await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin });
    const event = history.body.events.find((e: { type: string }) => e.type === 'MessagePosted');
    expect(event.actor).toMatchObject({ userId: agent.id, name: 'Alice Tester', role: 'agent', platform: 'api', token: { label: 'Helpdesk bot' } });
  });

  it('when staff use a token without notes:read, then internal notes are left out and the whole-history routes refused', async () => {
    const ticket = await openTicket(server, await addMember(server, admin, 'customer'), category);
    expect(
      (await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'secret note', isInternal: true } })).status,
    ).toBe(201);
    const plain = (await create({ userId: agent.id, scopes: ['tickets:read'] })).secret;
    const notes = (await create({ userId: agent.id, scopes: ['tickets:read', 'notes:read'] })).secret;
    const contents = async (token: string) =>
      (await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token })).body.messages.map((m: { content: string }) => m.content);
    expect(await contents(plain)).not.toContain('secret note');
    expect(await contents(notes)).toContain('secret note');
    // Nor do the ticket's counts and times tell of the note: the token sees them as the conversation it reads.
    const seen = async (token: string) => (await server.request('GET', `/api/tickets/${ticket._id}`, { token })).body.ticket;
    const [withoutNotes, withNotes] = [await seen(plain), await seen(notes)];
    expect(withoutNotes).toMatchObject({ messageCount: 0, lastMessageAt: null });
    expect(withNotes).toMatchObject({ messageCount: 1, lastMessageAt: expect.any(String) });
    expect((await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: plain })).status).toBe(403);
    expect((await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: notes })).status).toBe(200);
    // Search reads the notes too: the same rule.
    expect(await server.request('GET', '/api/search?q=secret', { token: plain })).toMatchObject({
      status: 403,
      body: { error: 'This API token lacks the notes:read scope' },
    });
    expect((await server.request('GET', '/api/search?q=secret', { token: notes })).status).toBe(200);
    // Nor does the ticket list's word filter (the same engine) find a ticket by its note's words.
    const found = async (token: string) => (await server.request('GET', '/api/tickets?q=secret', { token })).body.tickets.map((t: { _id: string }) => t._id);
    expect(await found(plain)).not.toContain(ticket._id);
    expect(await found(notes)).toContain(ticket._id);
  });

  it('when a token expires, then it is refused from that moment', async () => {
    const { secret } = await create({ userId: agent.id, scopes: ['tickets:read'], expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await server.request('GET', '/api/tickets', { token: secret })).status).toBe(200);
    clockAheadMs = 3_601_000;
    expect(await server.request('GET', '/api/tickets', { token: secret })).toMatchObject({ status: 401, body: { code: 'TOKEN_EXPIRED' } });
  });

  it('when the form is wrong, then it answers 400 naming the rule and stores nothing', async () => {
    const created = async () => (await server.deps.events.readAll({ maxCount: 100_000 })).filter((e) => e.type === 'ApiTokenCreated').length;
    const before = await created();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ label: '', userId: agent.id, scopes: ['tickets:read'] }, 'Label is required'],
      [{ label: 'x', userId: agent.id, scopes: [] }, 'Give the token at least one scope'],
      [{ label: 'x', userId: agent.id, scopes: ['root'] }, 'Each scope must be one of tickets:read, tickets:write, messages:write, notes:read, admin'],
      [{ label: 'x', userId: 'nobody', scopes: ['tickets:read'] }, 'userId must be the id of a user'],
      [{ label: 'x', userId: agent.id, scopes: ['tickets:read'], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
      [{ label: 'x', userId: agent.id, scopes: ['tickets:read'], expiresAt: 'tomorrow' }, 'expiresAt must be an ISO-8601 date and time'],
    ];
    for (const [body, error] of cases) {
      const answer = await server.request('POST', '/api/api-tokens', { token: admin, body });
      expect({ body, status: answer.status, error: answer.body.error }).toEqual({ body, status: 400, error });
    }
    expect(await created()).toBe(before);
    expect((await server.request('POST', '/api/api-tokens', { token: agent.token, body: { label: 'x', userId: agent.id, scopes: ['admin'] } })).status).toBe(
      403,
    );
  });

  it('when a token calls, then it has a rate limit of its own, not its owner’s', async () => {
    const { secret } = await create({ userId: agent.id, scopes: ['tickets:read'] });
    const byToken = await server.request('GET', '/api/tickets', { token: secret });
    const byPerson = await server.request('GET', '/api/tickets', { token: agent.token });
    expect(byToken.headers.get('ratelimit-limit')).toBe('600');
    // A person's reads may be ten times the setting (raised to 1000 by the test server).
    expect(byPerson.headers.get('ratelimit-limit')).toBe('10000');
  });

  it('when a token is revoked on one process, then a second process on the same log refuses it at its next call', async () => {
    const second = await startTestServer({ dataDir: server.dataDir });
    try {
      const { token, secret } = await create({ userId: agent.id, scopes: ['tickets:read'] });
      expect((await second.request('GET', '/api/tickets', { token: secret })).status).toBe(200);
      const revoked = await server.request('DELETE', `/api/api-tokens/${token._id}`, { token: admin });
      expect(revoked).toMatchObject({ status: 200, body: { token: { status: 'revoked' } } });
      expect(await second.request('GET', '/api/tickets', { token: secret })).toMatchObject({ status: 401, body: { code: 'TOKEN_REVOKED' } });
      expect(await server.request('GET', '/api/tickets', { token: secret })).toMatchObject({ status: 401, body: { code: 'TOKEN_REVOKED' } });
      const log = await server.deps.events.readStream(`apitoken-${token._id}`);
      expect(log.map((e) => [e.type, e.metadata.actor?.role])).toEqual([
        ['ApiTokenCreated', 'admin'],
        ['ApiTokenRevoked', 'admin'],
      ]);
    } finally {
      await second.stop({ keepData: true });
    }
  }, 60_000);
});
