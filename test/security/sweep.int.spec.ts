import { randomUUID } from 'node:crypto';
import { type Socket, io } from 'socket.io-client';
import { recordAccessAttempt } from '../../src/app/whitelist/service';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

/**
 * The hostile sweep of issue 22, bounded and on loopback only: every route with a body gets malformed
 * JSON, wrong content types, bodies of the wrong shape, unknown fields, control characters in each
 * text field and wrong types; every list gets loose numbers; every route with an id gets foreign and
 * malformed ids; sockets get hostile payloads. Every answer to such a request must be a clear
 * refusal: a 5xx, or a 2xx ("accepted-invalid"), is a finding.
 */

type Role = 'admin' | 'agent' | 'customer' | 'other' | 'none';
interface BodyRoute {
  method: 'POST' | 'PUT';
  path: string;
  as: Role;
  /** A valid body; it is never sent itself, only its hostile variants. */
  body: Record<string, unknown>;
  /** One-line text fields (dotted paths): line breaks refused too. */
  single?: string[];
  /** Multi-line text fields: line breaks allowed, other control characters refused. */
  multi?: string[];
  /** Fields that must be true/false or a number. */
  typed?: string[];
  /** Accepts multipart as well as JSON. */
  multipart?: boolean;
}

const CONTROL = { nul: '\u0000', bidi: '\u202E', surrogate: '\uD800', bell: '\u0007', escape: '\u001B' };
const LOOSE_NUMBERS = ['', '0x10', '1e1', '+5', '-1', '1.5', '%201', 'abc', '1,2', '99999999999999999999', '0'];

function withField(body: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = dotted.split('.');
  let target: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[keys.at(-1)!] = value;
  return copy;
}
const fieldOf = (body: Record<string, unknown>, dotted: string) =>
  dotted.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], body);

// Sweeps a few thousand requests on a loaded machine.
jest.setTimeout(600_000);

