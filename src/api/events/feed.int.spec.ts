import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { LONG_POLLS_PER_USER } from '../../app/events/feed';
import { type TestServer, startTestServer } from '../../../test/support/server';

interface Item {
  id: string;
  type: string;
  subject: string;
  specversion: string;
  data: Record<string, unknown>;
}

describe('The event feed over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let cara: Member;
  let dan: Member;
  let caraTicket: string;
  let danTicket: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    cara = await addMember(server, admin, 'customer', 'Cara');
    dan = await addMember(server, admin, 'customer', 'Dan');
    const category = await addCategory(server, admin);
    caraTicket = (await openTicket(server, cara, category, { title: 'Printer jam' }))._id;
    danTicket = (await openTicket(server, dan, category, { title: 'Dan’s private matter' }))._id;
    for (const [token, body] of [
      [agent.token, { content: 'Try the tray' }],
      [agent.token, { content: 'Customer seems annoyed', isInternal: true }],
      [cara.token, { content: 'Done, thanks' }],
    ] as const) {
      expect((await server.request('POST', `/api/tickets/${caraTicket}/messages`, { token, body })).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => server.stop());

  const tokenFor = async (userId: string, scopes: string[]) =>
    (await server.request('POST', '/api/api-tokens', { token: admin, body: { label: 'feed', userId, scopes } })).body.secret as string;
  const feed = async (token: string, query: string) => {
    const answer = await server.request('GET', `/api/events?wait=0&${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body as { events: Item[]; next: number };
  };
  const contents = (items: Item[]) => items.filter((item) => item.type === 'desk.MessagePosted').map((item) => item.data.content);

  it('when a customer-scoped token reads the feed, then it gets CloudEvents of its own ticket only, without notes or staff-only events', async () => {
    const page = await feed(await tokenFor(cara.id, ['tickets:read']), 'after=0&limit=500');
    expect(page.events.length).toBeGreaterThan(0);
    expect(new Set(page.events.map((item) => item.subject))).toEqual(new Set([caraTicket]));
    expect(contents(page.events)).toEqual(['Try the tray', 'Done, thanks']);
    expect(page.events.map((item) => item.type)).not.toContain('desk.MessagesRead');
    expect(page.events[0]).toMatchObject({
      specversion: '1.0',
      type: 'desk.TicketOpened',
      source: expect.any(String),
      datacontenttype: 'application/json',
      time: expect.any(String),
      ticketrevision: 0,
    });
    // Ids are log positions, strictly increasing; `next` is the last one read.
    const ids = page.events.map((item) => Number(item.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(page.next).toBeGreaterThanOrEqual(ids.at(-1)!);
    expect(JSON.stringify(page)).not.toContain('Dan’s private matter');
  });

  it('when staff read it, then internal notes come only with notes:read', async () => {
    const without = await feed(await tokenFor(agent.id, ['tickets:read']), 'limit=500');
    const withNotes = await feed(await tokenFor(agent.id, ['tickets:read', 'notes:read']), 'limit=500');
    expect(contents(without.events)).toEqual(['Try the tray', 'Done, thanks']);
    expect(contents(withNotes.events)).toEqual(['Try the tray', 'Customer seems annoyed', 'Done, thanks']);
    expect(new Set(withNotes.events.map((item) => item.subject))).toEqual(new Set([caraTicket, danTicket]));
    // A person signed in reads the same feed as their role allows.
    expect(contents((await feed(agent.token, 'limit=500')).events)).toEqual(['Try the tray', 'Customer seems annoyed', 'Done, thanks']);
  });

  it('when read a page at a time from where the last call stopped (a reader resuming after a crash), then it gets the same events once each', async () => {
    const token = await tokenFor(agent.id, ['tickets:read', 'notes:read']);
    const whole = (await feed(token, 'limit=500')).events.map((item) => item.id);
    const paged: string[] = [];
    let after = 0;
    for (;;) {
      const page = await feed(token, `after=${after}&limit=2`);
      if (page.events.length === 0) break;
      paged.push(...page.events.map((item) => item.id));
      after = page.next;
    }
    expect(paged).toEqual(whole);
  });

  it("when a ticket changes team or tags, then staff's feed carries those events and its customer's does not", async () => {
    const team = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Printers', members: [agent.id] } })).body.team as { _id: string };
    const change = (method: string, url: string, body?: object) => server.request(method, `/api${url}`, { token: agent.token, ...(body ? { body } : {}) });
    expect((await change('PUT', `/tickets/${caraTicket}`, { team: team._id })).status).toBe(200);
    expect((await change('POST', `/tickets/${caraTicket}/tags`, { tag: 'jam' })).status).toBe(200);
    expect((await server.request('POST', '/api/tags/jam/rename', { token: admin, body: { to: 'paper-jam' } })).status).toBe(200);
    expect((await change('DELETE', `/tickets/${caraTicket}/tags/paper-jam`)).status).toBe(200);
    const staffTypes = (
      await feed(await tokenFor(agent.id, ['tickets:read']), 'types=TicketTeamChanged,TicketTagAdded,TicketTagRemoved,TicketTagRenamed&limit=500')
    ).events;
    expect(staffTypes.map((item) => [item.type, item.subject])).toEqual([
      ['desk.TicketTeamChanged', caraTicket],
      ['desk.TicketTagAdded', caraTicket],
      ['desk.TicketTagRenamed', caraTicket],
      ['desk.TicketTagRemoved', caraTicket],
    ]);
    expect(staffTypes[2]!.data).toMatchObject({ from: 'jam', to: 'paper-jam', merged: false });
    const customerTypes = (await feed(await tokenFor(cara.id, ['tickets:read']), 'limit=500')).events.map((item) => item.type);
    expect(customerTypes.filter((type) => /Team|Tag/.test(type))).toEqual([]);
  });

  it('when types are named, then only those come', async () => {
    const page = await feed(await tokenFor(agent.id, ['tickets:read']), 'types=TicketOpened,desk.TicketStatusChanged&limit=500');
    expect(page.events.length).toBeGreaterThanOrEqual(2);
    for (const item of page.events) expect(['desk.TicketOpened', 'desk.TicketStatusChanged']).toContain(item.type);
    expect(page.events.filter((item) => item.type === 'desk.TicketOpened')).toHaveLength(2);
  });

  it('when nothing is new, then the call waits for the next event and answers it at once', async () => {
    const token = await tokenFor(cara.id, ['tickets:read']);
    const { next } = await feed(token, 'limit=500');
    const started = Date.now();
    const waiting = server.request('GET', `/api/events?after=${next}&wait=20`, { token });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await server.request('POST', `/api/tickets/${caraTicket}/messages`, { token: agent.token, body: { content: 'Any news?' } })).status).toBe(201);
    const answer = await waiting;
    const seconds = (Date.now() - started) / 1000;
    expect(answer.status).toBe(200);
    expect(contents(answer.body.events)).toEqual(['Any news?']);
    expect(seconds).toBeLessThan(15);
    // With nothing new for this reader and a short wait, an empty page; its position may pass events of the same write that are not for a customer.
    const idle = await server.request('GET', `/api/events?after=${answer.body.next}&wait=1`, { token });
    expect(idle.body).toEqual({ events: [], next: expect.any(Number) });
    expect(idle.body.next).toBeGreaterThanOrEqual(answer.body.next);
  }, 30_000);

  it('when the query is wrong or the token lacks tickets:read, then it is refused with a clear error', async () => {
    const token = await tokenFor(agent.id, ['tickets:read']);
    for (const [query, error] of [
      ['after=abc', 'after must be a whole number'],
      ['limit=0', 'limit must be at least 1'],
      ['wait=99', 'wait must be at most 30'],
      ['types=Nope', expect.stringContaining('Each type must be one of TicketOpened')],
      ['cursor=1', 'Unknown field: cursor'],
    ] as const) {
      const answer = await server.request('GET', `/api/events?${query}`, { token });
      expect({ query, status: answer.status, error: answer.body.error }).toEqual({ query, status: 400, error });
    }
    const writer = await tokenFor(agent.id, ['messages:write']);
    expect(await server.request('GET', '/api/events', { token: writer })).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_SCOPE' } });
    expect((await server.request('GET', '/api/events')).status).toBe(401);
  });

  /** A long poll from the log's head: its answer comes when something is written or `wait` runs out. */
  const longPoll = async (token: string, wait = 15, signal?: AbortSignal) => {
    const head = await server.deps.events.headPosition();
    return fetch(`${server.url}/api/events?after=${head}&wait=${wait}`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
  const answerOf = async (response: Response) => ({ status: response.status, body: await response.json() });

  it('when a token is revoked or its owner deactivated while its long poll waits, then the poll answers 401, not the events written since', async () => {
    const created = await server.request('POST', '/api/api-tokens', { token: admin, body: { label: 'poller', userId: agent.id, scopes: ['tickets:read'] } });
    const byToken = longPoll(created.body.secret as string);
    await settle();
    expect((await server.request('DELETE', `/api/api-tokens/${created.body.token._id}`, { token: admin })).status).toBe(200);
    expect((await server.request('POST', `/api/tickets/${caraTicket}/messages`, { token: cara.token, body: { content: 'After the revocation' } })).status).toBe(
      201,
    );
    expect(await answerOf(await byToken)).toMatchObject({ status: 401, body: { code: 'TOKEN_REVOKED' } });

    const bea = await addMember(server, admin, 'agent', 'Bea');
    const signedIn = longPoll(bea.token);
    await settle();
    expect((await server.request('PUT', `/api/users/${bea.id}`, { token: admin, body: { isActive: false } })).status).toBe(200);
    expect(
      (await server.request('POST', `/api/tickets/${caraTicket}/messages`, { token: cara.token, body: { content: 'After the deactivation' } })).status,
    ).toBe(201);
    expect(await answerOf(await signedIn)).toMatchObject({ status: 401, body: { code: 'ACCOUNT_DEACTIVATED' } });
  }, 40_000);

  it('when one user holds as many long polls as allowed (5), then one more is refused 429 with Retry-After while another user is answered at once; one ended frees a place', async () => {
    const holder = await addMember(server, admin, 'agent', 'Holder');
    const held = new AbortController();
    const polls = Array.from({ length: LONG_POLLS_PER_USER }, () => longPoll(holder.token, 30, held.signal).catch(() => null));
    await settle();
    const sixth = await longPoll(holder.token, 30);
    expect({ ...(await answerOf(sixth)), retryAfter: sixth.headers.get('retry-after') }).toMatchObject({
      status: 429,
      body: { code: 'RATE_LIMITED' },
      retryAfter: expect.stringMatching(/^\d+$/),
    });
    // Without waiting, the same user still reads, and someone else's long poll is answered when the log grows.
    expect((await server.request('GET', '/api/events?wait=0', { token: holder.token })).status).toBe(200);
    const bystander = longPoll(agent.token, 10);
    await settle();
    expect((await server.request('POST', `/api/tickets/${caraTicket}/messages`, { token: cara.token, body: { content: 'For the bystander' } })).status).toBe(
      201,
    );
    expect(await answerOf(await bystander)).toMatchObject({
      status: 200,
      body: { events: expect.arrayContaining([expect.objectContaining({ type: 'desk.MessagePosted' })]) },
    });

    held.abort();
    await Promise.all(polls);
    await eventually(async () => (await longPoll(holder.token, 1)).status === 200, { describe: 'a place freed once the polls ended' });
  }, 40_000);
});

describe('The event feed when the server stops', () => {
  it('when the server stops while long polls wait, then each is answered at once with what it has, and the stop does not wait out their wait', async () => {
    const server = await startTestServer();
    let stopped = false;
    try {
      const admin = await server.login();
      const agent = await addMember(server, admin, 'agent', 'Alice');
      const head = await server.deps.events.headPosition();
      const polls = [1, 2].map(async () => {
        const answer = await fetch(`${server.url}/api/events?after=${head}&wait=30`, { headers: { authorization: `Bearer ${agent.token}` } });
        return { status: answer.status, body: await answer.json(), at: Date.now() };
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const stopping = Date.now();
      await server.stop();
      stopped = true;
      expect(Date.now() - stopping).toBeLessThan(10_000);
      for (const poll of await Promise.all(polls)) {
        expect(poll).toMatchObject({ status: 200, body: { events: [], next: head } });
        expect(poll.at - stopping).toBeLessThan(10_000);
      }
    } finally {
      if (!stopped) await server.stop();
    }
  }, 60_000);
});
