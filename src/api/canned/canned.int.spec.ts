import { type Member, addCategory, addMember } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

describe('Canned messages over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let customer: Member;
  let billing: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    customer = await addMember(server, admin, 'customer');
    billing = await addCategory(server, admin, { name: 'Billing' });
  });
  afterAll(() => server.stop());

  const create = (body: Record<string, unknown>, token = agent.token) => server.request('POST', '/api/canned-messages', { token, body });

  it('when an agent creates one, then it is stored with its creator, category and a zero usage count', async () => {
    const created = await create({ shortcode: '#Refund', title: 'Refund issued', content: 'Your refund is on its way.', category: billing });
    expect(created.status).toBe(201);
    expect(created.body.cannedMessage).toMatchObject({
      shortcode: 'refund',
      title: 'Refund issued',
      content: 'Your refund is on its way.',
      category: { _id: billing, name: 'Billing' },
      usageCount: 0,
      createdBy: { _id: agent.id, firstName: 'Alice', lastName: 'Tester' },
      lastUsed: null,
    });
    const none = await create({ shortcode: 'hello', title: 'Greeting', content: 'Hello!', category: 'none' });
    expect(none.body.cannedMessage.category).toBeNull();
  });

  it('when the input breaks the rules of docs/product.md section 5, then the answer says which, with its wording', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 't', content: 'c' }, 'Shortcode is required'],
      [{ shortcode: 'no spaces', title: 't', content: 'c' }, 'Shortcode can only contain lowercase letters, numbers, underscores, and hyphens'],
      [{ shortcode: 'x', title: 't', content: 'c' }, 'Shortcode must be between 2 and 50 characters'],
      [{ shortcode: 'ok', content: 'c' }, 'Title is required'],
      [{ shortcode: 'ok', title: 't'.repeat(100), content: 'c' }, 'Title must be less than 100 characters'],
      [{ shortcode: 'ok', title: 't' }, 'Content is required'],
      [{ shortcode: 'ok', title: 't', content: 'c'.repeat(2001) }, 'Content must be less than 2000 characters'],
      [{ shortcode: 'ok', title: 't', content: 'c', category: 'no-such-category' }, 'The chosen category does not exist'],
    ];
    for (const [body, error] of cases) expect(await create(body)).toMatchObject({ status: 400, body: { error } });
  });

  it('when a shortcode is taken, then a second one is refused with 409, also when racing', async () => {
    expect(await create({ shortcode: 'refund', title: 'Again', content: 'x' })).toMatchObject({ status: 409, body: { code: 'SHORTCODE_TAKEN' } });
    const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ shortcode: 'race', title: `Racer ${i}`, content: 'x' })));
    expect(racing.filter((a) => a.status === 201)).toHaveLength(1);
    expect(racing.filter((a) => a.status === 409)).toHaveLength(7);
  });

  it('when it is used, then the count and last-used date grow and the list puts the most used first', async () => {
    const { cannedMessages } = (await server.request('GET', '/api/canned-messages', { token: agent.token })).body;
    const hello = cannedMessages.find((c: { shortcode: string }) => c.shortcode === 'hello');
    for (let i = 0; i < 2; i++) await server.request('PUT', `/api/canned-messages/${hello._id}/usage`, { token: agent.token });
    const used = await server.request('GET', `/api/canned-messages/${hello._id}`, { token: agent.token });
    expect(used.body.cannedMessage).toMatchObject({ usageCount: 2, lastUsed: expect.any(String) });
    const list = (await server.request('GET', '/api/canned-messages', { token: agent.token })).body.cannedMessages;
    expect(list.map((c: { shortcode: string }) => c.shortcode)).toEqual(['hello', 'race', 'refund']);
  });

  it('when searched, then shortcode, title and content match regardless of case, and the category filters', async () => {
    const search = async (query: string) =>
      (await server.request('GET', `/api/canned-messages?${query}`, { token: agent.token })).body.cannedMessages.map((c: { shortcode: string }) => c.shortcode);
    expect(await search('q=ON ITS WAY')).toEqual(['refund']);
    expect(await search('q=greet')).toEqual(['hello']);
    expect(await search(`category=${billing}`)).toEqual(['refund']);
    expect(await search('q=(')).toEqual([]);
    const suggestions = await server.request('GET', '/api/canned-messages/suggestions?q=%23re', { token: agent.token });
    expect(suggestions.body.suggestions.map((c: { shortcode: string }) => c.shortcode)).toEqual(['refund']);
  });

  it('when edited, then changes show, the old shortcode becomes free, and a renamed category follows', async () => {
    const { cannedMessages } = (await server.request('GET', '/api/canned-messages?q=refund', { token: agent.token })).body;
    const id = cannedMessages[0]._id;
    const edited = await server.request('PUT', `/api/canned-messages/${id}`, { token: agent.token, body: { shortcode: 'refund-sent', title: 'Refund sent' } });
    expect(edited.body.cannedMessage).toMatchObject({ shortcode: 'refund-sent', title: 'Refund sent' });
    expect((await create({ shortcode: 'refund', title: 'New refund', content: 'x' })).status).toBe(201);
    await server.request('PUT', `/api/categories/${billing}`, { token: admin, body: { name: 'Payments' } });
    expect((await server.request('GET', `/api/canned-messages/${id}`, { token: agent.token })).body.cannedMessage.category.name).toBe('Payments');
    const cleared = await server.request('PUT', `/api/canned-messages/${id}`, { token: agent.token, body: { category: 'none' } });
    expect(cleared.body.cannedMessage.category).toBeNull();
  });

  it('when deleting, then agents are refused and admins succeed', async () => {
    const { cannedMessages } = (await server.request('GET', '/api/canned-messages?q=greet', { token: agent.token })).body;
    const id = cannedMessages[0]._id;
    expect((await server.request('DELETE', `/api/canned-messages/${id}`, { token: agent.token })).status).toBe(403);
    expect((await server.request('DELETE', `/api/canned-messages/${id}`, { token: admin })).status).toBe(204);
    expect((await server.request('GET', `/api/canned-messages/${id}`, { token: agent.token })).status).toBe(404);
    expect((await create({ shortcode: 'hello', title: 'Greeting again', content: 'Hi' })).status).toBe(201);
  });

  it('when a customer calls, then every canned-message route is refused', async () => {
    expect((await server.request('GET', '/api/canned-messages', { token: customer.token })).status).toBe(403);
    expect((await create({ shortcode: 'mine', title: 't', content: 'c' }, customer.token)).status).toBe(403);
    expect((await server.request('GET', '/api/canned-messages/suggestions?q=re', { token: customer.token })).status).toBe(403);
  });
});
