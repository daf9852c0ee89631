import jwt from 'jsonwebtoken';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';

const registration = (name: string) => ({ username: name, email: `${name}@example.com`, password: 'secret-123', firstName: 'Test', lastName: name });

describe('Identity over HTTP', () => {
  let server: TestServer;
  /** Moves the server's clock forward (past the refresh-token reuse grace window). */
  let clockAheadMs = 0;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(Date.now() + clockAheadMs) });
  });
  afterEach(() => {
    clockAheadMs = 0;
  });
  afterAll(() => server.stop());

  const register = (body: unknown) => server.request('POST', '/api/auth/register', { body });

  describe('register', () => {
    it('when the form is valid, then it answers 201 with a customer and a pair of tokens, and never a hash', async () => {
      const response = await register({ ...registration('Grace_H'), role: 'admin' });
      expect(response.status).toBe(201);
      expect(response.body.user).toEqual({
        _id: expect.any(String),
        username: 'grace_h',
        email: 'grace_h@example.com',
        firstName: 'Test',
        lastName: 'Grace_H',
        role: 'customer',
        isActive: true,
        lastLogin: expect.any(String),
        telegramUsername: null,
        createdByEmail: false,
        createdAt: expect.any(String),
      });
      // Registering signs in: the admin's Users tab says when, not "Never".
      expect(response.body.user.lastLogin).toBe(response.body.user.createdAt);
      expect(response.body.accessToken).toEqual(expect.any(String));
      expect(response.body.refreshToken).toEqual(expect.any(String));
      expect(JSON.stringify(response.body)).not.toMatch(/argon2|password/i);
      const profile = await server.request('GET', '/api/auth/profile', { token: response.body.accessToken });
      expect(profile).toMatchObject({ status: 200, body: { user: { username: 'grace_h', role: 'customer' } } });
      const views = await server.deps.readStore.collection('users_v1').find({});
      expect(JSON.stringify(views)).not.toMatch(/argon2|passwordHash/);
    });

    it('when a field breaks a rule of docs/product.md section 5, then it answers 400 with that rule and stores nothing', async () => {
      const before = await server.deps.events.headPosition();
      const cases: Array<[unknown, string]> = [
        [{ ...registration('short_pw'), password: '12345' }, 'Password must be at least 6 characters long'],
        [{ ...registration('x'), username: 'ab' }, 'Username must be between 3 and 30 characters'],
        [{ ...registration('x'), username: 'a'.repeat(31) }, 'Username must be between 3 and 30 characters'],
        [{ ...registration('x'), username: 'bad name!' }, 'Username can only contain lowercase letters, numbers and underscores'],
        [{ ...registration('bad_mail'), email: 'not-an-email' }, 'Please enter a valid email address'],
        [{ ...registration('long_name'), firstName: 'a'.repeat(51) }, 'First name must be at most 50 characters'],
        [{ ...registration('blank_name'), lastName: '   ' }, 'Last name is required'],
        [{ ...registration('no_mail'), email: undefined }, 'Email is required'],
        [{ ...registration('typed'), password: 123456 }, 'Password is required'],
        [{ ...registration('huge_pw'), password: 'x'.repeat(10_000) }, 'Password must be at most 128 characters'],
        [{ ...registration('extra'), isAdmin: true }, 'Unknown field: isAdmin'],
        [['not', 'an', 'object'], 'Invalid input: expected object, received array'],
      ];
      for (const [body, message] of cases) {
        const response = await register(body);
        expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error: message });
        expect(response.body.code).toBe('VALIDATION_FAILED');
      }
      const empty = await register({});
      expect(empty.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'firstName', 'lastName', 'password', 'username']);
      expect(await server.deps.events.headPosition()).toBe(before);
    });

    it('when the e-mail or username is taken (in any case), then it answers 409 and the first account is untouched', async () => {
      expect((await register(registration('taken'))).status).toBe(201);
      const sameEmail = await register({ ...registration('other'), email: 'TAKEN@example.com' });
      expect(sameEmail).toMatchObject({ status: 409, body: { error: 'An account with this e-mail already exists', code: 'EMAIL_TAKEN' } });
      const sameName = await register({ ...registration('other2'), username: 'TAKEN' });
      expect(sameName).toMatchObject({ status: 409, body: { code: 'USERNAME_TAKEN' } });
      // The losing attempt released its own claims: other2's e-mail is still free.
      expect((await register(registration('other2'))).status).toBe(201);
    });

    it('when 20 registrations race with one e-mail, then exactly one succeeds', async () => {
      const attempts = await Promise.all(Array.from({ length: 20 }, (_, i) => register({ ...registration(`racer_${i}`), email: 'race@example.com' })));
      const statuses = attempts.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      expect(await server.deps.readStore.collection('users_v1').count({ email: 'race@example.com' })).toBe(1);
      const log = await server.deps.events.readAll({ maxCount: 100_000 });
      expect(log.filter((e) => e.type === 'UserRegistered' && (e.data as { email: string }).email === 'race@example.com')).toHaveLength(1);
      // The 19 losers' usernames were released and can be used.
      const loser = attempts.findIndex((a) => a.status === 409);
      expect((await register({ ...registration(`racer_${loser}`), email: `racer_${loser}@example.com` })).status).toBe(201);
    });
  });

  describe('login', () => {
    it('when the password is right, then it answers the user with lastLogin and two tokens', async () => {
      const response = await server.request('POST', '/api/auth/login', { body: { email: ' Admin@Example.com ', password: ADMIN.password } });
      expect(response.status).toBe(200);
      expect(response.body.user).toMatchObject({ email: ADMIN.email, role: 'admin', lastLogin: expect.any(String) });
      expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'refreshToken', 'user']);
    });

    it('when the password or e-mail is wrong, then both answer the same 401', async () => {
      await register(registration('wrong_pw'));
      const wrong = await server.request('POST', '/api/auth/login', { body: { email: 'wrong_pw@example.com', password: 'nope-nope' } });
      const unknown = await server.request('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'nope-nope' } });
      expect(wrong).toEqual({ status: 401, body: { error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' } });
      expect(unknown).toEqual(wrong);
    });

    it('when fields are missing or of the wrong type, then it answers 400', async () => {
      expect(await server.request('POST', '/api/auth/login', { body: { email: 'a@b.c' } })).toMatchObject({
        status: 400,
        body: { error: 'Password is required' },
      });
      expect(await server.request('POST', '/api/auth/login', { body: { email: 42, password: 'x' } })).toMatchObject({
        status: 400,
        body: { error: 'Email is required' },
      });
    });

    it('when the body is not sent as JSON, then it answers 415 with what to send', async () => {
      expect(await server.request('POST', '/api/auth/login', { body: 'email=a', headers: { 'content-type': 'text/plain' } })).toMatchObject({
        status: 415,
        body: { code: 'UNSUPPORTED_MEDIA_TYPE', error: 'Send the body as JSON (Content-Type: application/json)' },
      });
    });

    it('when one account keeps failing from one address, then a further wrong password from there is refused with 429, and other accounts are not', async () => {
      await register(registration('target'));
      for (let i = 0; i < 5; i++) {
        const failed = await server.request('POST', '/api/auth/login', { body: { email: 'target@example.com', password: `guess-${i}` } });
        expect(failed.status).toBe(401);
      }
      const refused = await server.request('POST', '/api/auth/login', { body: { email: 'target@example.com', password: 'guess-again' } });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'Too many failed sign-in attempts. Please try again in 15 minutes.', code: 'RATE_LIMITED' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
      const other = await server.request('POST', '/api/auth/login', { body: { email: 'taken@example.com', password: 'secret-123' } });
      expect(other.status).toBe(200);
    });
  });

  describe('refresh', () => {
    it('when the current refresh token is spent, then a new pair comes back and both new tokens work', async () => {
      const first = await server.signIn();
      const refreshed = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
      expect(refreshed.status).toBe(200);
      expect(Object.keys(refreshed.body).sort()).toEqual(['accessToken', 'refreshToken']);
      expect(refreshed.body.refreshToken).not.toBe(first.refreshToken);
      expect((await server.request('GET', '/api/auth/profile', { token: refreshed.body.accessToken })).status).toBe(200);
      const again = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: refreshed.body.refreshToken } });
      expect(again.status).toBe(200);
    });

    it('when a spent refresh token comes back after its successor was spent, then it is refused and the whole family is revoked', async () => {
      const first = await server.signIn();
      const second = (await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } })).body;
      const third = (await server.request('POST', '/api/auth/refresh', { body: { refreshToken: second.refreshToken } })).body;
      const reuse = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
      expect(reuse).toMatchObject({ status: 401, body: { code: 'REFRESH_TOKEN_REUSED' } });
      const stolen = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: third.refreshToken } });
      expect(stolen).toMatchObject({ status: 401, body: { code: 'SESSION_ENDED' } });
      for (const token of [first.accessToken, second.accessToken, third.accessToken]) {
        expect(await server.request('GET', '/api/auth/profile', { token })).toMatchObject({ status: 401, body: { code: 'SESSION_ENDED' } });
      }
      // Another sign-in of the same user is a different family and still works.
      expect((await server.request('GET', '/api/auth/profile', { token: await server.login() })).status).toBe(200);
    });

    it('when the token just spent comes back within the grace window, then it gets the same successor and the session lives on', async () => {
      const first = await server.signIn();
      const lost = (await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } })).body;
      clockAheadMs = 25_000;
      const again = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
      expect(again.status).toBe(200);
      expect(again.body.refreshToken).toBe(lost.refreshToken);
      expect((await server.request('GET', '/api/auth/profile', { token: again.body.accessToken })).status).toBe(200);
      expect((await server.request('GET', '/api/auth/profile', { token: lost.accessToken })).status).toBe(200);
      const next = await server.request('POST', '/api/auth/refresh', { body: { refreshToken: lost.refreshToken } });
      expect(next.status).toBe(200);
      expect(next.body.refreshToken).not.toBe(lost.refreshToken);
      const log = await server.deps.events.readStream(`session-${first.refreshToken.split('.')[0]}`);
      expect(log.map((event) => event.type)).toEqual(['SessionStarted', 'RefreshTokenRotated', 'RefreshTokenRotated']);
    });

    it('when the token just spent comes back after the grace window, then it is refused and the whole family is revoked', async () => {
      const first = await server.signIn();
      const second = (await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } })).body;
      clockAheadMs = 31_000;
      expect(await server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } })).toMatchObject({
        status: 401,
        body: { code: 'REFRESH_TOKEN_REUSED' },
      });
      expect(await server.request('GET', '/api/auth/profile', { token: second.accessToken })).toMatchObject({ status: 401, body: { code: 'SESSION_ENDED' } });
    });

    it('when two refreshes race with one token, then both get the same successor and the family lives on', async () => {
      const first = await server.signIn();
      const both = await Promise.all([1, 2].map(() => server.request('POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } })));
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(both[0]!.body.refreshToken).toBe(both[1]!.body.refreshToken);
      for (const answer of both) expect((await server.request('GET', '/api/auth/profile', { token: answer.body.accessToken })).status).toBe(200);
    });

    it('when the refresh token is forged, missing or of the wrong type, then it is refused', async () => {
      const { refreshToken } = await server.signIn();
      const [sessionId] = refreshToken.split('.');
      expect(await server.request('POST', '/api/auth/refresh', { body: { refreshToken: `${sessionId}.forged` } })).toMatchObject({
        status: 401,
        body: { code: 'INVALID_REFRESH_TOKEN' },
      });
      expect(await server.request('POST', '/api/auth/refresh', { body: { refreshToken: 'garbage' } })).toMatchObject({
        status: 401,
        body: { code: 'INVALID_REFRESH_TOKEN' },
      });
      expect(await server.request('POST', '/api/auth/refresh', { body: {} })).toMatchObject({ status: 400, body: { error: 'Refresh token is required' } });
      expect((await server.request('POST', '/api/auth/refresh', { body: { refreshToken: ['x'] } })).status).toBe(400);
      // The forgery did not revoke the real family.
      expect((await server.request('POST', '/api/auth/refresh', { body: { refreshToken } })).status).toBe(200);
    });
  });

  describe('logout', () => {
    it('when signed out with the access token, then that access token and its refresh token stop working at once', async () => {
      const session = await server.signIn();
      expect((await server.request('POST', '/api/auth/logout', { token: session.accessToken })).status).toBe(204);
      expect(await server.request('GET', '/api/auth/profile', { token: session.accessToken })).toMatchObject({ status: 401, body: { code: 'SESSION_ENDED' } });
      expect((await server.request('POST', '/api/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    });

    it('when signed out with only the refresh token (access expired), then the session ends too', async () => {
      const session = await server.signIn();
      expect((await server.request('POST', '/api/auth/logout', { body: { refreshToken: session.refreshToken } })).status).toBe(204);
      expect((await server.request('GET', '/api/auth/profile', { token: session.accessToken })).status).toBe(401);
      expect((await server.request('POST', '/api/auth/logout', { body: { refreshToken: 'forged' } })).status).toBe(401);
      expect((await server.request('POST', '/api/auth/logout')).status).toBe(401);
    });
  });

  describe('access tokens', () => {
    const secret = () => server.deps.jwtSecret;
    const sign = (payload: object, options: jwt.SignOptions = {}, key: string = secret()) =>
      jwt.sign(payload, key, {
        algorithm: 'HS256',
        issuer: 'support-desk',
        audience: 'support-desk-api',
        ...('exp' in payload ? {} : { expiresIn: 900 }),
        ...options,
      });
    const withoutExpiry = (payload: object) => jwt.sign(payload, secret(), { algorithm: 'HS256', issuer: 'support-desk', audience: 'support-desk-api' });

    it('when a token is tampered, wrongly signed, unsigned, expired or of another kind, then every route answers 401', async () => {
      const { accessToken, user } = await server.signIn();
      const claims = jwt.decode(accessToken) as { sid: string };
      const [header, payload, signature] = accessToken.split('.');
      const raised = Buffer.from(
        JSON.stringify({ ...(JSON.parse(Buffer.from(payload!, 'base64url').toString()) as object), role: 'admin', sub: 'someone-else' }),
      ).toString('base64url');
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
      const base = { sub: user._id, sid: claims.sid, typ: 'access' };
      const bad: Array<[string, string, string]> = [
        ['tampered payload', `${header}.${raised}.${signature}`, 'INVALID_TOKEN'],
        ['alg none', none, 'INVALID_TOKEN'],
        ['wrong secret', sign(base, {}, 'x'.repeat(40)), 'INVALID_TOKEN'],
        ['expired', sign({ ...base, exp: Math.floor(Date.now() / 1000) - 10 }), 'TOKEN_EXPIRED'],
        ['no expiry', withoutExpiry(base), 'INVALID_TOKEN'],
        ['wrong audience', sign(base, { audience: 'someone-else' }), 'INVALID_TOKEN'],
        ['wrong issuer', sign(base, { issuer: 'someone-else' }), 'INVALID_TOKEN'],
        ['refresh type', sign({ ...base, typ: 'refresh' }), 'INVALID_TOKEN'],
        ['HS512', sign(base, { algorithm: 'HS512' }), 'INVALID_TOKEN'],
        ['unknown session', sign({ ...base, sid: '00000000-0000-4000-8000-000000000000' }), 'INVALID_TOKEN'],
        ['garbage', 'not.a.jwt', 'INVALID_TOKEN'],
      ];
      for (const [name, token, code] of bad) {
        const response = await server.request('GET', '/api/auth/profile', { token });
        expect({ name, status: response.status, code: response.body.code }).toEqual({ name, status: 401, code });
      }
      expect((await server.request('GET', '/api/auth/profile', { token: sign(base) })).status).toBe(200);
      expect(await server.request('GET', '/api/auth/profile', { headers: { authorization: `Basic ${accessToken}` } })).toMatchObject({ status: 401 });
      expect(await server.request('GET', '/api/auth/profile')).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    });

    it('when a client still sends an expired token to a public route, then sign-in and refresh still work', async () => {
      const expired = jwt.sign({ typ: 'access', sid: 'x' }, secret(), { algorithm: 'HS256', subject: 'x', expiresIn: -10 });
      const login = await server.request('POST', '/api/auth/login', { token: expired, body: { email: ADMIN.email, password: ADMIN.password } });
      expect(login.status).toBe(200);
      const refresh = await server.request('POST', '/api/auth/refresh', { token: expired, body: { refreshToken: login.body.refreshToken } });
      expect(refresh.status).toBe(200);
    });
  });

  describe('notification preferences', () => {
    it('when staff read and change them, then changes merge and stick; customers are refused', async () => {
      const admin = await server.login();
      expect(await server.request('GET', '/api/auth/notifications/preferences', { token: admin })).toEqual({
        status: 200,
        body: { notificationPreferences: { newTickets: false, ticketUpdates: false, browserNotifications: false, mentionEmails: false } },
      });
      const put = await server.request('PUT', '/api/auth/notifications/preferences', { token: admin, body: { newTickets: true } });
      expect(put.body.notificationPreferences).toEqual({ newTickets: true, ticketUpdates: false, browserNotifications: false, mentionEmails: false });
      const again = await server.request('PUT', '/api/auth/notifications/preferences', {
        token: admin,
        body: { ticketUpdates: true, browserNotifications: true },
      });
      expect(again.body.notificationPreferences).toEqual({ newTickets: true, ticketUpdates: true, browserNotifications: true, mentionEmails: false });
      expect(await server.request('PUT', '/api/auth/notifications/preferences', { token: admin, body: { newTickets: 'yes' } })).toMatchObject({
        status: 400,
        body: { error: 'newTickets must be true or false' },
      });
      const customer = (await register(registration('prefs_customer'))).body.accessToken;
      expect((await server.request('GET', '/api/auth/notifications/preferences', { token: customer })).status).toBe(403);
      expect((await server.request('PUT', '/api/auth/notifications/preferences', { token: customer, body: { newTickets: true } })).status).toBe(403);
    });
  });
});
