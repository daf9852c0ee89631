import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import pino from 'pino';
import { API_TOKEN_SCOPES, type ApiTokenScope } from '#contract/apiTokens';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { servedRoutes } from '../../../test/support/routes';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { createApp } from '../app';
import { authenticate, currentUser, requireRole } from './auth';
import { errorHandler } from './errors';
import { type TokenRule, scope } from './scopes';

interface Operation {
  method: string;
  /** As the document writes it: `/api/tickets/{id}`. */
  path: string;
  rule: TokenRule;
  responses: Record<string, unknown>;
}

interface Caller {
  who: string;
  role: 'admin' | 'customer';
  scopes: ApiTokenScope[];
}

interface Answer {
  status: number;
  body: { code?: string; error?: string } | string | null;
}

const REFUSALS = ['INSUFFICIENT_SCOPE', 'TOKEN_NOT_ALLOWED'];
/** Every single scope on an admin's token (so the role never refuses), the notes rule's pair, and a customer's reading token. */
const CALLERS: Caller[] = [
  ...API_TOKEN_SCOPES.map((single): Caller => ({ who: `an admin's ${single} token`, role: 'admin', scopes: [single] })),
  { who: "an admin's tickets:read + notes:read token", role: 'admin', scopes: ['tickets:read', 'notes:read'] },
  { who: "a customer's tickets:read token", role: 'customer', scopes: ['tickets:read'] },
];
/** Query strings that make a route answer at once with what it holds (the feed would wait 20 s). */
const QUERIES: Record<string, string> = { '/api/events': '?wait=0', '/api/tickets/{id}/at': '?revision=1', '/api/search': '?q=secret' };

const allows = (rule: TokenRule, caller: Caller) =>
  rule.allowed &&
  [...rule.scopes, ...(caller.role === 'admin' ? rule.staffScopes : [])].every((needed) => caller.scopes.includes(needed) || caller.scopes.includes('admin'));

const codeOf = (answer: Answer) => (typeof answer.body === 'object' && answer.body !== null ? answer.body.code : undefined);

