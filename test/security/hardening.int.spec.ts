import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Socket, io } from 'socket.io-client';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { eventually } from '../support/eventually';
import { ADMIN, type TestServer, startTestServer } from '../support/server';
import { createMailer, outboxDir } from '../../src/workers/email/mailer';
import { recordAccessAttempt } from '../../src/app/whitelist/service';

// Each test starts users and tickets (argon2 hashing) on a machine shared with other suites.
jest.setTimeout(60_000);

/** Issue 22: each finding of the hostile sweep, reproduced over real HTTP and sockets. */
describe('Security hardening (issue 22)', () => {
  let server: TestServer;
  let admin: string;
  let alice: Member;
  let bob: Member;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    bob = await addMember(server, admin, 'agent', 'Bob');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  const customer = () => addMember(server, admin, 'customer', 'Carol');
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  describe('1. custom-field patterns', () => {
    it('when a pattern backtracks catastrophically, then a hostile answer is checked in linear time without blocking the server', async () => {
      const created = await server.request('POST', '/api/categories', {
        token: admin,
        body: { name: 'ReDoS', customFields: [{ fieldName: 'code', fieldType: 'text', prompt: 'Code', validation: { pattern: '^(a+)+$' } }] },
      });
      expect(created.status).toBe(201);
      const carol = await customer();
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const started = process.hrtime.bigint();
      const refused = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 't', description: 'd', category: created.body.category._id, customFieldValues: { code: `${'a'.repeat(30)}!` } },
      });
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      delay.disable();
      expect(refused).toMatchObject({ status: 400, body: { error: 'Code does not have the expected format' } });
      // Backtracking takes seconds for 30 characters (and doubles per character); RE2 semantics take microseconds.
      expect(delay.max / 1e6).toBeLessThan(1000);
      process.stdout.write(`ReDoS answer (31 characters against ^(a+)+$) answered in ${elapsedMs.toFixed(1)} ms\n`);
      const accepted = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 't', description: 'd', category: created.body.category._id, customFieldValues: { code: 'a'.repeat(30) } },
      });
      expect(accepted.status).toBe(201);
    });

    it('when a pattern needs backtracking features (lookaround, backreferences), then it is refused with a clear message', async () => {
      for (const pattern of ['^(?=a)a$', '^(a)\\1$']) {
        const refused = await server.request('POST', '/api/categories', {
          token: admin,
          body: { name: `Bad pattern ${pattern}`, customFields: [{ fieldName: 'f', fieldType: 'text', prompt: 'F', validation: { pattern } }] },
        });
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatch(/^Pattern is not supported/);
      }
    });
  });

  describe('2. sign-in throttling', () => {
    const attempt = (email: string, password: string, address: string) =>
      server.request('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });

    it('when anyone sends many wrong passwords for the admin from many addresses, then the admin still signs in from a clean address', async () => {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => attempt(ADMIN.email, 'wrong-password', `198.51.100.${i + 1}`).then((r) => r.status)),
      );
      // Each guess is refused: checked and wrong (401), or refused before the check by the account's pace (429, docs/identity.md).
      expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
      const signedIn = await attempt(ADMIN.email, ADMIN.password, '203.0.113.7');
      expect(signedIn.status).toBe(200);
    });

    it('when one address fails for one account, then that pair waits while another account behind the same address signs in', async () => {
      const mallory = await addMember(server, admin, 'agent', 'Mallory');
      const dave = await addMember(server, admin, 'agent', 'Dave');
      let last = 0;
      for (let i = 0; i < 6; i++) last = (await attempt(mallory.email, 'wrong-password', '192.0.2.50')).status;
      expect(last).toBe(429);
      expect((await attempt(dave.email, 'password-123', '192.0.2.50')).status).toBe(200);
      expect((await attempt(mallory.email, 'password-123', '192.0.2.51')).status).toBe(200);
    });
  });

  describe('3. content types', () => {
    it('when a JSON body is sent as text/plain or form data, then it is refused with 415, nothing changes, and bodiless calls still work', async () => {
      const before = await server.deps.events.headPosition();
      const json = JSON.stringify({ systemName: 'Changed' });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const refused = await server.request('PUT', '/api/settings', { token: admin, body: json, headers: { 'content-type': type } });
        expect(refused).toMatchObject({
          status: 415,
          body: { code: 'UNSUPPORTED_MEDIA_TYPE', error: 'Send the body as JSON (Content-Type: application/json)' },
        });
      }
      const category415 = await server.request('POST', '/api/categories', {
        token: admin,
        body: JSON.stringify({ name: 'Plain' }),
        headers: { 'content-type': 'text/plain' },
      });
      expect(category415.status).toBe(415);
      expect(await server.deps.events.headPosition()).toBe(before);
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      expect((await server.request('POST', `/api/tickets/${ticket._id}/messages/read`, { token: carol.token })).status).toBe(204);
      const form = new FormData();
      form.append('content', 'over multipart');
      const posted = await fetch(`${server.url}/api/tickets/${ticket._id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${carol.token}` },
        body: form,
      });
      expect(posted.status).toBe(201);
    });

    it('when a JSON body is not UTF-8 or names another charset, then it is refused with a clear error and nothing is stored', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      const send = (body: Buffer, type = 'application/json') =>
        fetch(`${server.url}/api/tickets/${ticket._id}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${carol.token}`, 'content-type': type },
          body: new Uint8Array(body),
        }).then(async (answer) => ({ status: answer.status, body: (await answer.json()) as unknown }));
      for (const bytes of [
        Buffer.from('{"content":"caf\xe9 \xff"}', 'latin1'),
        Buffer.from([0x7b, 0x22, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      ]) {
        expect(await send(bytes)).toEqual({ status: 400, body: { error: 'The request body is not valid UTF-8 text', code: 'INVALID_ENCODING' } });
      }
      expect(await send(Buffer.from('{"content":"hi"}'), 'application/json; charset=latin1')).toEqual({
        status: 415,
        body: { error: 'The request body must be UTF-8 JSON (charset=utf-8)', code: 'UNSUPPORTED_CHARSET' },
      });
      expect(await send(Buffer.from('{"content":"café ✓"}'))).toMatchObject({ status: 201, body: { message: { content: 'café ✓' } } });
      const messages = await server.request('GET', `/api/tickets/${ticket._id}/messages`, { token: carol.token });
      expect(messages.body.messages.map((message: { content: string }) => message.content)).toEqual(['café ✓']);
    });
  });

  describe('4. control characters', () => {
    it('when single-line fields carry line breaks, NUL, bidi overrides or lone surrogates, then they are refused; multi-line fields keep line breaks', async () => {
      const carol = await customer();
      const bad = ['a\nb', 'a\r\nb', 'a\u0000b', 'evil\u202Etxt.exe', 'lone \uD800 half', 'tab\u0007bell'];
      for (const text of bad) {
        const cases: Array<[string, string, unknown, string]> = [
          ['POST', '/api/tickets', { title: text, description: 'd', category }, carol.token],
          ['POST', '/api/categories', { name: text }, admin],
          ['POST', '/api/canned-messages', { shortcode: 'cc', title: text, content: 'c' }, admin],
          ['POST', '/api/whitelist', { telegramId: '5551', firstName: text }, admin],
          ['POST', '/api/bot-commands', { command: 'ctl', description: text, handler: 'help' }, admin],
          ['PUT', '/api/settings', { systemName: text }, admin],
          [
            'POST',
            '/api/users',
            { firstName: text, lastName: 'L', username: 'ctl_user', email: 'ctl@example.com', password: 'password-123', role: 'agent' },
            admin,
          ],
        ];
        for (const [method, url, body, token] of cases) {
          const answer = await server.request(method, url, { token, body });
          expect({ url, text, status: answer.status }).toEqual({ url, text, status: 400 });
          expect(answer.body.error).toMatch(/cannot contain (line breaks or )?control characters/);
        }
      }
      const multi = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 'Two lines', description: 'first line\r\nsecond line', category },
      });
      expect(multi.status).toBe(201);
      expect(multi.body.ticket.description).toBe('first line\r\nsecond line');
      const hidden = await server.request('POST', `/api/tickets/${multi.body.ticket._id}/messages`, {
        token: carol.token,
        body: { content: 'look \u202Eright' },
      });
      expect(hidden.status).toBe(400);
      const bot = await server.request('PUT', '/api/bot-settings', { token: admin, body: { messages: { helpMessage: 'Line one\nLine two\u0000' } } });
      expect(bot.status).toBe(400);
      expect((await server.request('PUT', '/api/bot-settings', { token: admin, body: { messages: { helpMessage: 'Line one\nLine two' } } })).status).toBe(200);
    });

    it('when an upload name carries a bidi override, then the upload is refused and nothing is stored', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      const form = new FormData();
      form.append('content', 'see attached');
      form.append('attachments', new Blob(['plain text'], { type: 'text/plain' }), 'invoice\u202Etxt.exe.txt');
      const refused = await fetch(`${server.url}/api/tickets/${ticket._id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${carol.token}` },
        body: form,
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/control characters/);
    });
  });

  describe('5. whitelist check', () => {
    it('when an entry has no username, then an empty, blank or pattern-like value matches nothing', async () => {
      expect((await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '7770001' } })).status).toBe(201);
      expect((await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '7770002', username: 'real_user' } })).status).toBe(201);
      for (const value of ['*', '%20', '.*', '@', '%40', 'real.user', 'real_use.', '^real_user$']) {
        const answer = await server.request('GET', `/api/whitelist/check/${value}`, { token: admin });
        expect({ value, answer: answer.body }).toEqual({ value, answer: { whitelisted: false } });
      }
      expect((await server.request('GET', '/api/whitelist/check/@REAL_USER', { token: admin })).body.whitelisted).toBe(true);
    });
  });

  describe('6. numbers in queries', () => {
    it('when a number is empty, hexadecimal, exponential, signed or padded, then it is refused; plain decimals work', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      for (const query of ['limit=0x10', 'limit=1e1', 'limit=', 'limit=+5', 'limit=%2010', 'page=1.0', 'page=0b1']) {
        const answer = await server.request('GET', `/api/tickets?${query}`, { token: admin });
        expect({ query, status: answer.status }).toEqual({ query, status: 400 });
      }
      expect((await server.request('GET', `/api/tickets/${ticket._id}/at?revision=`, { token: admin })).status).toBe(400);
      expect((await server.request('GET', `/api/tickets/${ticket._id}/at?revision=0x0`, { token: admin })).status).toBe(400);
      expect((await server.request('GET', `/api/tickets/${ticket._id}/at?revision=0`, { token: admin })).status).toBe(200);
      expect((await server.request('GET', '/api/tickets?limit=16&page=1', { token: admin })).body.pagination).toMatchObject({ limit: 16, page: 1 });
      // Too many digits is out of range, said as such; a misspelt or repeated filter is refused, not ignored.
      expect(await server.request('GET', '/api/tickets?page=99999999999999999999', { token: admin })).toMatchObject({
        status: 400,
        body: { error: 'page must be at most 9007199254740991' },
      });
      for (const [query, error] of [
        ['stauts=closed', 'Unknown field: stauts'],
        ['status[]=closed', 'Unknown field: status[]'],
      ]) {
        const answer = await server.request('GET', `/api/tickets?${query}`, { token: admin });
        expect({ query, status: answer.status, error: answer.body.error }).toEqual({ query, status: 400, error });
      }
      const huge = await fetch(`${server.url}/api/tickets?q=${'x'.repeat(20_000)}`, { headers: { authorization: `Bearer ${admin}` } });
      expect({ status: huge.status, body: await huge.json() }).toMatchObject({ status: 431, body: { code: 'HEADERS_TOO_LARGE' } });
      expect(await server.request('GET', `/api/tickets/${ticket._id}/at`, { token: admin })).toMatchObject({
        status: 400,
        body: { error: 'Give revision or time: the moment of the history to show' },
      });
    });
  });

  describe('7. assignment', () => {
    it('when an agent tries to take a ticket another agent holds, then 409; an admin may reassign it', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      expect((await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: alice.token, body: { agentId: alice.id } })).status).toBe(200);
      const taken = await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: bob.token, body: { agentId: bob.id } });
      expect(taken).toMatchObject({ status: 409, body: { code: 'TICKET_ALREADY_ASSIGNED' } });
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: bob.token, body: { assignedAgent: bob.id } })).status).toBe(409);
      const reassigned = await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: admin, body: { agentId: bob.id } });
      expect(reassigned.status).toBe(200);
      expect(reassigned.body.ticket.assignedAgent._id).toBe(bob.id);
    });

    it('when two agents assign themselves at the same moment, then exactly one gets it and the other gets 409', async () => {
      const carol = await customer();
      for (let round = 0; round < 5; round++) {
        const ticket = await openTicket(server, carol, category);
        const answers = await Promise.all(
          [alice, bob].map((agent) => server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } })),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        const winner = answers.find((a) => a.status === 200)!.body.ticket.assignedAgent._id;
        expect((await server.request('GET', `/api/tickets/${ticket._id}`, { token: admin })).body.ticket.assignedAgent._id).toBe(winner);
        await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'closed' } });
      }
    });
  });

  describe('8. staff-only activity', () => {
    it('when staff add notes and an outcome, then the customer cannot count them through /at', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      for (const content of ['note 1', 'note 2', 'note 3']) {
        expect((await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: alice.token, body: { content, isInternal: true } })).status).toBe(
          201,
        );
      }
      expect(
        (await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, { token: alice.token, body: { outcomeMessage: 'Internal outcome' } })).status,
      ).toBe(200);
      const staff = await server.request('GET', `/api/tickets/${ticket._id}/at?revision=4`, { token: admin });
      expect(staff.body.latestRevision).toBe(4);
      for (const revision of [1, 4, 5]) {
        const answer = await server.request('GET', `/api/tickets/${ticket._id}/at?revision=${revision}`, { token: carol.token });
        expect(answer).toMatchObject({ status: 400, body: { error: `Revision ${revision} does not exist: this ticket's history has revisions 0 to 0` } });
      }
      expect((await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: alice.token, body: { content: 'A public reply' } })).status).toBe(
        201,
      );
      const latest = await server.request('GET', `/api/tickets/${ticket._id}/at?revision=1`, { token: carol.token });
      expect(latest.status).toBe(200);
      expect(latest.body.messages.map((m: { content: string }) => m.content)).toEqual(['A public reply']);
      const byTime = await server.request('GET', `/api/tickets/${ticket._id}/at?time=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
        token: carol.token,
      });
      expect(byTime.body.ticket.outcomeMessage).toBeNull();
    });

    it('when an outcome is recorded, then the customer socket receives nothing about it, and no staff id in other updates', async () => {
      const carol = await customer();
      const ticket = await openTicket(server, carol, category);
      const socket: Socket = io(server.url, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: { token: carol.token } });
      const received: Array<{ event: string; payload: { change?: { kind: string; by?: string } } }> = [];
      socket.onAny((event: string, payload) => received.push({ event, payload }));
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      try {
        expect(
          (await server.request('PUT', `/api/tickets/${ticket._id}/outcome`, { token: alice.token, body: { outcomeMessage: 'Secret outcome' } })).status,
        ).toBe(200);
        // A later status change is the barrier: pushes are sent in log order.
        expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: alice.token, body: { status: 'pending_customer' } })).status).toBe(200);
        await eventually(() => received.some((r) => r.event === 'ticket_updated' && r.payload.change?.kind === 'status'), { describe: 'status update' });
        const updates = received.filter((r) => r.event === 'ticket_updated');
        expect(updates.map((r) => r.payload.change?.kind)).toEqual(['status']);
        expect(updates[0]!.payload.change).not.toHaveProperty('by');
      } finally {
        socket.close();
      }
    });
  });

  describe('9. data at rest', () => {
    it('when a server starts on a new DATA_DIR and takes an upload, then the directory, the log, the queue, the uploads and the outbox are private to its user', async () => {
      const parent = mkdtempSync(path.join(tmpdir(), 'desk-modes-'));
      const dataDir = path.join(parent, 'data');
      const fresh = await startTestServer({ dataDir });
      try {
        const token = await fresh.login();
        const freshCategory = await addCategory(fresh, token);
        const ticket = await fresh.request('POST', '/api/tickets', { token, body: { title: 't', description: 'd', category: freshCategory } });
        const form = new FormData();
        form.append('attachments', new Blob(['plain text'], { type: 'text/plain' }), 'notes.txt');
        const posted = await fetch(`${fresh.url}/api/tickets/${ticket.body.ticket._id}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: form,
        });
        expect(posted.status).toBe(201);
        const { message } = (await posted.json()) as { message: { attachments: Array<{ url: string }> } };
        const fileId = message.attachments[0]!.url.split('/').pop()!;
        expect(modeOf(dataDir)).toBe(0o700);
        expect(modeOf(path.join(dataDir, 'events.db'))).toBe(0o600);
        expect(modeOf(path.join(dataDir, 'events.db-wal'))).toBe(0o600);
        if (fresh.deps.queue.kind === 'inline') expect(modeOf(path.join(dataDir, 'queue.db'))).toBe(0o600);
        expect(modeOf(path.join(dataDir, 'uploads'))).toBe(0o700);
        expect(modeOf(path.join(dataDir, 'uploads', '.incoming'))).toBe(0o700);
        expect(modeOf(path.join(dataDir, 'uploads', fileId))).toBe(0o600);
        expect(modeOf(path.join(dataDir, 'jwt-secret'))).toBe(0o600);
        const mailer = createMailer({ DATA_DIR: dataDir, SMTP_URL: undefined });
        await mailer.send({ from: { name: 'Desk', address: 'desk@example.com' }, to: 'carol@example.com', subject: 'Hi', text: 'Hello' }, 'mode-check');
        mailer.close();
        expect(modeOf(outboxDir({ DATA_DIR: dataDir }))).toBe(0o700);
        expect(modeOf(path.join(outboxDir({ DATA_DIR: dataDir }), 'mode-check.eml'))).toBe(0o600);
      } finally {
        await fresh.stop();
        rmSync(parent, { recursive: true, force: true });
      }
    });
  });

  describe('10. lists page', () => {
    it('when a list is asked for a page, then it answers that page with the pagination of docs/contract.md', async () => {
      for (let i = 0; i < 3; i++) {
        await addCategory(server, admin);
        expect(
          (await server.request('POST', '/api/canned-messages', { token: admin, body: { shortcode: `page${i}`, title: `Page ${i}`, content: 'c' } })).status,
        ).toBe(201);
        expect((await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: `880000${i}` } })).status).toBe(201);
        expect(
          (
            await server.request('POST', '/api/bot-commands', {
              token: admin,
              body: { command: `page_${'x'.repeat(i + 1)}`, description: 'd', handler: 'help' },
            })
          ).status,
        ).toBe(201);
        const telegramId = `990000${i}`;
        const knocked = await recordAccessAttempt(
          server.deps,
          telegramId,
          { username: `knock${i}`, firstName: 'K', lastName: 'N', message: 'hi' },
          {
            actor: { userId: `telegram:${telegramId}`, role: 'customer', platform: 'telegram' },
            now: new Date(),
          },
        );
        await server.deps.projections.waitFor(knocked);
      }
      const lists: Array<[string, string]> = [
        ['/api/canned-messages', 'cannedMessages'],
        ['/api/categories', 'categories'],
        ['/api/whitelist', 'entries'],
        ['/api/bot-commands', 'commands'],
        ['/api/whitelist/access-requests', 'requests'],
      ];
      for (const [url, key] of lists) {
        const all = await server.request('GET', `${url}?limit=1000`, { token: admin });
        const total = all.body[key].length as number;
        expect(all.body.pagination).toEqual({ page: 1, limit: 1000, total, pages: Math.ceil(total / 1000) });
        const first = await server.request('GET', `${url}?page=1&limit=2`, { token: admin });
        expect({ url, pagination: first.body.pagination }).toEqual({ url, pagination: { page: 1, limit: 2, total, pages: Math.ceil(total / 2) } });
        expect(first.body[key]).toEqual(all.body[key].slice(0, 2));
        const second = await server.request('GET', `${url}?page=2&limit=2`, { token: admin });
        expect(second.body[key]).toEqual(all.body[key].slice(2, 4));
        expect((await server.request('GET', `${url}?limit=1001`, { token: admin })).status).toBe(400);
      }
    });
  });
});
