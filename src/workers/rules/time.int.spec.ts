import { rmSync } from 'node:fs';
import path from 'node:path';
import { ticketStream } from '../../domain/ticket/ticket';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';

const DAY = 86_400_000;
const AUTO_CLOSE = {
  name: 'Auto-close after 4 days',
  trigger: { kind: 'time', after: { amount: 4, unit: 'days' } },
  conditions: [{ field: 'status', op: 'is', values: ['resolved'] }],
  actions: [{ type: 'status', status: 'closed' }],
};

const REMIND = {
  name: 'Remind after 2 days',
  trigger: { kind: 'time', after: { amount: 2, unit: 'days' } },
  conditions: [{ field: 'status', op: 'is', values: ['pending_customer'] }],
  actions: [{ type: 'notify_customer', text: 'Hello {{customer.firstName}}, is ticket #{{ticket.number}} still a problem?' }],
};

/**
 * Time rules (docs/automation.md) against a clock the whole server reads, moved ahead as a clock that
 * jumps would be: the timers look at it every 100 ms (SLA_TIMER_MAX_DELAY_MS), so a real four-day
 * rule runs in the test's seconds.
 */
describe('Time rules', () => {
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const start = (dataDir?: string) => startTestServer({ ...(dataDir ? { dataDir } : {}), clock, env: { SLA_TIMER_MAX_DELAY_MS: '100' } });
  beforeEach(() => {
    ahead = 0;
  });

  async function desk(server: TestServer) {
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const rule = await server.request('POST', '/api/rules', { token: admin, body: AUTO_CLOSE });
    expect(rule.status).toBe(201);
    return { admin, category, ruleId: rule.body.rule._id as string };
  }
  const resolvedTicket = async (server: TestServer, admin: string, category: string) => {
    const ticket = await openTicket(server, await addMember(server, admin, 'customer', 'Rita'), category);
    expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'resolved' } })).status).toBe(200);
    return ticket;
  };
  const pendingTicket = async (server: TestServer, admin: string, category: string) => {
    const ticket = await openTicket(server, await addMember(server, admin, 'customer', 'Rita'), category);
    await setStatus(server, admin, ticket._id, 'pending_customer');
    return ticket;
  };
  const setStatus = async (server: TestServer, admin: string, ticketId: string, status: string) =>
    expect((await server.request('PUT', `/api/tickets/${ticketId}`, { token: admin, body: { status } })).status).toBe(200);
  const runsOn = async (server: TestServer, ticketId: string) =>
    (await server.deps.events.readStream(ticketStream(ticketId))).filter((event) => event.type === 'RuleFired');
  const statusOf = async (server: TestServer, admin: string, ticketId: string) =>
    (await server.request('GET', `/api/tickets/${ticketId}`, { token: admin })).body.ticket.status as string;
  /** Long enough for many more timer hops: nothing more may come. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

  it('when a resolved ticket has stayed resolved for 4 days, then the rule closes it once, signed, and a ticket reopened meanwhile is left open', async () => {
    const server = await start();
    try {
      const { admin, category, ruleId } = await desk(server);
      const resolved = await resolvedTicket(server, admin, category);
      const reopened = await resolvedTicket(server, admin, category);
      ahead = 2 * DAY;
      await setStatus(server, admin, reopened._id, 'open');

      const dry = await server.request('GET', `/api/rules/${ruleId}/dry-run`, { token: admin });
      expect(dry.status).toBe(200);
      expect(dry.body.tickets).toEqual([expect.objectContaining({ _id: resolved._id, wait: expect.objectContaining({ state: 'waiting' }) })]);
      await settle();
      expect(await runsOn(server, resolved._id)).toHaveLength(0);

      // The clock jumps past the due time.
      ahead = 4 * DAY + 60_000;
      await eventually(async () => (await statusOf(server, admin, resolved._id)) === 'closed', { describe: 'the resolved ticket is closed' });
      ahead = 10 * DAY;
      await settle();
      expect(await runsOn(server, resolved._id)).toHaveLength(1);
      expect(await runsOn(server, reopened._id)).toHaveLength(0);
      expect(await statusOf(server, admin, reopened._id)).toBe('open');

      const history = (await server.request('GET', `/api/tickets/${resolved._id}/history`, { token: admin })).body.events as Array<{ summary: string }>;
      const lines = history.map((event) => event.summary);
      expect(lines).toContainEqual(
        expect.stringMatching(/^Rule "Auto-close after 4 days" \(v1\) ran because the ticket has matched for 4 days \(since .+\) and status is resolved$/),
      );
      expect(lines).toContainEqual('Rule "Auto-close after 4 days" (v1): changed the status from resolved to closed');
      expect((await server.request('GET', `/api/rules/${ruleId}/firings`, { token: admin })).body.fired).toBe(1);

      // Resolved again: a new wait, counted from this resolution, not the first one.
      await setStatus(server, admin, reopened._id, 'resolved');
      ahead = 13 * DAY;
      await settle();
      expect(await runsOn(server, reopened._id)).toHaveLength(0);
      ahead = 14 * DAY + 60_000;
      await eventually(async () => (await statusOf(server, admin, reopened._id)) === 'closed', { describe: 'closed 4 days after it was resolved again' });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('when a reminder ran, the process stopped, the queue was lost and another wait came due meanwhile, then the next start runs the new one once and the old one not again', async () => {
    const first = await start();
    const admin = await first.login();
    const category = await addCategory(first, admin);
    expect((await first.request('POST', '/api/rules', { token: admin, body: REMIND })).status).toBe(201);
    const reminded = await pendingTicket(first, admin, category);
    ahead = 2 * DAY + 60_000;
    await eventually(async () => (await runsOn(first, reminded._id)).length > 0, { describe: 'the reminder ran' });
    const waiting = await pendingTicket(first, admin, category);
    const { dataDir } = first;
    await first.stop({ keepData: true });
    ahead = 5 * DAY;
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, `queue.db${suffix}`), { force: true });
    const second = await start(dataDir);
    try {
      await eventually(async () => (await runsOn(second, waiting._id)).length > 0, { describe: 'the wait due while down ran at start' });
      await settle();
      // Still waiting (pending customer): only the claim in its stream keeps the re-armed timer from reminding again.
      expect(await runsOn(second, reminded._id)).toHaveLength(1);
      expect(await runsOn(second, waiting._id)).toHaveLength(1);
      const messages = (await second.request('GET', `/api/tickets/${waiting._id}/messages`, { token: await second.login() })).body.messages as Array<{
        content: string;
        sender: { firstName: string; lastName: string };
      }>;
      expect(messages.filter((message) => message.content.startsWith('Hello Rita'))).toEqual([
        expect.objectContaining({
          content: 'Hello Rita, is ticket #1002 still a problem?',
          sender: expect.objectContaining({ firstName: 'Customer Support System', lastName: '' }),
        }),
      ]);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
