import { type TestServer, startTestServer } from '../../../test/support/server';

const person = (name: string, role = 'agent') => ({
  firstName: 'First',
  lastName: name,
  username: name,
  email: `${name}@example.com`,
  password: 'secret-123',
  role,
});

describe('User administration over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let adminId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const session = await server.signIn();
    admin = session.accessToken;
    adminId = session.user._id;
  });
  afterAll(() => server.stop());

  const create = (body: unknown, token = admin) => server.request('POST', '/api/users', { token, body });
  const update = (id: string, body: unknown, token = admin) => server.request('PUT', `/api/users/${id}`, { token, body });

  it('when an admin creates a user of any role, then it is listed, readable and can sign in', async () => {
    const created = await create(person('agent_smith'));
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ username: 'agent_smith', role: 'agent', isActive: true, lastLogin: null });
    expect(JSON.stringify(created.body)).not.toMatch(/password|argon2/i);
    const one = await server.request('GET', `/api/users/${created.body.user._id}`, { token: admin });
    expect(one.body.user).toEqual(created.body.user);
    const session = await server.signIn('agent_smith@example.com', 'secret-123');
    expect(session.user.role).toBe('agent');
    const inactive = await create({ ...person('dormant', 'customer'), isActive: false });
    expect(inactive.body.user.isActive).toBe(false);
    expect(await server.request('POST', '/api/auth/login', { body: { email: 'dormant@example.com', password: 'secret-123' } })).toMatchObject({
      status: 403,
      body: { error: 'This account has been deactivated', code: 'ACCOUNT_DEACTIVATED' },
    });
  });

  it('when the form is bad, then it answers 400 with the rule of docs/product.md section 5', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...person('no_role'), role: 'superuser' }, 'Role must be customer, agent or admin'],
      [{ ...person('no_pw'), password: '' }, 'Password is required'],
      [{ ...person('short'), password: 'abc' }, 'Password must be at least 6 characters long'],
      [{ ...person('flag'), isActive: 'yes' }, 'isActive must be true or false'],
      [{ ...person('long'), lastName: 'x'.repeat(51) }, 'Last name must be at most 50 characters'],
      [{ ...person('extra'), passwordHash: 'x' }, 'Unknown field: passwordHash'],
    ];
    for (const [body, message] of cases) {
      const response = await create(body);
      expect({ status: response.status, error: response.body.error }).toEqual({ status: 400, error: message });
    }
  });

  it('when the list is asked with page, role and search, then it pages and filters on the server', async () => {
    for (const name of ['list_a', 'list_b', 'list_c']) await create(person(name, 'customer'));
    const page = await server.request('GET', '/api/users?role=customer&q=LIST_&limit=2&page=1', { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2 });
    expect(page.body.users).toHaveLength(2);
    const second = await server.request('GET', '/api/users?role=customer&q=list_&limit=2&page=2', { token: admin });
    expect(second.body.users).toHaveLength(1);
    const names = [...page.body.users, ...second.body.users].map((u: { username: string }) => u.username).sort();
    expect(names).toEqual(['list_a', 'list_b', 'list_c']);
    const regexy = await server.request('GET', `/api/users?q=${encodeURIComponent('.*(')}`, { token: admin });
    expect(regexy).toMatchObject({ status: 200, body: { users: [], pagination: { total: 0 } } });
    expect(await server.request('GET', '/api/users?limit=5000', { token: admin })).toMatchObject({
      status: 400,
      body: { error: 'limit must be at most 1000' },
    });
    expect(await server.request('GET', '/api/users?page=0', { token: admin })).toMatchObject({ status: 400, body: { error: 'page must be at least 1' } });
    expect((await server.request('GET', '/api/users?role=root', { token: admin })).status).toBe(400);
  });

  it('when stats are asked, then they count users by role and status', async () => {
    const stats = await server.request('GET', '/api/users/stats', { token: admin });
    expect(stats.status).toBe(200);
    const total = (await server.request('GET', '/api/users?limit=1000', { token: admin })).body.pagination.total;
    expect(stats.body.total).toBe(total);
    expect(stats.body.byRole.customer + stats.body.byRole.agent + stats.body.byRole.admin).toBe(total);
    expect(stats.body.active + stats.body.inactive).toBe(total);
    expect(stats.body.byRole.admin).toBeGreaterThanOrEqual(1);
    expect(stats.body).toHaveProperty('activeAgents');
  });

  it('when an admin edits with a blank password, then the old password still works; a new one replaces it and ends their sessions', async () => {
    const { body } = await create(person('pw_user', 'customer'));
    const id = body.user._id as string;
    const before = await server.signIn('pw_user@example.com', 'secret-123');
    const kept = await update(id, { firstName: 'Renamed', password: '' });
    expect(kept.body.user.firstName).toBe('Renamed');
    expect((await server.request('GET', '/api/auth/profile', { token: before.accessToken })).status).toBe(200);
    await server.signIn('pw_user@example.com', 'secret-123');
    await update(id, { password: 'brand-new-1' });
    expect(await server.request('GET', '/api/auth/profile', { token: before.accessToken })).toMatchObject({ status: 401, body: { code: 'SESSION_ENDED' } });
    expect((await server.request('POST', '/api/auth/login', { body: { email: 'pw_user@example.com', password: 'secret-123' } })).status).toBe(401);
    await server.signIn('pw_user@example.com', 'brand-new-1');
    expect(await update(id, { password: 'abc' })).toMatchObject({ status: 400, body: { error: 'Password must be at least 6 characters long' } });
  });

  it('when a user is deactivated, then their old token is refused on the next call, and sign-in and refresh too', async () => {
    const { body } = await create(person('leaver', 'customer'));
    const id = body.user._id as string;
    const session = await server.signIn('leaver@example.com', 'secret-123');
    expect((await update(id, { isActive: false })).body.user.isActive).toBe(false);
    expect(await server.request('GET', '/api/auth/profile', { token: session.accessToken })).toMatchObject({
      status: 401,
      body: { code: 'ACCOUNT_DEACTIVATED' },
    });
    expect((await server.request('POST', '/api/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await server.request('POST', '/api/auth/login', { body: { email: 'leaver@example.com', password: 'secret-123' } })).status).toBe(403);
    await update(id, { isActive: true });
    // Reactivation lets them sign in again, but the sessions from before stay dead.
    expect((await server.request('GET', '/api/auth/profile', { token: session.accessToken })).status).toBe(401);
    const fresh = await server.signIn('leaver@example.com', 'secret-123');
    expect((await server.request('GET', '/api/auth/profile', { token: fresh.accessToken })).status).toBe(200);
  });

  it('when a role changes, then it holds from the next call with the same token', async () => {
    const { body } = await create(person('climber', 'agent'));
    const token = await server.login('climber@example.com', 'secret-123');
    expect((await server.request('GET', '/api/users', { token })).status).toBe(403);
    await update(body.user._id, { role: 'admin' });
    expect((await server.request('GET', '/api/users', { token })).status).toBe(200);
    await update(body.user._id, { role: 'customer' });
    expect((await server.request('GET', '/api/auth/notifications/preferences', { token })).status).toBe(403);
  });

  it('when an agent or customer tries user administration, then every call is 403 and nothing changes', async () => {
    const { body } = await create(person('plain_agent', 'agent'));
    const agent = await server.login('plain_agent@example.com', 'secret-123');
    const before = await server.deps.events.headPosition();
    expect((await update(body.user._id, { role: 'admin' }, agent)).status).toBe(403);
    expect((await update(adminId, { isActive: false }, agent)).status).toBe(403);
    expect((await create(person('sneaky', 'admin'), agent)).status).toBe(403);
    expect((await server.request('DELETE', `/api/users/${adminId}`, { token: agent })).status).toBe(403);
    expect((await server.request('GET', '/api/users/stats', { token: agent })).status).toBe(403);
    expect((await server.request('GET', `/api/users/${adminId}`, { token: agent })).status).toBe(403);
    expect(await server.deps.events.headPosition()).toBe(before);
    const customer = (await server.request('POST', '/api/auth/register', { body: { ...person('plain_customer'), role: 'admin' } })).body;
    expect(customer.user.role).toBe('customer');
    expect((await server.request('GET', '/api/users', { token: customer.accessToken })).status).toBe(403);
    expect((await update(customer.user._id, { role: 'admin' }, customer.accessToken)).status).toBe(403);
    expect((await server.request('GET', '/api/users')).status).toBe(401);
    expect((await server.request('GET', `/api/users/${body.user._id}`, { token: admin })).body.user.role).toBe('agent');
  });

  it('when admins act on themselves, then they cannot delete, demote or deactivate their own account', async () => {
    expect(await server.request('DELETE', `/api/users/${adminId}`, { token: admin })).toEqual({
      status: 403,
      body: { error: 'Cannot delete your own account', code: 'CANNOT_DELETE_SELF' },
    });
    expect(await update(adminId, { role: 'agent' })).toMatchObject({ status: 403, body: { error: 'You cannot change your own role' } });
    expect(await update(adminId, { isActive: false })).toMatchObject({ status: 403, body: { error: 'You cannot deactivate your own account' } });
    expect((await update(adminId, { firstName: 'Still', role: 'admin' })).status).toBe(200);
  });

  it('when a user is deleted, then their token dies, they vanish from lists, and their e-mail and username are free again', async () => {
    const { body } = await create(person('goner', 'customer'));
    const id = body.user._id as string;
    const token = await server.login('goner@example.com', 'secret-123');
    expect((await server.request('DELETE', `/api/users/${id}`, { token: admin })).status).toBe(204);
    expect((await server.request('GET', '/api/auth/profile', { token })).status).toBe(401);
    expect((await server.request('GET', `/api/users/${id}`, { token: admin })).status).toBe(404);
    expect((await server.request('DELETE', `/api/users/${id}`, { token: admin })).status).toBe(404);
    expect((await create(person('goner', 'customer'))).status).toBe(201);
    const history = await server.deps.events.readStream(`user-${id}`);
    expect(history.map((e) => e.type)).toEqual(['UserCreated', 'UserSignedIn', 'UserDeleted']);
  });

  it('when an e-mail or username changes, then the new one is claimed and the old one freed', async () => {
    const a = (await create(person('mover', 'customer'))).body.user._id as string;
    await create(person('stayer', 'customer'));
    expect(await update(a, { email: 'STAYER@example.com' })).toMatchObject({ status: 409, body: { code: 'EMAIL_TAKEN' } });
    expect(await update(a, { username: 'stayer' })).toMatchObject({ status: 409, body: { code: 'USERNAME_TAKEN' } });
    const moved = await update(a, { email: 'moved@example.com', username: 'moved' });
    expect(moved.body.user).toMatchObject({ email: 'moved@example.com', username: 'moved' });
    expect((await create(person('mover', 'customer'))).status).toBe(201);
    await server.signIn('moved@example.com', 'secret-123');
    const history = await server.deps.events.readStream(`user-${a}`);
    expect(history.find((e) => e.type === 'UserDetailsUpdated')?.data).toEqual({
      userId: a,
      changes: { email: 'moved@example.com', username: 'moved' },
      previous: { email: 'mover@example.com', username: 'mover' },
    });
  });

  it('when an id does not exist, then reads and writes answer 404', async () => {
    expect((await server.request('GET', '/api/users/nope', { token: admin })).status).toBe(404);
    expect((await update('nope', { firstName: 'X' })).status).toBe(404);
    expect(await server.deps.events.readStream('user-nope')).toEqual([]);
  });
});
