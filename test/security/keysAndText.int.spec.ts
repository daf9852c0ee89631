import { setTimeout as sleep } from 'node:timers/promises';
import { type Member, addCategory, addMember, openTicket } from '../support/desk';
import { type TestServer, startTestServer } from '../support/server';

// Each test makes users (argon2 hashing) on a machine shared with other suites.
jest.setTimeout(60_000);

/** Zero-width and direction marks alone: what the sweep of issue 40 sent in 47 fields. */
const NOTHING = '\u200B\u200E\u200F\u061C\u2060\uFEFF';

/** Issue 40, defects 5 and 6 (field names, invisible text, patterns, staff-only changes, whitelist IDs), over real HTTP. */
describe('Field names, invisible text, patterns, staff-only changes and whitelist IDs (issue 40)', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
  });
  afterAll(() => server.stop());

  const customer = () => addMember(server, admin, 'customer', 'Carol');
  const ticketBody = (category: string, customFieldValues: unknown) => ({ title: 'Broken', description: 'It fails', category, customFieldValues });
  /** Opens a ticket as a multipart form, with text answers as JSON and one file for the custom field `fileField`. */
  const postForm = (member: Member, category: string, answers: object, fileField: string) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(ticketBody(category, JSON.stringify(answers)))) form.append(key, String(value));
    form.append(`customFieldValues[${fileField}]`, new Blob(['order R-3'], { type: 'text/plain' }), 'order.txt');
    return fetch(`${server.url}/api/tickets`, { method: 'POST', headers: { authorization: `Bearer ${member.token}` }, body: form });
  };

  describe('5. custom fields named after object members', () => {
    let category: string;
    beforeAll(async () => {
      category = await addCategory(server, admin, {
        customFields: [
          { fieldName: 'constructor', fieldType: 'text', prompt: 'Builder', required: true },
          { fieldName: 'toString', fieldType: 'text', prompt: 'Reference', required: true },
          { fieldName: 'valueOf', fieldType: 'number', prompt: 'Amount', required: false },
        ],
      });
    });

    it('when required ones are left blank, then each is refused as required instead of being answered by the prototype', async () => {
      const carol = await customer();
      const answer = await server.request('POST', '/api/tickets', { token: carol.token, body: ticketBody(category, {}) });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('Builder is required');
      expect(answer.body.details).toEqual([
        { path: 'customFieldValues.constructor', message: 'Builder is required' },
        { path: 'customFieldValues.toString', message: 'Reference is required' },
      ]);
    });

    it('when the optional number valueOf is left out or answered, then the ticket opens with exactly the answers given', async () => {
      const carol = await customer();
      const without = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: ticketBody(category, { constructor: 'Lego', toString: 'R-1' }),
      });
      expect(without.status).toBe(201);
      expect(without.body.ticket.customFieldValues).toEqual([
        { fieldName: 'constructor', fieldPrompt: 'Builder', value: 'Lego' },
        { fieldName: 'toString', fieldPrompt: 'Reference', value: 'R-1' },
      ]);
      const dave = await customer();
      const listed = [
        { fieldName: 'constructor', value: 'Duplo' },
        { fieldName: 'toString', value: 'R-2' },
        { fieldName: 'valueOf', value: '12' },
      ];
      const answered = await server.request('POST', '/api/tickets', { token: dave.token, body: ticketBody(category, listed) });
      expect(answered.status).toBe(201);
      expect(answered.body.ticket.customFieldValues.map((value: { value: unknown }) => value.value)).toEqual(['Duplo', 'R-2', 12]);
    });

    it('when a file is sent for a field named toString, then it is stored as that field’s upload', async () => {
      const carol = await customer();
      const answer = await postForm(carol, category, { constructor: 'Lego' }, 'toString');
      const body = (await answer.json()) as { ticket: { customFieldValues: Array<{ fieldName: string; value: unknown }> } };
      expect(answer.status).toBe(201);
      expect(body.ticket.customFieldValues[1]).toEqual({
        fieldName: 'toString',
        fieldPrompt: 'Reference',
        value: { url: expect.stringMatching(/^\/api\/uploads\//), mimeType: 'text/plain', originalName: 'order.txt', size: 9 },
      });
    });

    it('when a field is to be named __proto__, then the category is refused with a clear message', async () => {
      const answer = await server.request('POST', '/api/categories', {
        token: admin,
        body: { name: 'Proto', customFields: [{ fieldName: '__proto__', fieldType: 'text', prompt: 'Proto' }] },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('Field name __proto__ is reserved; please choose another name');
    });

    it('when an answer or a file is sent under __proto__, then it is named as unknown, never dropped or made the prototype', async () => {
      const carol = await customer();
      const json = JSON.stringify({ ...ticketBody(category, {}), customFieldValues: '@' }).replace(
        '"@"',
        '{"__proto__":"x","constructor":"Lego","toString":"R-4"}',
      );
      const asJson = await server.request('POST', '/api/tickets', { token: carol.token, body: json });
      expect(asJson).toMatchObject({ status: 400, body: { error: 'Unknown custom field: __proto__' } });

      const asFile = await postForm(carol, category, { constructor: 'Lego', toString: 'R-4' }, '__proto__');
      expect(asFile.status).toBe(400);
      expect(((await asFile.json()) as { error: string }).error).toBe('Unknown custom field: __proto__');
      const mine = await server.request('GET', '/api/tickets', { token: carol.token });
      expect(mine.body.tickets).toEqual([]);
    });
  });

  describe('6. text that shows nothing, and direction marks', () => {
    it('when a required field holds only zero-width or direction marks, then it is refused as required', async () => {
      const carol = await customer();
      const category = await addCategory(server, admin, { customFields: [{ fieldName: 'order', fieldType: 'text', prompt: 'Order number' }] });
      const ticket = await openTicket(server, carol, category, { customFieldValues: { order: 'A-1' } });
      const cases: Array<[string, string, unknown, string, string]> = [
        ['POST', '/api/tickets', { title: NOTHING, description: 'd', category }, carol.token, 'Title is required'],
        ['POST', '/api/tickets', { title: 't', description: `${NOTHING}\n${NOTHING}`, category }, carol.token, 'Description is required'],
        ['POST', '/api/tickets', { title: 't', description: 'd', category, customFieldValues: { order: NOTHING } }, carol.token, 'Order number is required'],
        ['POST', `/api/tickets/${ticket._id}/messages`, { content: NOTHING }, carol.token, 'A message needs text or at least one file'],
        ['PUT', `/api/tickets/${ticket._id}/outcome`, { outcomeMessage: NOTHING }, agent.token, 'Outcome is required'],
        ['POST', '/api/categories', { name: NOTHING }, admin, 'Name is required'],
        ['POST', '/api/categories', { name: 'C', customFields: [{ fieldName: NOTHING, fieldType: 'text', prompt: 'P' }] }, admin, 'Field name is required'],
        ['POST', '/api/categories', { name: 'C', customFields: [{ fieldName: 'f', fieldType: 'text', prompt: NOTHING }] }, admin, 'Prompt is required'],
        ['POST', '/api/canned-messages', { shortcode: 'inv', title: NOTHING, content: 'c' }, admin, 'Title is required'],
        ['POST', '/api/canned-messages', { shortcode: 'inv', title: 't', content: NOTHING }, admin, 'Content is required'],
        [
          'POST',
          '/api/users',
          { firstName: NOTHING, lastName: 'L', username: 'inv_user', email: 'inv@example.com', password: 'password-123', role: 'agent' },
          admin,
          'First name is required',
        ],
        ['PUT', `/api/users/${carol.id}`, { lastName: NOTHING }, admin, 'Last name is required'],
      ];
      for (const [method, url, body, token, message] of cases) {
        const answer = await server.request(method, url, { token, body });
        expect({ url, body, status: answer.status, error: answer.body.error }).toEqual({ url, body, status: 400, error: message });
      }
    });

    it('when an optional field holds only invisible characters, then it is stored blank', async () => {
      const added = await server.request('POST', '/api/whitelist', {
        token: admin,
        body: { telegramId: '5550101', firstName: NOTHING, notes: `${NOTHING}\n` },
      });
      expect(added.status).toBe(201);
      expect(added.body.entry).toMatchObject({ firstName: '', notes: '' });
    });

    it('when a one-line field carries a direction mark, then it is refused as a control character; a description keeps it', async () => {
      const carol = await customer();
      const category = await addCategory(server, admin);
      for (const mark of ['\u200E', '\u200F', '\u061C']) {
        const title = await server.request('POST', '/api/tickets', {
          token: carol.token,
          body: { title: `invoice${mark}fdp.exe`, description: 'd', category },
        });
        expect(title).toMatchObject({ status: 400, body: { error: 'Title cannot contain line breaks or control characters' } });
        const name = await server.request('POST', '/api/categories', { token: admin, body: { name: `Billing${mark}` } });
        expect(name).toMatchObject({ status: 400, body: { error: 'Name cannot contain line breaks or control characters' } });
        const override = await server.request('POST', '/api/tickets', {
          token: carol.token,
          body: { title: 't', description: `paid\u202E 100${mark}`, category },
        });
        expect(override).toMatchObject({ status: 400, body: { error: 'Description cannot contain control characters' } });
      }
      const hebrew = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 'Refund', description: 'שלום\u200F! תודה\u200E', category },
      });
      expect(hebrew).toMatchObject({ status: 201, body: { ticket: { description: 'שלום\u200F! תודה\u200E' } } });
    });

    it('when invisible joiners stand between visible characters, then the text is kept as written', async () => {
      const carol = await customer();
      const category = await addCategory(server, admin);
      const title = 'Laptop 👩\u200D💻 می\u200Cخواهم';
      const answer = await server.request('POST', '/api/tickets', { token: carol.token, body: { title, description: 'd', category } });
      expect(answer.status).toBe(201);
      expect(answer.body.ticket.title).toBe(title);
    });
  });

  describe('6. custom-field patterns', () => {
    it('when a pattern holds NUL, DEL or a lone surrogate, then the category is refused with a clear message', async () => {
      for (const pattern of ['^a\u0000b$', '^\u007F+$', '^\uD800$', 'x\uDC00']) {
        const answer = await server.request('POST', '/api/categories', {
          token: admin,
          body: { name: 'Pattern', customFields: [{ fieldName: 'code', fieldType: 'text', prompt: 'Code', validation: { pattern } }] },
        });
        expect({ pattern, status: answer.status, error: answer.body.error }).toEqual({
          pattern,
          status: 400,
          error: 'Pattern cannot contain control characters, line breaks or unpaired surrogates; write such a character as an escape like \\x{7F}',
        });
      }
    });
  });

  describe('6. staff-only changes', () => {
    /** Lets the log's clock move on, so that a change that moves updatedAt is seen to. */
    const tick = () => sleep(15);

    it('when an outcome is recorded, then the customer’s updatedAt, /at view and "updated" order stay as they were; staff see it moved', async () => {
      const carol = await customer();
      const first = await openTicket(server, carol, await addCategory(server, admin));
      await tick();
      expect((await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
      await tick();
      const second = await openTicket(server, carol, await addCategory(server, admin));
      const before = (await server.request('GET', `/api/tickets/${first._id}`, { token: carol.token })).body.ticket.updatedAt as string;
      await tick();
      expect((await server.request('PUT', `/api/tickets/${first._id}/outcome`, { token: agent.token, body: { outcomeMessage: 'Refunded' } })).status).toBe(200);

      expect((await server.request('GET', `/api/tickets/${first._id}`, { token: carol.token })).body.ticket.updatedAt).toBe(before);
      expect((await server.request('GET', `/api/tickets/${first._id}`, { token: agent.token })).body.ticket.updatedAt > before).toBe(true);
      const now = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
      expect((await server.request('GET', `/api/tickets/${first._id}/at?time=${now}`, { token: carol.token })).body.ticket.updatedAt).toBe(before);
      const byUpdate = await server.request('GET', '/api/tickets?sort=updated', { token: carol.token });
      expect(byUpdate.body.tickets.map((ticket: { _id: string }) => ticket._id)).toEqual([second._id, first._id]);
      const forStaff = await server.request('GET', `/api/tickets?sort=updated&customer=${carol.id}`, { token: agent.token });
      expect(forStaff.body.tickets.map((ticket: { _id: string }) => ticket._id)).toEqual([first._id, second._id]);

      await tick();
      expect((await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'closed' } })).status).toBe(200);
      expect((await server.request('GET', `/api/tickets/${first._id}`, { token: carol.token })).body.ticket.updatedAt > before).toBe(true);
    });
  });

  describe('6. whitelist IDs', () => {
    it('when an ID is added with leading zeros, a plus or spaces, then it is stored once in its one spelling and found by any', async () => {
      const added = await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '00777001' } });
      expect(added).toMatchObject({ status: 201, body: { entry: { telegramId: '777001' } } });
      for (const telegramId of ['777001', ' +777001 ', '0777001', 777001]) {
        const again = await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId } });
        expect({ telegramId, status: again.status, error: again.body.error }).toEqual({
          telegramId,
          status: 409,
          error: 'This Telegram ID is already whitelisted',
        });
      }
      expect((await server.request('GET', '/api/whitelist/check/000777001', { token: admin })).body).toMatchObject({ whitelisted: true });
      const edited = await server.request('PUT', '/api/whitelist/00777001', { token: admin, body: { notes: 'VIP', telegramId: '+777001' } });
      expect(edited).toMatchObject({ status: 200, body: { entry: { telegramId: '777001', notes: 'VIP' } } });
      const listed = await server.request('GET', '/api/whitelist?limit=1000', { token: admin });
      expect(listed.body.entries.filter((entry: { telegramId: string }) => entry.telegramId.endsWith('777001'))).toHaveLength(1);
      expect((await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: '000' } })).body.error).toBe(
        'Telegram ID must be a positive number',
      );
    });
  });
});
