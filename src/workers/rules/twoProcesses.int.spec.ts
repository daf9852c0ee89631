import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { projectRoot } from '../../platform/paths';
import { ticketStream } from '../../domain/ticket/ticket';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { ADMIN, type TestServer, startTestServer, urlOfStarted } from '../../../test/support/server';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TICKETS = 4;

/**
 * Two processes on one event log, each holding a workers' lease of its own (two Redis prefixes), so
 * both react to every ticket event: the claim in the ticket's stream is all that keeps a rule from
 * running twice (docs/automation.md, exactly once).
 */
describe('Rules with two processes reacting to one log', () => {
  let first: TestServer;
  let second: ChildProcess;

  beforeAll(async () => {
    first = await startTestServer({ env: { REDIS_URL, REDIS_PREFIX: `rules-a-${randomUUID().slice(0, 8)}` } });
    second = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot(),
      env: {
        ...process.env,
        REDIS_URL,
        REDIS_PREFIX: `rules-b-${randomUUID().slice(0, 8)}`,
        PORT: '0',
        DATA_DIR: first.dataDir,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await urlOfStarted(second);
    const admin = await first.login();
    const billing = await addCategory(first, admin, { name: 'Billing' });
    const team = (await first.request('POST', '/api/teams', { token: admin, body: { name: 'Payments' } })).body.team._id;
    const created = await first.request('POST', '/api/rules', {
      token: admin,
      body: {
        name: 'Route urgent billing',
        trigger: { kind: 'event', events: ['ticket_created'] },
        conditions: [{ field: 'priority', op: 'is', values: ['urgent'] }],
        actions: [
          { type: 'team', teamId: team },
          { type: 'note', text: 'Routed by rule for {{customer.name}}' },
        ],
      },
    });
    expect(created.status).toBe(201);
    // The second process reads the rule from its own read models before it can run it.
    await eventually(
      async () => {
        const answer = await fetch(`${url}/api/rules`, { headers: { authorization: `Bearer ${admin}` } });
        return answer.ok && ((await answer.json()) as { rules: unknown[] }).rules.length === 1;
      },
      { describe: 'the second process knows the rule', timeoutMs: 30_000 },
    );
    const customers = await Promise.all(Array.from({ length: TICKETS }, () => addMember(first, admin, 'customer', 'Cleo')));
    tickets = await Promise.all(customers.map((customer) => openTicket(first, customer, billing, { priority: 'urgent' })));
  }, 90_000);
  let tickets: Array<{ _id: string }> = [];

  afterAll(async () => {
    second?.kill('SIGTERM');
    if (second && second.exitCode === null) await new Promise((resolve) => second.once('exit', resolve));
    await first?.stop();
  });

  it('when both react to the same new tickets, then the rule runs once on each', async () => {
    const ruleEventsOf = async (ticketId: string) => (await first.deps.events.readStream(ticketStream(ticketId))).filter((e) => e.type === 'RuleFired');
    for (const ticket of tickets) await eventually(async () => (await ruleEventsOf(ticket._id)).length > 0, { describe: 'the rule ran', timeoutMs: 20_000 });
    // Long enough for the slower of the two to have reacted as well.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const ticket of tickets) {
      const stream = await first.deps.events.readStream(ticketStream(ticket._id));
      expect(stream.filter((event) => event.type === 'RuleFired')).toHaveLength(1);
      expect(stream.filter((event) => event.type === 'TicketTeamChanged')).toHaveLength(1);
      expect(stream.filter((event) => event.type === 'MessagePosted' && event.metadata.rule)).toHaveLength(1);
    }
  }, 60_000);
});