/** The documented operation a URL's path reaches, as the strict, case-sensitive router matches it: literal segments before parameters. */
function operationFor(operations: Operation[], method: string, path: string): Operation | undefined {
  const matching = operations.filter(
    (operation) => operation.method === method && new RegExp(`^${operation.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
  const literals = (operation: Operation) => operation.path.split('/').filter((segment) => !segment.startsWith('{')).length;
  return matching.sort((a, b) => literals(b) - literals(a))[0];
}

/** The path with a letter-case or trailing-slash change: what a client may write to reach the route another way. */
function variantsOf(path: string): string[] {
  const segments = path.split('/');
  const upperOne = segments.flatMap((segment, index) =>
    index > 1 && !segment.startsWith('{') && segment !== segment.toUpperCase()
      ? [segments.map((other, at) => (at === index ? other.toUpperCase() : other)).join('/')]
      : [],
  );
  const upperAll = ['', 'api', ...segments.slice(2).map((segment) => (segment.startsWith('{') ? segment : segment.toUpperCase()))].join('/');
  return [...new Set([`${path}/`, ...upperOne, upperAll, path.replace(/^\/api/, '/API')])].filter((variant) => variant !== path);
}

describe('API token scopes, declared per route', () => {
  let server: TestServer;
  let operations: Operation[];
  let ticketId: string;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const customer = await addMember(server, admin, 'customer', 'Carol');
    ticketId = (await openTicket(server, customer, category))._id;
    const note = await server.request('POST', `/api/tickets/${ticketId}/messages`, { token: admin, body: { content: 'secret note', isInternal: true } });
    expect(note.status).toBe(201);
    const owners = { admin: (await server.signIn()).user._id, customer: customer.id };
    // A token per caller and kind of path, so no walk reaches the per-token rate limit (600 a minute).
    for (const caller of CALLERS)
      for (const kind of ['exact', 'variant']) {
        const created = await server.request('POST', '/api/api-tokens', {
          token: admin,
          body: { label: `${caller.who} ${kind}`, userId: owners[caller.role], scopes: caller.scopes },
        });
        expect(created.status).toBe(201);
        tokens.set(`${caller.who} ${kind}`, created.body.secret as string);
      }
    const doc = (await server.request('GET', '/api/openapi.json')).body;
    operations = Object.entries(doc.paths as Record<string, Record<string, { 'x-api-token': TokenRule; responses: Record<string, unknown> }>>)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, byMethod]) =>
        Object.entries(byMethod).map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          rule: operation['x-api-token'],
          responses: operation.responses,
        })),
      );
  }, 60_000);
  afterAll(() => server.stop());

  /** A URL for a documented path: the ticket with an internal note for a ticket's id on reads, an unknown id elsewhere. */
  const urlOf = (method: string, path: string) =>
    `${path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' && method === 'GET' && /^\/api\/tickets\//i.test(path) ? ticketId : `no-such-${name}`))}${QUERIES[path] ?? ''}`;

  it('declares a rule on every route the app serves, the one the OpenAPI document shows as x-api-token', () => {
    const declared = servedRoutes(createApp(server.deps))
      .filter(({ path }) => path.startsWith('/api/'))
      .map(({ method, path, handlers }) => ({
        route: `${method} ${path}`,
        rules: handlers.flatMap((handler) => (typeof handler === 'function' && 'tokenRule' in handler ? [handler.tokenRule] : [])),
      }));
    const documented = new Map(operations.map(({ method, path, rule }) => [`${method} ${path}`, rule]));
    expect(declared.length).toBeGreaterThan(100);
    expect(declared.filter(({ rules }) => rules.length !== 1).map(({ route }) => route)).toEqual([]);
    expect(declared.filter(({ route, rules }) => JSON.stringify(rules[0]) !== JSON.stringify(documented.get(route))).map(({ route }) => route)).toEqual([]);
  });

  it('answers every route, as written and with its letter case or a trailing slash changed, only as the declared scopes allow', async () => {
    const wrong: string[] = [];
    const seen = new Set<number>();
    const judge = (caller: Caller, method: string, url: string, answer: Answer) => {
      seen.add(answer.status);
      const path = url.split('?')[0]!;
      const reached = operationFor(operations, method, path);
      const line = `${caller.who}: ${method} ${url} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 100)}`;
      if (answer.status >= 500) return wrong.push(line);
      if (!reached) {
        // No route: the API router's 404 (or, outside /api, the app's), never a route reached by another spelling.
        const routerNotFound = typeof answer.body === 'object' && answer.body?.error?.startsWith('No API route') === true;
        if (answer.status !== 404 || (path.startsWith('/api/') && !routerNotFound)) wrong.push(`${line}, expected no route`);
        return;
      }
      const allowed = allows(reached.rule, caller);
      const refusedAs = reached.rule.allowed ? 'INSUFFICIENT_SCOPE' : 'TOKEN_NOT_ALLOWED';
      if (allowed ? REFUSALS.includes(codeOf(answer) ?? '') : answer.status !== 403 || codeOf(answer) !== refusedAs)
        wrong.push(`${line}, expected ${reached.method} ${reached.path} ${allowed ? 'to let it in' : `to refuse it with ${refusedAs}`}`);
      else if (reached.responses[String(answer.status)] === undefined) wrong.push(`${line}, a status the document does not list`);
    };
    await Promise.all(
      CALLERS.map(async (caller) => {
        for (const { method, path } of operations) {
          const url = urlOf(method, path);
          judge(caller, method, url, await server.request(method, url, { token: tokens.get(`${caller.who} exact`)! }));
          for (const variant of variantsOf(path)) {
            const variantUrl = urlOf(method, variant);
            judge(caller, method, variantUrl, await server.request(method, variantUrl, { token: tokens.get(`${caller.who} variant`)! }));
          }
        }
      }),
    );
    expect(wrong).toEqual([]);
    // The walk reached routes that let tokens in (200), refused them (403) and found no route (404).
    expect([...seen]).toEqual(expect.arrayContaining([200, 403, 404]));
  }, 180_000);

  it('when an admin token lacks notes:read, then the note stays out of every answer, on any spelling of the path', async () => {
    const token = tokens.get(`${CALLERS[0]!.who} variant`)!;
    for (const url of [
      `/api/tickets/${ticketId}/history/`,
      `/api/tickets/${ticketId}/HISTORY`,
      `/api/tickets/${ticketId}/at/?revision=3`,
      '/api/search/?q=secret',
      '/api/SEARCH?q=secret',
      `/api/tickets/${ticketId}/messages/`,
    ]) {
      const answer = await server.request('GET', url, { token });
      expect({ url, status: answer.status, leaks: JSON.stringify(answer.body).includes('secret note') }).toEqual({ url, status: 404, leaks: false });
    }
  });

  it('when a route declares nothing, then every API token is refused there, and a public one treats it as no sign-in (deny by default)', async () => {
    const admin = await server.login();
    const owner = (await server.signIn()).user._id;
    const created = await server.request('POST', '/api/api-tokens', { token: admin, body: { label: 'Everything', userId: owner, scopes: ['admin'] } });
    const app = express();
    const router = Router();
    router.use(authenticate(server.deps));
    router.get('/undeclared', requireRole(), (req, res) => res.json({ user: currentUser(req).id }));
    router.get('/public', (req, res) => res.json({ user: req.user?.id ?? null }));
    router.get('/declared', scope('tickets:read'), requireRole(), (req, res) => res.json({ user: currentUser(req).id }));
    app.use(router);
    app.use(errorHandler(pino({ level: 'silent' })));
    const listening = app.listen(0);
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const call = async (path: string, token: string) => {
        const response = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: (await response.json()) as unknown };
      };
      expect(await call('/undeclared', created.body.secret)).toMatchObject({ status: 403, body: { code: 'TOKEN_NOT_ALLOWED' } });
      expect(await call('/public', created.body.secret)).toEqual({ status: 200, body: { user: null } });
      expect(await call('/declared', created.body.secret)).toEqual({ status: 200, body: { user: owner } });
      // A person signed in is not concerned: the declarations are about API tokens.
      expect(await call('/undeclared', admin)).toEqual({ status: 200, body: { user: owner } });
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });
});