describe('Hostile sweep of every route (issue 22)', () => {
  let server: TestServer;
  const tokens: Record<Role, string | undefined> = { admin: undefined, agent: undefined, customer: undefined, other: undefined, none: undefined };
  let carol: Member;
  let ids: Record<string, string>;
  const figures = { requests: 0, fiveXx: [] as string[], acceptedInvalid: [] as string[], statuses: new Map<number, number>() };

  beforeAll(async () => {
    server = await startTestServer();
    tokens.admin = await server.login();
    const agent = await addMember(server, tokens.admin, 'agent', 'Sweep');
    carol = await addMember(server, tokens.admin, 'customer', 'Carol');
    const other = await addMember(server, tokens.admin, 'customer', 'Oscar');
    tokens.agent = agent.token;
    tokens.customer = carol.token;
    tokens.other = other.token;
    const category = await addCategory(server, tokens.admin, {
      customFields: [{ fieldName: 'code', fieldType: 'text', prompt: 'Code', required: false, validation: { pattern: '^[A-Z]{3}$' } }],
    });
    const ticket = await openTicket(server, carol, category);
    const othersTicket = await openTicket(server, other, category);
    const message = (await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: carol.token, body: { content: 'hello' } })).body.message;
    const canned = (await server.request('POST', '/api/canned-messages', { token: tokens.admin, body: { shortcode: 'sweep', title: 'Sweep', content: 'c' } }))
      .body.cannedMessage;
    const command = (await server.request('POST', '/api/bot-commands', { token: tokens.admin, body: { command: 'sweep', description: 'd', handler: 'help' } }))
      .body.command;
    const entry = (await server.request('POST', '/api/whitelist', { token: tokens.admin, body: { telegramId: '4242' } })).body.entry;
    const knocked = await recordAccessAttempt(
      server.deps,
      '4343',
      { username: 'knock', firstName: 'K', lastName: 'N', message: 'hi' },
      {
        actor: { userId: 'telegram:4343', role: 'customer', platform: 'telegram' },
        now: new Date(),
      },
    );
    await server.deps.projections.waitFor(knocked);
    ids = {
      category,
      ticket: ticket._id,
      othersTicket: othersTicket._id,
      message: message._id,
      canned: canned._id,
      command: command._id,
      entry: entry._id,
      user: agent.id,
      agent: agent.id,
    };
  });
  afterAll(() => server.stop());

  /** Sends one hostile request; `accepted` says whether the answer took it (by default: any 2xx). */
  async function hostile(
    label: string,
    method: string,
    url: string,
    as: Role,
    init: { body?: string; type?: string; form?: FormData } = {},
    accepted = (status: number, _text: string) => status < 300,
  ) {
    const headers: Record<string, string> = {};
    if (tokens[as]) headers.authorization = `Bearer ${tokens[as]}`;
    if (init.type) headers['content-type'] = init.type;
    const response = await fetch(`${server.url}/api${url}`, { method, headers, body: init.form ?? init.body });
    const text = await response.text();
    figures.requests += 1;
    figures.statuses.set(response.status, (figures.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) figures.fiveXx.push(`${response.status} ${method} ${url} ${label}`);
    else if (accepted(response.status, text)) figures.acceptedInvalid.push(`${response.status} ${method} ${url} ${label}: ${text.slice(0, 120)}`);
  }
  /** A whitelist check is answered 200 either way: it accepts a hostile value only by matching it. */
  const matched = (status: number, text: string) => status < 300 && (JSON.parse(text) as { whitelisted: boolean }).whitelisted;
  const json = (label: string, method: string, url: string, as: Role, body: unknown) =>
    hostile(label, method, url, as, { body: JSON.stringify(body), type: 'application/json' });

  const bodyRoutes = (): BodyRoute[] => [
    {
      method: 'POST',
      path: '/auth/register',
      as: 'none',
      body: { username: 'sweeper', email: 'sweeper@example.com', password: 'password-123', firstName: 'S', lastName: 'W' },
      single: ['firstName', 'lastName', 'username', 'email'],
    },
    { method: 'POST', path: '/auth/login', as: 'none', body: { email: 'nobody@example.com', password: 'password-123' }, single: ['email'] },
    { method: 'POST', path: '/auth/refresh', as: 'none', body: { refreshToken: 'x.y' } },
    { method: 'POST', path: '/auth/logout', as: 'none', body: { refreshToken: 'x.y' } },
    {
      method: 'PUT',
      path: '/auth/notifications/preferences',
      as: 'agent',
      body: { newTickets: true, ticketUpdates: true },
      typed: ['newTickets', 'ticketUpdates'],
    },
    {
      method: 'POST',
      path: '/users',
      as: 'admin',
      body: { firstName: 'F', lastName: 'L', username: 'sweep_user', email: 'sweep_user@example.com', password: 'password-123', role: 'agent' },
      single: ['firstName', 'lastName', 'username', 'email'],
      typed: [],
    },
    { method: 'PUT', path: `/users/${ids.user}`, as: 'admin', body: { firstName: 'F', isActive: true }, single: ['firstName'], typed: ['isActive'] },
    {
      method: 'POST',
      path: '/categories',
      as: 'admin',
      body: {
        name: 'Sweep category',
        description: 'd',
        order: 1,
        customFields: [{ fieldName: 'f', fieldType: 'text', prompt: 'P', validation: { pattern: '^a$' } }],
      },
      single: ['name', 'customFields.0.fieldName', 'customFields.0.prompt'],
      multi: ['description'],
      typed: ['order'],
    },
    { method: 'PUT', path: `/categories/${ids.category}`, as: 'admin', body: { name: 'Renamed', isActive: true }, single: ['name'], typed: ['isActive'] },
    { method: 'POST', path: '/categories/reorder', as: 'admin', body: { categoryOrders: [{ id: ids.category, order: 2 }] }, typed: ['categoryOrders.0.order'] },
    {
      method: 'PUT',
      path: '/settings',
      as: 'admin',
      body: { systemName: 'Desk', maxFiles: 5, maintenanceMode: false },
      single: ['systemName'],
      typed: ['maxFiles', 'maintenanceMode'],
    },
    { method: 'POST', path: '/settings/telegram/test', as: 'admin', body: { telegramBotToken: '123:abc' }, single: ['telegramBotToken'] },
    {
      method: 'POST',
      path: '/bot-commands',
      as: 'admin',
      body: { command: 'sweepnew', description: 'd', handler: 'custom', response: 'r' },
      single: ['description'],
      multi: ['response'],
    },
    {
      method: 'PUT',
      path: `/bot-commands/${ids.command}`,
      as: 'admin',
      body: { description: 'd', isActive: true },
      single: ['description'],
      typed: ['isActive'],
    },
    { method: 'PUT', path: '/bot-settings', as: 'admin', body: { messages: { helpMessage: 'Help' } }, multi: ['messages.helpMessage'] },
    {
      method: 'POST',
      path: '/whitelist',
      as: 'admin',
      body: { telegramId: '5151', username: 'u', firstName: 'F', lastName: 'L', notes: 'n' },
      single: ['telegramId', 'username', 'firstName', 'lastName'],
      multi: ['notes'],
    },
    { method: 'PUT', path: `/whitelist/${ids.entry}`, as: 'admin', body: { firstName: 'F', isActive: true }, single: ['firstName'], typed: ['isActive'] },
    {
      method: 'POST',
      path: '/tickets',
      as: 'customer',
      body: { title: 'T', description: 'D', category: ids.category, priority: 'low' },
      single: ['title'],
      multi: ['description'],
      multipart: true,
    },
    { method: 'PUT', path: `/tickets/${ids.ticket}`, as: 'agent', body: { status: 'pending_customer' } },
    { method: 'POST', path: `/tickets/${ids.ticket}/assign`, as: 'agent', body: { agentId: ids.agent } },
    { method: 'PUT', path: `/tickets/${ids.ticket}/outcome`, as: 'agent', body: { outcomeMessage: 'Done' }, multi: ['outcomeMessage'] },
    { method: 'POST', path: `/tickets/${ids.ticket}/messages`, as: 'customer', body: { content: 'Hi' }, multi: ['content'], multipart: true },
    { method: 'PUT', path: `/messages/${ids.message}`, as: 'customer', body: { content: 'Edited' }, multi: ['content'] },
    { method: 'POST', path: '/canned-messages', as: 'admin', body: { shortcode: 'newsweep', title: 'T', content: 'C' }, single: ['title'], multi: ['content'] },
    { method: 'PUT', path: `/canned-messages/${ids.canned}`, as: 'admin', body: { title: 'T' }, single: ['title'] },
  ];

  it('when every route gets hostile input, then no answer is a 5xx and none accepts it', async () => {
    for (const route of bodyRoutes()) {
      const { method, path, as, body } = route;
      await hostile('malformed JSON', method, path, as, { body: '{"title":', type: 'application/json' });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json-patch+json'])
        await hostile(`as ${type}`, method, path, as, { body: JSON.stringify(body), type });
      if (!route.multipart) {
        const form = new FormData();
        for (const [key, value] of Object.entries(body)) form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
        await hostile('as multipart', method, path, as, { form });
      }
      for (const shape of ['[]', '"text"', '42', 'null', '[{"a":1}]'])
        await hostile(`body ${shape}`, method, path, as, { body: shape, type: 'application/json' });
      await json('unknown field', method, path, as, { ...body, isAdmin: true });
      await json('prototype pollution', method, path, as, JSON.parse(`{"__proto__": {"role": "admin"}, ${JSON.stringify(body).slice(1)}`));
      for (const field of [...(route.single ?? []), ...(route.multi ?? [])]) {
        const text = String(fieldOf(body, field));
        for (const [name, character] of Object.entries(CONTROL))
          await json(`${field} with ${name}`, method, path, as, withField(body, field, `${text}${character}x`));
        await json(`${field} as object`, method, path, as, withField(body, field, { $ne: null }));
        await json(`${field} too long`, method, path, as, withField(body, field, 'x'.repeat(100_001)));
      }
      for (const field of route.single ?? []) {
        for (const lineBreak of ['\n', '\r\n', '\u2028'])
          await json(`${field} with a line break`, method, path, as, withField(body, field, `${String(fieldOf(body, field))}${lineBreak}x`));
      }
      for (const field of route.typed ?? []) await json(`${field} as text`, method, path, as, withField(body, field, 'yes'));
    }

    const lists = [
      '/tickets',
      `/tickets/${ids.ticket}/messages`,
      '/users',
      '/canned-messages',
      '/categories',
      '/whitelist',
      '/whitelist/access-requests',
      '/bot-commands',
      '/canned-messages/suggestions',
    ];
    for (const list of lists) {
      for (const value of LOOSE_NUMBERS) {
        for (const name of ['page', 'limit']) {
          if (name === 'page' && list.endsWith('suggestions')) continue;
          await hostile(`${name}=${value}`, 'GET', `${list}?${name}=${value}`, 'admin');
        }
      }
      await hostile('limit over 1000', 'GET', `${list}?limit=1001`, 'admin');
      await hostile('limit twice', 'GET', `${list}?limit=1&limit=2`, 'admin');
    }
    for (const value of LOOSE_NUMBERS.filter((v) => v !== '0'))
      await hostile(`revision=${value}`, 'GET', `/tickets/${ids.ticket}/at?revision=${value}`, 'admin');
    for (const query of ['revision=99', 'time=yesterday', 'revision=0&time=2026-01-01T00:00:00Z', 'time=1999-01-01T00:00:00Z'])
      await hostile(query, 'GET', `/tickets/${ids.ticket}/at?${query}`, 'customer');
    for (const query of ['tz=Mars/Olympus', `tz=${'x'.repeat(100)}`, 'tz=Europe%0ABerlin']) await hostile(query, 'GET', `/tickets/stats?${query}`, 'admin');
    for (const query of ['status=bogus', 'priority=asap', 'assigned=everyone', 'sort=random', `q=${'x'.repeat(201)}`])
      await hostile(query, 'GET', `/tickets?${query}`, 'admin');

    const foreign = [randomUUID(), 'no-such-id', '..%2F..%2Fetc%2Fpasswd', '%00', 'x'.repeat(300), '%E2%80%AE', '*', '%20'];
    for (const id of foreign) {
      const idRoutes: Array<[string, string, Role, unknown?]> = [
        ['GET', `/tickets/${id}`, 'admin'],
        ['GET', `/tickets/${id}/history`, 'admin'],
        ['GET', `/tickets/${id}/at?revision=0`, 'admin'],
        ['GET', `/tickets/${id}/messages`, 'admin'],
        ['PUT', `/tickets/${id}`, 'admin', { status: 'closed' }],
        ['POST', `/tickets/${id}/assign`, 'admin', { agentId: ids.agent }],
        ['POST', `/tickets/${ids.ticket}/assign`, 'admin', { agentId: id }],
        ['PUT', `/tickets/${id}/outcome`, 'admin', { outcomeMessage: 'x' }],
        ['POST', `/tickets/${id}/messages`, 'admin', { content: 'x' }],
        ['POST', `/tickets/${id}/messages/read`, 'admin'],
        ['PUT', `/messages/${id}`, 'admin', { content: 'x' }],
        ['DELETE', `/tickets/${id}`, 'admin'],
        ['GET', `/uploads/${id}`, 'admin'],
        ['GET', `/users/${id}`, 'admin'],
        ['PUT', `/users/${id}`, 'admin', { firstName: 'x' }],
        ['DELETE', `/users/${id}`, 'admin'],
        ['GET', `/categories/${id}`, 'admin'],
        ['PUT', `/categories/${id}`, 'admin', { name: 'x' }],
        ['DELETE', `/categories/${id}`, 'admin'],
        ['POST', '/categories/reorder', 'admin', { categoryOrders: [{ id, order: 1 }] }],
        ['GET', `/canned-messages/${id}`, 'admin'],
        ['PUT', `/canned-messages/${id}`, 'admin', { title: 'x' }],
        ['PUT', `/canned-messages/${id}/usage`, 'admin'],
        ['DELETE', `/canned-messages/${id}`, 'admin'],
        ['GET', `/bot-commands/${id}`, 'admin'],
        ['PUT', `/bot-commands/${id}`, 'admin', { description: 'x' }],
        ['DELETE', `/bot-commands/${id}`, 'admin'],
        ['PUT', `/whitelist/${id}`, 'admin', { firstName: 'x' }],
        ['DELETE', `/whitelist/${id}`, 'admin'],
        ['DELETE', `/whitelist/entry/${id}`, 'admin'],
        ['POST', `/whitelist/access-requests/${id}/approve`, 'admin'],
        ['POST', `/whitelist/access-requests/${id}/reject`, 'admin'],
        ['DELETE', `/whitelist/access-requests/entry/${id}`, 'admin'],
        ['POST', '/tickets', 'other', { title: 't', description: 'd', category: id }],
        ['POST', '/canned-messages', 'admin', { shortcode: 'fc', title: 't', content: 'c', category: id }],
      ];
      await hostile(`check ${id.slice(0, 20)}`, 'GET', `/whitelist/check/${id}`, 'admin', {}, matched);
      for (const [method, url, as, body] of idRoutes) {
        const label = `foreign id ${id.slice(0, 20)}`;
        if (body === undefined) await hostile(label, method, url, as);
        else await json(label, method, url, as, body);
      }
    }
    // Whitelist checks that must match nothing, whatever entries without a username exist.
    expect((await server.request('POST', '/api/whitelist', { token: tokens.admin, body: { telegramId: '6161' } })).status).toBe(201);
    for (const value of ['*', '%20', '.*', '%40', '^', '%5E.*%24', '%2B', '_*'])
      await hostile(`check ${value}`, 'GET', `/whitelist/check/${value}`, 'admin', {}, matched);

    // Another customer's ticket: every call is 404, never an answer.
    const theirs = ids.othersTicket;
    for (const [method, url, body] of [
      ['GET', `/tickets/${theirs}`],
      ['GET', `/tickets/${theirs}/messages`],
      ['GET', `/tickets/${theirs}/at?revision=0`],
      ['GET', `/tickets/${theirs}/history`],
      ['POST', `/tickets/${theirs}/messages`, { content: 'hi' }],
      ['POST', `/tickets/${theirs}/messages/read`],
      ['PUT', `/tickets/${theirs}`, { status: 'closed' }],
      ['DELETE', `/tickets/${theirs}`],
    ] as Array<[string, string, unknown?]>) {
      if (body === undefined) await hostile("another customer's ticket", method, url, 'customer');
      else await json("another customer's ticket", method, url, 'customer', body);
    }

    // Sockets: hostile payloads must be refused and must not reach anyone.
    const socket: Socket = io(server.url, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: { token: carol.token } });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    try {
      for (const payload of [
        ids.othersTicket,
        { ticketId: ids.othersTicket },
        '',
        null,
        42,
        {},
        [],
        'x'.repeat(1000),
        `${ids.ticket}\u0000`,
        { ticketId: { $ne: null } },
      ]) {
        const answer = (await socket.timeout(5000).emitWithAck('join_ticket', payload)) as { ok: boolean };
        figures.requests += 1;
        if (answer.ok) figures.acceptedInvalid.push(`socket join_ticket ${JSON.stringify(payload).slice(0, 40)}`);
      }
      for (const payload of [null, 42, { ticketId: ids.othersTicket, isTyping: true }, { ticketId: ids.ticket, isTyping: 'yes' }]) {
        socket.emit('typing', payload);
        figures.requests += 1;
      }
      expect(socket.connected).toBe(true);
    } finally {
      socket.close();
    }

    const statuses = [...figures.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    process.stdout.write(
      `Hostile sweep: ${figures.requests} requests, ${figures.fiveXx.length} 5xx, ${figures.acceptedInvalid.length} accepted-invalid (HTTP statuses ${statuses})\n`,
    );
    expect(figures.fiveXx).toEqual([]);
    expect(figures.acceptedInvalid).toEqual([]);
  });
});
