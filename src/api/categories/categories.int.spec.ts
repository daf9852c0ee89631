import { type TestServer, startTestServer } from '../../../test/support/server';

describe('Categories over HTTP (walking skeleton)', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.stop());

  it('when an admin creates a category, then it is readable at once with the defaults of docs/product.md', async () => {
    const created = await server.request('POST', '/api/categories', {
      token: admin,
      body: { name: 'Billing', customFields: [{ fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number' }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.category).toMatchObject({
      name: 'Billing',
      description: '',
      color: '#007bff',
      order: 0,
      isActive: true,
      customFields: [{ fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number', placeholder: '', required: true, validation: {}, order: 0 }],
    });
    const list = await server.request('GET', '/api/categories', { token: admin });
    expect(list.body.categories.map((c: { name: string }) => c.name)).toContain('Billing');
    const one = await server.request('GET', `/api/categories/${created.body.category._id}`, { token: admin });
    expect(one.body.category._id).toBe(created.body.category._id);
  });

  it('when the input is bad, then it answers 400 with the reason and stores nothing', async () => {
    const before = await server.deps.events.headPosition();
    const bad = await server.request('POST', '/api/categories', { token: admin, body: { name: '', color: 'blue', order: 1.5, hacker: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'Name is required', code: 'VALIDATION_FAILED' });
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['name', 'color', 'order']));
    expect(bad.body.details.map((d: { message: string }) => d.message)).toContain('Unknown field: hacker');
    const notJson = await server.request('POST', '/api/categories', { token: admin, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(notJson).toMatchObject({ status: 400, body: { code: 'INVALID_JSON' } });
    const wrongType = await server.request('POST', '/api/categories', { token: admin, body: ['not', 'an', 'object'] });
    expect(wrongType.status).toBe(400);
    expect(await server.deps.events.headPosition()).toBe(before);
  });

  it('when nobody is signed in or the token is forged, then it answers 401', async () => {
    expect((await server.request('GET', '/api/categories')).status).toBe(401);
    expect((await server.request('POST', '/api/categories', { body: { name: 'X' } })).status).toBe(401);
    const forged = await server.request('GET', '/api/categories', { token: `${admin.slice(0, -4)}AAAA` });
    expect(forged).toMatchObject({ status: 401, body: { code: 'INVALID_TOKEN' } });
  });

  it('when a category is updated, reordered and deleted, then the read model follows', async () => {
    const { body } = await server.request('POST', '/api/categories', { token: admin, body: { name: 'Shipping' } });
    const id = body.category._id as string;
    const updated = await server.request('PUT', `/api/categories/${id}`, { token: admin, body: { color: '#ff8800', isActive: false } });
    expect(updated.body.category).toMatchObject({ color: '#ff8800', isActive: false });
    const active = await server.request('GET', '/api/categories', { token: admin });
    expect(active.body.categories.map((c: { _id: string }) => c._id)).not.toContain(id);
    const all = await server.request('GET', '/api/categories?includeInactive=true', { token: admin });
    expect(all.body.categories.map((c: { _id: string }) => c._id)).toContain(id);
    const reordered = await server.request('POST', '/api/categories/reorder', { token: admin, body: { categoryOrders: [{ id, order: 7 }] } });
    expect(reordered.body.categories.find((c: { _id: string }) => c._id === id).order).toBe(7);
    expect((await server.request('DELETE', `/api/categories/${id}`, { token: admin })).status).toBe(204);
    expect((await server.request('GET', `/api/categories/${id}`, { token: admin })).status).toBe(404);
    expect((await server.request('DELETE', `/api/categories/${id}`, { token: admin })).status).toBe(404);
    const history = await server.deps.events.readStream(`category-${id}`);
    expect(history.map((e) => e.type)).toEqual(['CategoryCreated', 'CategoryUpdated', 'CategoryReordered', 'CategoryDeleted']);
    expect(history[1]?.metadata.actor).toMatchObject({ role: 'admin', platform: 'web' });
  });

  it('when the route does not exist, then it answers a JSON 404', async () => {
    expect(await server.request('GET', '/api/nope', { token: admin })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });
});
