import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { launchBrowser } from '../../../test/support/browser';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';
import { servedRoutes } from '../../../test/support/routes';
import { projectRoot } from '../../platform/paths';
import { createApp } from '../app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON
type Json = any;

describe('The OpenAPI document', () => {
  let server: TestServer;
  let doc: Json;
  let admin: string;
  let carol: Member;
  let category: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  /** Checks an answer against the document's schema for this operation and status. */
  function expectDescribed(method: string, path: string, answer: { status: number; body: unknown }) {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation).toBeDefined();
    const response = operation.responses[String(answer.status)];
    if (response === undefined) throw new Error(`${method} ${path} answered ${answer.status}, which the document does not list`);
    const schema = response.content['application/json'].schema;
    const validate = ajv.compile({ ...schema, components: doc.components });
    if (!validate(answer.body))
      throw new Error(
        `${method} ${path} ${answer.status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer.body).slice(0, 500)}`,
      );
  }

  beforeAll(async () => {
    server = await startTestServer();
    const answer = await server.request('GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    doc = answer.body;
    admin = await server.login();
    carol = await addMember(server, admin, 'customer', 'Carol');
    category = await addCategory(server, admin, { name: 'Billing' });
  });
  afterAll(() => server.stop());

  it('is a valid OpenAPI 3.1 document (the OpenAPI Initiative JSON schema of 3.1)', () => {
    const schema: Json = JSON.parse(
      readFileSync(path.join(projectRoot(), 'node_modules/@seriousme/openapi-schema-validator/schemas/v3.1/schema.json'), 'utf8'),
    );
    const validator = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(validator);
    // The 3.1 schema's one format of its own (media type ranges as content keys), as the OpenAPI validators define it.
    validator.addFormat('media-range', /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(?:\s*;.*)?$/);
    const validate = validator.compile(schema);
    expect(doc.openapi).toBe('3.1.0');
    expect(validate(doc) ? [] : validate.errors).toEqual([]);
    // The check can fail: a document without its info, or with an operation missing its responses' descriptions, does not pass.
    const { info: _info, ...withoutInfo } = doc;
    expect(validate(withoutInfo)).toBe(false);
    expect(validate({ ...doc, paths: { '/x': { get: { responses: { 200: {} } } } } })).toBe(false);
  });

  it('describes every route the app serves (method and path), and no route it does not serve', () => {
    const served = [...new Set(servedRoutes(createApp(server.deps)).map(({ method, path }) => `${method} ${path}`))].sort();
    const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThan(70);
    expect(served.filter((route) => !described.includes(route))).toEqual([]);
    expect(described.filter((route) => !served.includes(route))).toEqual([]);
  });

  it('checks answers strictly: a ticket with a field the document does not list, or without one it lists, fails', async () => {
    const created = await openTicket(server, await addMember(server, admin, 'customer', 'Erin'), category);
    const { body } = await server.request('GET', `/api/tickets/${created._id}`, { token: admin });
    const { status: _status, ...withoutStatus } = body.ticket;
    expect(() => expectDescribed('GET', '/api/tickets/{id}', { status: 200, body: { ...body, ticket: { ...body.ticket, secret: 1 } } })).toThrow(
      'must NOT have additional properties',
    );
    expect(() => expectDescribed('GET', '/api/tickets/{id}', { status: 200, body: { ...body, ticket: withoutStatus } })).toThrow(
      "must have required property 'status'",
    );
    expect(() => expectDescribed('GET', '/api/tickets/{id}', { status: 418, body })).toThrow('does not list');
  });

  it('describes real answers: sign-in, tickets, a ticket list, a message, statistics, health', async () => {
    const signIn = await server.request('POST', '/api/auth/login', { body: ADMIN });
    expectDescribed('POST', '/api/auth/login', signIn);
    expectDescribed('POST', '/api/auth/refresh', await server.request('POST', '/api/auth/refresh', { body: { refreshToken: signIn.body.refreshToken } }));
    expectDescribed('GET', '/api/auth/profile', await server.request('GET', '/api/auth/profile', { token: carol.token }));

    const created = await server.request('POST', '/api/tickets', {
      token: carol.token,
      body: { title: 'Invoice twice', description: 'I was charged twice', category },
    });
    expectDescribed('POST', '/api/tickets', created);
    const id = created.body.ticket._id as string;
    const agent = await addMember(server, admin, 'agent', 'Alice');
    expectDescribed(
      'POST',
      '/api/tickets/{id}/assign',
      await server.request('POST', `/api/tickets/${id}/assign`, { token: admin, body: { agentId: agent.id } }),
    );
    expectDescribed(
      'POST',
      '/api/tickets/{id}/messages',
      await server.request('POST', `/api/tickets/${id}/messages`, { token: agent.token, body: { content: 'Looking into it' } }),
    );
    await server.request('POST', `/api/tickets/${id}/messages`, { token: agent.token, body: { content: 'Refund approved', isInternal: true } });
    expectDescribed(
      'PUT',
      '/api/tickets/{id}/outcome',
      await server.request('PUT', `/api/tickets/${id}/outcome`, { token: agent.token, body: { outcomeMessage: 'Refunded' } }),
    );
    for (const token of [carol.token, agent.token]) {
      expectDescribed('GET', '/api/tickets/{id}', await server.request('GET', `/api/tickets/${id}`, { token }));
      expectDescribed('GET', '/api/tickets', await server.request('GET', '/api/tickets?sort=latest', { token }));
      expectDescribed('GET', '/api/tickets/{id}/messages', await server.request('GET', `/api/tickets/${id}/messages`, { token }));
    }
    expectDescribed('GET', '/api/tickets/stats', await server.request('GET', '/api/tickets/stats', { token: admin }));
    expectDescribed('GET', '/api/users', await server.request('GET', '/api/users', { token: admin }));
    expectDescribed('GET', '/api/categories', await server.request('GET', '/api/categories', { token: carol.token }));
    expectDescribed('GET', '/api/health', await server.request('GET', '/api/health'));
    expectDescribed('GET', '/api/users/stats', await server.request('GET', '/api/users/stats', { token: admin }));
    expectDescribed('GET', '/api/settings/public', await server.request('GET', '/api/settings/public'));
    expectDescribed('GET', '/api/categories/{id}', await server.request('GET', `/api/categories/${category}`, { token: carol.token }));
    expectDescribed('GET', '/api/deliveries', await server.request('GET', '/api/deliveries', { token: admin }));
    const canned = await server.request('POST', '/api/canned-messages', {
      token: agent.token,
      body: { shortcode: 'refund', title: 'Refund', content: 'Your refund is on its way', category },
    });
    expectDescribed('POST', '/api/canned-messages', canned);
    expectDescribed(
      'PUT',
      '/api/canned-messages/{id}/usage',
      await server.request('PUT', `/api/canned-messages/${canned.body.cannedMessage._id}/usage`, { token: agent.token }),
    );
    expectDescribed('GET', '/api/canned-messages', await server.request('GET', '/api/canned-messages', { token: agent.token }));
    expectDescribed(
      'POST',
      '/api/whitelist',
      await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '777001', username: 'zoe', notes: 'VIP' } }),
    );
    expectDescribed('PUT', '/api/whitelist/{key}', await server.request('PUT', '/api/whitelist/777001', { token: admin, body: { isActive: false } }));
    expectDescribed('GET', '/api/whitelist', await server.request('GET', '/api/whitelist', { token: admin }));
    expectDescribed('GET', '/api/whitelist/check/{value}', await server.request('GET', '/api/whitelist/check/777001', { token: admin }));
    expectDescribed('GET', '/api/whitelist/access-requests', await server.request('GET', '/api/whitelist/access-requests', { token: admin }));
    expectDescribed(
      'POST',
      '/api/bot-commands',
      await server.request('POST', '/api/bot-commands', {
        token: admin,
        body: { command: 'hours', description: 'Opening hours', handler: 'custom', response: 'Mon-Fri 9-17' },
      }),
    );
    expectDescribed('GET', '/api/bot-commands', await server.request('GET', '/api/bot-commands', { token: admin }));
    expectDescribed('GET', '/api/bot-settings', await server.request('GET', '/api/bot-settings', { token: admin }));
    expectDescribed('GET', '/api/categories/stats', await server.request('GET', '/api/categories/stats', { token: agent.token }));
    expectDescribed('GET', '/api/auth/notifications/preferences', await server.request('GET', '/api/auth/notifications/preferences', { token: agent.token }));
    expectDescribed(
      'PUT',
      '/api/auth/notifications/preferences',
      await server.request('PUT', '/api/auth/notifications/preferences', { token: agent.token, body: { ticketUpdates: false } }),
    );
    const botStatus = await server.request('GET', '/api/settings/telegram/status', { token: admin });
    expect(botStatus.body.status).toBe('inactive');
    expectDescribed('GET', '/api/settings/telegram/status', botStatus);
  });

  it('describes real errors: 400, 401, 403, 404, 409 with its extra field', async () => {
    const invalid = await server.request('POST', '/api/tickets', { token: carol.token, body: { title: '' } });
    expect(invalid.status).toBe(400);
    expectDescribed('POST', '/api/tickets', invalid);
    const unsigned = await server.request('GET', '/api/tickets');
    expect(unsigned.status).toBe(401);
    expectDescribed('GET', '/api/tickets', unsigned);
    const wrongPassword = await server.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'not-the-password' } });
    expect(wrongPassword.status).toBe(401);
    expectDescribed('POST', '/api/auth/login', wrongPassword);
    const forbidden = await server.request('GET', '/api/tickets/stats', { token: carol.token });
    expect(forbidden.status).toBe(403);
    expectDescribed('GET', '/api/tickets/stats', forbidden);
    const missing = await server.request('GET', '/api/tickets/no-such-ticket', { token: carol.token });
    expect(missing.status).toBe(404);
    expectDescribed('GET', '/api/tickets/{id}', missing);
    const dave = await addMember(server, admin, 'customer', 'Dave');
    await openTicket(server, dave, category);
    const second = await server.request('POST', '/api/tickets', { token: dave.token, body: { title: 'Again', description: 'Another one', category } });
    expect(second.body.code).toBe('OPEN_TICKET_EXISTS');
    expectDescribed('POST', '/api/tickets', second);
  });

  /** One raw call (fetch refuses a body on GET): the status and the body, parsed when it is JSON. */
  function probe(method: string, url: string, options: { token?: string; contentType?: string; body?: string } = {}) {
    return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const headers: Record<string, string> = { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
      if (options.body !== undefined)
        Object.assign(headers, { 'content-type': options.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(options.body)) });
      const call = httpRequest(`${server.url}${url}`, { method, headers }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: the status is what is checked
          }
          resolve({ status: response.statusCode!, body });
        });
      });
      call.on('error', reject);
      call.end(options.body);
    });
  }

  it('lists every status the server answers, for every route probed without a token, with a bad token, as a customer and as an admin, and with a malformed, an oversized and a non-JSON body', async () => {
    const customer = await addMember(server, admin, 'customer', 'Probe');
    // Signing out ends the session of the token used, so that route is probed last.
    const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>)
      .flatMap(([path, byMethod]) => Object.keys(byMethod).map((method) => ({ method: method.toUpperCase(), path })))
      .filter(({ path }) => path.startsWith('/api/'))
      .sort((a, b) => Number(a.path === '/api/auth/logout') - Number(b.path === '/api/auth/logout'));
    const oversized = JSON.stringify({ content: 'x'.repeat(1_100_000) });
    const probes: Array<[string, { token?: string; contentType?: string; body?: string }]> = [
      ['anonymous', {}],
      ['a forged token', { token: 'not-a-token' }],
      ['a customer with an empty object', { token: customer.token, body: '{}' }],
      ['an admin with an empty object', { body: '{}' }],
      ['an admin with malformed JSON', { body: '{"a":' }],
      ['an admin with a body over 1 MB', { body: oversized }],
      ['an admin with a text body', { body: 'hello', contentType: 'text/plain' }],
    ];
    const undocumented: string[] = [];
    const seen = new Set<number>();
    const adminToken = await server.login();
    for (const { method, path } of operations) {
      const url = path.replace(/\{(\w+)\}/g, 'no-such-$1');
      for (const [who, options] of probes) {
        const answer = await probe(method, url, { ...options, token: options.token ?? (who.startsWith('an admin') ? adminToken : undefined) });
        seen.add(answer.status);
        if (doc.paths[path][method.toLowerCase()].responses[String(answer.status)] === undefined)
          undocumented.push(`${method} ${path} as ${who}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`);
      }
    }
    expect(undocumented).toEqual([]);
    // The probes reached the statuses they are for.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 401, 403, 404, 413, 415]));
  }, 180_000);

  it('is shown at /api/docs by a reference page that loads nothing from elsewhere and works under the Content-Security-Policy', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('request', (request) => {
        if (!request.url().startsWith(server.url)) problems.push(`fetched ${request.url()}`);
      });
      const answer = await page.goto(`${server.url}/api/docs`);
      expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
      // Every section is listed, folded; opening one shows its routes.
      await page.locator('.opblock-tag', { hasText: 'webhooks' }).first().waitFor();
      await page.locator('.opblock-tag[data-tag="tickets"]').click();
      await page.getByText('/api/tickets/{id}/messages').first().waitFor();
      await expect(page.getByRole('heading', { name: /Support desk API/ }).count()).resolves.toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
