import { RULE_CHAIN_MAX_DEPTH } from '#contract/rules';
import { runRules } from '../../app/rules/engine';
import { ticketStream } from '../../domain/ticket/ticket';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';

interface Entry {
  type: string;
  summary: string;
  actor: { name: string } | null;
  rule?: { id: string; name: string; version: number; matched: string[]; depth: number };
}

describe('Rules over HTTP (docs/automation.md)', () => {
  let server: TestServer;
  let admin: string;
  let ana: Member;
  let carla: Member;
  let billing: string;
  let team: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    ana = await addMember(server, admin, 'agent', 'Ana');
    carla = await addMember(server, admin, 'customer', 'Carla');
    billing = await addCategory(server, admin, { name: 'Billing' });
    team = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Billing team', members: [ana.id] } })).body.team._id;
  });
  afterAll(() => server.stop());

  const create = (body: Record<string, unknown>, token = admin) => server.request('POST', '/api/rules', { token, body });
  const history = async (ticketId: string) => (await server.request('GET', `/api/tickets/${ticketId}/history`, { token: admin })).body.events as Entry[];
  const ruleEvents = async (ticketId: string) => (await server.deps.events.readStream(ticketStream(ticketId))).filter((e) => e.type.startsWith('Rule'));
  const routing = () => ({
    name: 'Route urgent billing',
    trigger: { kind: 'event', events: ['ticket_created'] },
    conditions: [
      { field: 'priority', op: 'is', values: ['urgent'] },
      { field: 'category', op: 'is', values: [billing] },
    ],
    actions: [
      { type: 'team', teamId: team },
      { type: 'tag', tag: 'urgent-billing' },
    ],
  });
  const customer = async () => addMember(server, admin, 'customer', 'Cleo');

  it('when anyone but an admin asks, then every rules route is 403 and nothing is recorded', async () => {
    expect(await server.request('GET', '/api/rules', { token: ana.token })).toMatchObject({ status: 403 });
    expect(await create(routing(), ana.token)).toMatchObject({ status: 403 });
    expect(await server.request('GET', '/api/rules/export', { token: carla.token })).toMatchObject({ status: 403 });
  });

  it('when a rule is malformed, then it is 400 naming the path, or 422 for an unknown variable', async () => {
    const bad = await create({ ...routing(), trigger: { kind: 'event', events: ['ticket_exploded'] } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(JSON.stringify(bad.body)).toContain('trigger.events.0');
    const noTeam = await create({ ...routing(), actions: [{ type: 'team', teamId: 'no-such-team' }] });
    expect(noTeam).toMatchObject({ status: 400, body: { error: 'Please choose an active team' } });
    expect(JSON.stringify(noTeam.body)).toContain('actions.0.teamId');
    const typo = await create({ ...routing(), actions: [{ type: 'notify_customer', text: 'Hi {{agent.name}}' }] });
    expect(typo).toMatchObject({ status: 422, body: { code: 'UNKNOWN_VARIABLES', variables: ['agent.name'] } });
    const noWait = await create({ ...routing(), trigger: { kind: 'time', after: { amount: 0, unit: 'weeks' } } });
    expect(noWait).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(JSON.stringify(noWait.body)).toContain('trigger.after.amount');
    expect(JSON.stringify(noWait.body)).toContain('trigger.after.unit');
    const hours = await create({ ...routing(), trigger: { kind: 'time', after: { amount: 4, unit: 'days' } }, conditions: [{ field: 'hours', op: 'within' }] });
    expect(hours).toMatchObject({ status: 400, body: { error: 'A time rule cannot use the business-hours condition: its wait counts around the clock' } });
    expect(JSON.stringify(hours.body)).toContain('conditions.0');
    const nobody = await create({ ...routing(), conditions: [{ field: 'assignee', op: 'is', values: ['no-such-agent'] }] });
    expect(nobody).toMatchObject({ status: 400, body: { error: 'Please choose an active agent or admin' } });
    expect(JSON.stringify(nobody.body)).toContain('conditions.0.values.0');
  });

  it('when a customer opens an urgent Billing ticket, then the routing rule puts it with the team within 1 s, and the history names the rule and its version', async () => {
    const created = await create({ ...routing(), name: 'Route urgent billing (draft)' });
    expect(created).toMatchObject({ status: 201, body: { rule: { version: 1, enabled: true, fired: 0 } } });
    const ruleId = created.body.rule._id;
    const renamed = await server.request('PUT', `/api/rules/${ruleId}`, { token: admin, body: { name: 'Route urgent billing' } });
    expect(renamed.body.rule.version).toBe(2);

    const cleo = await customer();
    const startedAt = Date.now();
    const ticket = await openTicket(server, cleo, billing, { priority: 'urgent' });
    await eventually(async () => (await server.request('GET', `/api/tickets/${ticket._id}`, { token: admin })).body.ticket.team?._id === team, {
      describe: 'the ticket is with the Billing team',
      timeoutMs: 5000,
    });
    expect(Date.now() - startedAt).toBeLessThan(1000);

    const entries = await history(ticket._id);
    const routed = entries.find((entry) => entry.type === 'TicketTeamChanged')!;
    expect(routed.summary).toBe('Rule "Route urgent billing" (v2): put the ticket with the team "Billing team"');
    expect(routed.rule).toMatchObject({ id: ruleId, version: 2, depth: 1, matched: ['a ticket is created', 'priority is urgent', 'category is "Billing"'] });
    expect(routed.actor?.name).toBe('Rule "Route urgent billing" (v2)');
    expect(entries.find((entry) => entry.type === 'RuleFired')!.summary).toBe(
      'Rule "Route urgent billing" (v2) ran because a ticket is created and priority is urgent and category is "Billing"',
    );

    // A medium ticket is left alone; the rule's count and tickets say where it fired.
    const other = await openTicket(server, await customer(), billing, { priority: 'medium' });
    await eventually(async () => (await server.request('GET', `/api/rules/${ruleId}/firings`, { token: admin })).body.fired === 1, {
      describe: 'one firing counted',
    });
    const firings = await server.request('GET', `/api/rules/${ruleId}/firings`, { token: admin });
    expect(firings.body.firings.map((f: { ticketId: string }) => f.ticketId)).toEqual([ticket._id]);
    expect(await ruleEvents(other._id)).toEqual([]);
    await server.request('DELETE', `/api/rules/${ruleId}`, { token: admin });
  });

  it('when rules are created or switched off after tickets were handled, then the next ticket follows the rules as they now are', async () => {
    const seen = await create({
      name: 'Tag what arrives',
      trigger: { kind: 'event', events: ['ticket_created'] },
      conditions: [],
      actions: [{ type: 'tag', tag: 'seen' }],
    });
    const tags = async (ticketId: string) => ((await server.request('GET', `/api/tickets/${ticketId}`, { token: admin })).body.ticket.tags ?? []) as string[];
    const handled = (ticketId: string) => eventually(async () => (await tags(ticketId)).includes('seen'), { describe: 'the ticket tagged seen' });
    // A ticket handled before the routing rule exists: the reactor has read the rules by then.
    await handled((await openTicket(server, await customer(), billing, { priority: 'urgent' }))._id);

    const routed = await create(routing());
    const after = await openTicket(server, await customer(), billing, { priority: 'urgent' });
    await handled(after._id);
    expect((await server.request('GET', `/api/tickets/${after._id}`, { token: admin })).body.ticket.team?._id).toBe(team);

    await server.request('PUT', `/api/rules/${routed.body.rule._id}`, { token: admin, body: { enabled: false } });
    const off = await openTicket(server, await customer(), billing, { priority: 'urgent' });
    await handled(off._id);
    expect((await server.request('GET', `/api/tickets/${off._id}`, { token: admin })).body.ticket.team ?? null).toBeNull();
    for (const rule of [seen, routed]) await server.request('DELETE', `/api/rules/${rule.body.rule._id}`, { token: admin });
  });

  it(`when two rules change the priority back and forth, then the chain stops after ${RULE_CHAIN_MAX_DEPTH} runs and the history says why`, async () => {
    const up = await create({
      name: 'Urgent is high',
      trigger: { kind: 'event', events: ['priority_changed'] },
      conditions: [{ field: 'priority', op: 'is', values: ['urgent'] }],
      actions: [{ type: 'priority', priority: 'high' }],
    });
    const down = await create({
      name: 'High is urgent',
      trigger: { kind: 'event', events: ['priority_changed'] },
      conditions: [{ field: 'priority', op: 'is', values: ['high'] }],
      actions: [{ type: 'priority', priority: 'urgent' }],
    });
    const ticket = await openTicket(server, await customer(), billing, { priority: 'low' });
    expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: ana.token, body: { priority: 'urgent' } })).status).toBe(200);

    await eventually(async () => (await ruleEvents(ticket._id)).some((event) => event.type === 'RuleChainStopped'), {
      describe: 'the chain stopped',
      timeoutMs: 10_000,
    });
    // Nothing runs after the stop.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = await ruleEvents(ticket._id);
    // The person's change runs both rules in order (depth 1); each rule's change runs the other one, one level deeper.
    const depths = events.filter((event) => event.type === 'RuleFired').map((event) => Number(event.data.depth));
    expect(depths).toEqual([1, 1, 2, 3, 4, 5]);
    expect(events.filter((event) => event.type === 'RuleChainStopped')).toHaveLength(1);
    const stopped = (await history(ticket._id)).find((entry) => entry.type === 'RuleChainStopped')!;
    expect(stopped.summary).toBe(
      `Stopped a chain of rules at its bound of ${RULE_CHAIN_MAX_DEPTH} rules in a row: "Urgent is high" (v1) did not run again, so rules cannot loop`,
    );
    for (const rule of [up, down]) await server.request('DELETE', `/api/rules/${rule.body.rule._id}`, { token: admin });
  });

  it('when the same triggering event is run again, twice at once (a restart replaying it, a second process), then the rule runs once', async () => {
    const ticket = await openTicket(server, await customer(), billing, { priority: 'urgent' });
    const opened = (await server.deps.events.readStream(ticketStream(ticket._id)))[0]!;
    // Switched on after the ticket opened: the workers passed its event by, so only the runs below can run it.
    const rule = (await create({ ...routing(), name: 'Late routing', enabled: false })).body.rule;
    await server.request('PUT', `/api/rules/${rule._id}`, { token: admin, body: { enabled: true } });

    await Promise.all([runRules(server.deps, opened), runRules(server.deps, opened)]);
    await runRules(server.deps, opened);

    const fired = (await ruleEvents(ticket._id)).filter((event) => event.type === 'RuleFired');
    expect(fired).toHaveLength(1);
    expect(fired[0]!.metadata.rule).toMatchObject({ id: rule._id, version: 2 });
    await server.request('DELETE', `/api/rules/${rule._id}`, { token: admin });
  });

  it('when rules are exported, reordered and imported, then the import creates new version-1 rules after the others, a time rule too, and a dry run lists the tickets they would touch', async () => {
    const first = (await create({ ...routing(), name: 'First' })).body.rule;
    const after = { amount: 30, unit: 'minutes' };
    const second = (await create({ ...routing(), name: 'Second', enabled: false, trigger: { kind: 'time', after } })).body.rule;
    const all = (await server.request('GET', '/api/rules', { token: admin })).body.rules.map((rule: { _id: string }) => rule._id);
    const reordered = await server.request('POST', '/api/rules/order', { token: admin, body: { ids: [...all].reverse() } });
    expect(reordered.status).toBe(200);
    expect(reordered.body.rules.map((rule: { _id: string }) => rule._id)).toEqual([...all].reverse());
    expect(await server.request('POST', '/api/rules/order', { token: admin, body: { ids: [first._id] } })).toMatchObject({ status: 400 });

    const exported = await server.request('GET', '/api/rules/export', { token: admin });
    expect(exported.body.rules.map((rule: { name: string }) => rule.name)).toEqual(['Second', 'First']);
    expect(exported.body.rules[0].trigger).toEqual({ kind: 'time', after });
    const imported = await server.request('POST', '/api/rules/import', { token: admin, body: exported.body });
    expect(imported.status).toBe(201);
    expect(imported.body.rules.map((rule: { version: number; name: string }) => [rule.name, rule.version])).toEqual([
      ['Second', 1],
      ['First', 1],
    ]);
    expect(imported.body.rules[0].trigger).toEqual({ kind: 'time', after });
    const refused = await server.request('POST', '/api/rules/import', {
      token: admin,
      body: { rules: [routing(), { ...routing(), actions: [{ type: 'assign', agentId: carla.id }] }] },
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'Please choose an active agent or admin' } });
    expect(JSON.stringify(refused.body)).toContain('rules.1.actions.0.agentId');
    expect((await server.request('GET', '/api/rules', { token: admin })).body.rules).toHaveLength(4);

    const open = await openTicket(server, await customer(), billing, { priority: 'urgent' });
    const dry = await server.request('GET', `/api/rules/${second._id}/dry-run`, { token: admin });
    expect(dry.status).toBe(200);
    expect(dry.body.tickets.map((t: { _id: string }) => t._id)).toContain(open._id);
    expect(dry.body.tickets.every((t: { priority: string }) => t.priority === 'urgent')).toBe(true);
    // A time rule's dry run: the tickets in a wait for it, urgent Billing since they opened, due in 30 minutes.
    expect(dry.body.tickets.find((t: { _id: string }) => t._id === open._id).wait).toMatchObject({ state: 'waiting' });
  });
});
