import { MemoryReadStore } from '../../platform/readstore/memory';
import { directoryProjection } from '../../projections/directory';
import { MACROS, macrosProjection } from '../../projections/macros';
import { ProjectionRunner } from '../../projections/runner';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

interface Entry {
  type: string;
  summary: string;
  macro?: { id: string; name: string; version: number };
  actor: { userId: string } | null;
}

describe('Macros over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let ana: Member;
  let bob: Member;
  let carla: Member;
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    ana = await addMember(server, admin, 'agent', 'Ana');
    bob = await addMember(server, admin, 'agent', 'Bob');
    carla = await addMember(server, admin, 'customer', 'Carla');
    category = await addCategory(server, admin, { name: 'Billing' });
  });
  afterAll(() => server.stop());

  const create = (body: Record<string, unknown>, token = ana.token) => server.request('POST', '/api/macros', { token, body });
  const apply = (ticketId: string, macroId: string, body: Record<string, unknown> = {}, token = ana.token) =>
    server.request('POST', `/api/tickets/${ticketId}/macros/${macroId}/apply`, { token, body });
  const history = async (ticketId: string) => (await server.request('GET', `/api/tickets/${ticketId}/history`, { token: admin })).body.events as Entry[];
  const REFUND = {
    name: 'Refund issued',
    shortcode: 'refund',
    reply: 'Hi {{customer.firstName}}, the refund for #{{ticket.number}} is on its way. {{agent.name}}',
    actions: [
      { type: 'status', status: 'resolved' },
      { type: 'priority', priority: 'low' },
      { type: 'note', text: 'Refunded by {{agent.firstName}}' },
    ],
  };

  it('when an agent saves a macro, then it is version 1, theirs, and invisible to other agents and customers', async () => {
    const created = await create(REFUND);
    expect(created.status).toBe(201);
    expect(created.body.macro).toMatchObject({ ...REFUND, shared: false, version: 1, owner: { _id: ana.id, firstName: 'Ana' } });
    const id = created.body.macro._id;
    expect((await server.request('GET', '/api/macros', { token: ana.token })).body.macros.map((m: { _id: string }) => m._id)).toContain(id);
    expect((await server.request('GET', '/api/macros', { token: bob.token })).body.macros).toEqual([]);
    expect(await server.request('GET', `/api/macros/${id}`, { token: bob.token })).toMatchObject({ status: 404, body: { error: 'Macro not found' } });
    expect((await server.request('PUT', `/api/macros/${id}`, { token: bob.token, body: { name: 'Mine now' } })).status).toBe(404);
    expect((await server.request('GET', '/api/macros', { token: carla.token })).status).toBe(403);
    expect((await create(REFUND, carla.token)).status).toBe(403);
  });

  it('when the input is wrong, then 400 names the field and unknown variables are 422 naming them', async () => {
    expect(await create({ ...REFUND, name: '' })).toMatchObject({ status: 400, body: { error: 'Name is required' } });
    expect(await create({ ...REFUND, actions: [{ type: 'status', status: 'gone' }] })).toMatchObject({
      status: 400,
      body: { error: 'Status must be one of open, in_progress, pending_customer, resolved, closed' },
    });
    expect(await create({ ...REFUND, reply: '', actions: [] })).toMatchObject({ status: 400, body: { error: 'A macro needs a reply or at least one action' } });
    const unknown = await create({ ...REFUND, reply: 'Hi {{customer.email}}', actions: [{ type: 'note', text: '{{ticket.id}}' }] });
    expect(unknown).toMatchObject({ status: 422, body: { code: 'UNKNOWN_VARIABLES', variables: ['customer.email', 'ticket.id'] } });
    expect(unknown.body.error).toMatch(/^Unknown variables \{\{customer\.email\}\}, \{\{ticket\.id\}\}; a macro may use \{\{customer\.name\}\}/);
  });

  it('when an agent shares a macro, then 403; an admin shares it and every agent sees it but only admins change it', async () => {
    expect(await create({ ...REFUND, shared: true })).toMatchObject({ status: 403, body: { error: 'Only admins can share macros' } });
    const shared = await create(
      { ...REFUND, name: 'Take it', shortcode: 'take', reply: '', actions: [{ type: 'assign', agentId: 'me' }], shared: true },
      admin,
    );
    expect(shared.status).toBe(201);
    expect((await server.request('GET', '/api/macros?q=%23take', { token: bob.token })).body.macros.map((m: { name: string }) => m.name)).toEqual(['Take it']);
    const id = shared.body.macro._id;
    expect(await server.request('PUT', `/api/macros/${id}`, { token: bob.token, body: { name: 'x' } })).toMatchObject({
      status: 403,
      body: { error: 'Only admins can change shared macros' },
    });
    expect((await server.request('DELETE', `/api/macros/${id}`, { token: bob.token })).status).toBe(403);
  });

  it('when applied after a preview, then the reply, each action and the history carry the macro and its version', async () => {
    const ticket = await openTicket(server, carla, category, { title: 'Double charge' });
    const macro = (await create({ ...REFUND, shortcode: 'refund2' })).body.macro;
    const changed = await server.request('PUT', `/api/macros/${macro._id}`, { token: ana.token, body: { name: 'Refund sent', version: 1 } });
    expect(changed.body.macro.version).toBe(2);
    // An editor opened on version 1 cannot overwrite version 2 (the Macros page sends the version it showed).
    expect(await server.request('PUT', `/api/macros/${macro._id}`, { token: ana.token, body: { name: 'Stale', version: 1 } })).toMatchObject({
      status: 409,
      body: { code: 'MACRO_CHANGED' },
    });
    const preview = await server.request('GET', `/api/tickets/${ticket._id}/macros/${macro._id}/preview`, { token: ana.token });
    expect(preview.body).toEqual({
      macro: { _id: macro._id, name: 'Refund sent', version: 2 },
      reply: `Hi Carla, the refund for #${ticket.ticketId} is on its way. Ana Tester`,
      actions: [
        { type: 'status', status: 'resolved', label: 'set status to resolved' },
        { type: 'priority', priority: 'low', label: 'set priority to low' },
        { type: 'note', text: 'Refunded by Ana', label: 'add an internal note' },
      ],
    });
    const applied = await apply(ticket._id, macro._id, { reply: `${preview.body.reply} Sorry for the wait.`, version: 2 });
    expect(applied.status).toBe(200);
    expect(applied.body.ticket).toMatchObject({ status: 'resolved', priority: 'low' });
    const { messages } = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: ana.token })).body;
    expect(messages.filter((m: { content?: string }) => m.content).map((m: { content: string; isInternal: boolean }) => [m.content, m.isInternal])).toEqual([
      [`Hi Carla, the refund for #${ticket.ticketId} is on its way. Ana Tester Sorry for the wait.`, false],
      ['Refunded by Ana', true],
      ['Status changed to resolved', false],
    ]);
    const byMacro = (await history(ticket._id)).filter((entry) => entry.macro);
    expect(byMacro.map((entry) => [entry.type, entry.summary])).toEqual([
      [
        'MessagePosted',
        `Applied macro "Refund sent" (v2): sent a message "Hi Carla, the refund for #${ticket.ticketId} is on its way. Ana Tester Sorry for the wait."`,
      ],
      ['TicketStatusChanged', 'Applied macro "Refund sent" (v2): changed the status from open to resolved'],
      ['TicketPriorityChanged', 'Applied macro "Refund sent" (v2): changed the priority from medium to low'],
      ['MessagePosted', 'Applied macro "Refund sent" (v2): added an internal note "Refunded by Ana"'],
    ]);
    expect(byMacro.every((entry) => entry.macro!.id === macro._id && entry.macro!.version === 2 && entry.actor?.userId === ana.id)).toBe(true);
    expect(await apply(ticket._id, macro._id, { version: 1 })).toMatchObject({ status: 409, body: { code: 'MACRO_CHANGED' } });
  });

  it('when an action is refused, then the answer names it and nothing of the macro is applied', async () => {
    const ticket = await openTicket(server, await addMember(server, admin, 'customer', 'Dora'), category, { title: 'Taken by Bob' });
    expect((await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: bob.token, body: { agentId: bob.id } })).status).toBe(200);
    const before = (await history(ticket._id)).length;
    const macro = (await create({ name: 'Mine', shortcode: 'mine', reply: 'I am on it', actions: [{ type: 'assign', agentId: 'me' }] })).body.macro;
    const refused = await apply(ticket._id, macro._id);
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'TICKET_ALREADY_ASSIGNED', refusedAction: { index: 1, label: 'assign to me' } },
    });
    expect(refused.body.error).toMatch(/^The macro's action "assign to me" was refused, so nothing was applied: This ticket is already assigned/);
    expect((await history(ticket._id)).length).toBe(before);
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: bob.token, body: { status: 'closed' } });
    expect(await apply(ticket._id, 'no-such-macro')).toMatchObject({ status: 404, body: { error: 'Macro not found' } });
    expect(await apply('no-such-ticket', macro._id)).toMatchObject({ status: 404, body: { error: 'Ticket not found' } });
    expect((await apply(ticket._id, macro._id, {}, carla.token)).status).toBe(403);
    expect(await apply(ticket._id, macro._id, { reply: 42 })).toMatchObject({ status: 400, body: { error: 'Reply must be text' } });
  });

  it('when applied to a closed ticket that would reopen while its customer has another open ticket, then 409 and nothing is applied', async () => {
    const eve = await addMember(server, admin, 'customer', 'Eve');
    const first = await openTicket(server, eve, category, { title: 'First' });
    await server.request('PUT', `/api/tickets/${first._id}`, { token: admin, body: { status: 'closed' } });
    await openTicket(server, eve, category, { title: 'Second' });
    const reopen = (await create({ name: 'Reopen', shortcode: 'reopen', reply: 'Looking again', actions: [{ type: 'status', status: 'open' }] })).body.macro;
    const before = (await history(first._id)).length;
    expect(await apply(first._id, reopen._id)).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS' } });
    expect((await history(first._id)).length).toBe(before);
    const note = (await create({ name: 'Note only', shortcode: 'note', reply: '', actions: [{ type: 'note', text: 'Checked after closing' }] })).body.macro;
    expect((await apply(first._id, note._id)).body.ticket.status).toBe('closed');
  });

  it('when an apply is retried or doubled with one Idempotency-Key, then it applies once; the key for another apply is 422', async () => {
    const gil = await addMember(server, admin, 'customer', 'Gil');
    const ticket = await openTicket(server, gil, category, { title: 'Applied once' });
    const macro = (await create({ name: 'Once', shortcode: 'once', reply: 'Looking into it', actions: [{ type: 'note', text: 'Checked' }] })).body.macro;
    const keyed = (ticketId: string) =>
      server.request('POST', `/api/tickets/${ticketId}/macros/${macro._id}/apply`, {
        token: ana.token,
        body: {},
        headers: { 'Idempotency-Key': 'apply-once-1' },
      });
    const answers = await Promise.all([keyed(ticket._id), keyed(ticket._id), keyed(ticket._id)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect((await keyed(ticket._id)).status).toBe(200);
    const { messages } = (await server.request('GET', `/api/tickets/${ticket._id}`, { token: ana.token })).body;
    expect(messages.filter((m: { content?: string }) => m.content === 'Looking into it' || m.content === 'Checked')).toHaveLength(2);
    const other = await openTicket(server, await addMember(server, admin, 'customer', 'Hal'), category, { title: 'Another' });
    expect(await keyed(other._id)).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
  });

  it('when staff set the priority alone, then it changes under the same rule a macro uses; a customer is refused', async () => {
    const fay = await addMember(server, admin, 'customer', 'Fay');
    const ticket = await openTicket(server, fay, category, { title: 'Slow refund' });
    const set = (token: string, body: Record<string, unknown>) => server.request('PUT', `/api/tickets/${ticket._id}`, { token, body });
    expect((await set(ana.token, { priority: 'urgent' })).body.ticket.priority).toBe('urgent');
    expect((await set(fay.token, { priority: 'low' })).status).toBe(403);
    expect(await set(ana.token, { priority: 'asap' })).toMatchObject({ status: 400, body: { error: 'Priority must be low, medium, high or urgent' } });
    expect((await history(ticket._id)).at(-1)?.summary).toBe('Changed the priority from medium to urgent');
  });

  it('when the macros are rebuilt from the log, then they equal the live read model, deletions included', async () => {
    const gone = (await create({ name: 'Gone', shortcode: 'gone', reply: 'Bye' })).body.macro;
    expect((await server.request('DELETE', `/api/macros/${gone._id}`, { token: ana.token })).status).toBe(204);
    expect((await server.request('GET', `/api/macros/${gone._id}`, { token: ana.token })).status).toBe(404);
    const rebuilt = new MemoryReadStore();
    const runner = new ProjectionRunner(server.deps.events, rebuilt, [directoryProjection, macrosProjection]);
    await runner.rebuild(() => {});
    const snapshot = (store: typeof rebuilt | typeof server.deps.readStore) => store.collection(MACROS).find({}, { sort: { _id: 1 } });
    expect(await snapshot(rebuilt)).toEqual(await snapshot(server.deps.readStore));
    expect((await snapshot(rebuilt)).length).toBeGreaterThan(2);
    await runner.stop();
  });
});
