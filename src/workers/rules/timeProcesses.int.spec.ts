import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appProcesses, call, login } from '../../../test/support/appProcesses';
import { eventually } from '../../../test/support/eventually';
import { ADMIN } from '../../../test/support/server';

const WAIT_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A time rule (docs/automation.md) run by real app processes on one DATA_DIR (one log), each with a
 * workers' lease and a queue of its own (two Redis prefixes), so that both react to every event and
 * each runs a timer for every wait: the claim in the ticket's stream is all that keeps a wait from
 * running twice. Then both are SIGKILLed around the due times and started again: the waits due
 * meanwhile run, once.
 */
describe('Time rules with real processes on one DATA_DIR', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-time-rules-'));
  const first = { REDIS_PREFIX: `time-rules-a-${randomUUID().slice(0, 8)}` };
  const second = { REDIS_PREFIX: `time-rules-b-${randomUUID().slice(0, 8)}` };
  const apps = appProcesses({ PORT: '0', REDIS_URL, DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' });
  afterAll(() => {
    apps.killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A new customer's ticket, opened through `base`. */
  async function ticketOf(base: string, admin: string, category: string): Promise<string> {
    const email = `rita_${randomUUID().slice(0, 8)}@example.com`;
    const user = { username: email.split('@')[0], email, password: 'password-123', firstName: 'Rita', lastName: 'Tester', role: 'customer' };
    expect((await call(base, 'POST', '/api/users', admin, user)).status).toBe(201);
    const opened = await call(base, 'POST', '/api/tickets', await login(base, email, 'password-123'), {
      title: 'Invoice',
      description: 'Wrong total',
      category,
    });
    expect(opened.status).toBe(201);
    return opened.body.ticket._id as string;
  }
  const askCustomer = async (base: string, admin: string, ticket: string) =>
    expect((await call(base, 'PUT', `/api/tickets/${ticket}`, admin, { status: 'pending_customer' })).status).toBe(200);
  /** The ticket's history as one process tells it: how often the rule ran, and the reminders it posted. */
  async function runs(base: string, admin: string, ticket: string): Promise<{ fired: number; reminded: number }> {
    const events = (await call(base, 'GET', `/api/tickets/${ticket}/history`, admin)).body.events as Array<{ type: string; rule?: unknown }>;
    return {
      fired: events.filter((event) => event.type === 'RuleFired').length,
      reminded: events.filter((event) => event.type === 'MessagePosted' && event.rule).length,
    };
  }
  async function expectOnceEach(base: string, admin: string, tickets: string[]) {
    for (const ticket of tickets)
      await eventually(async () => (await runs(base, admin, ticket)).fired > 0, { describe: `the rule ran on ${ticket}`, timeoutMs: 20_000 });
    // Long enough for a slower process's timers to have fired as well.
    await sleep(2000);
    for (const ticket of tickets) expect(await runs(base, admin, ticket)).toEqual({ fired: 1, reminded: 1 });
  }

  it('when both processes run a timer for each wait, and when both are killed around the due times and started again, then each wait runs exactly once', async () => {
    // One after the other: the first makes the DATA_DIR (log, secrets, first admin).
    const one = await apps.start(first);
    const two = await apps.start(second);
    const admin = await login(one.url, ADMIN.email, ADMIN.password);
    const category = (await call(one.url, 'POST', '/api/categories', admin, { name: 'Billing' })).body.category._id as string;
    const created = await call(one.url, 'POST', '/api/rules', admin, {
      // The reminder leaves the ticket pending customer, still matching: only the claim of its run stops a second.
      name: 'Remind after 3 seconds',
      trigger: { kind: 'time', after: { amount: WAIT_MS / 1000, unit: 'seconds' } },
      conditions: [{ field: 'status', op: 'is', values: ['pending_customer'] }],
      actions: [{ type: 'notify_customer', text: 'Is ticket #{{ticket.number}} still a problem?' }],
    });
    expect(created.status).toBe(201);
    await eventually(async () => (await call(two.url, 'GET', '/api/rules', admin)).body.rules?.length === 1, { describe: 'the second process knows the rule' });

    const together = await Promise.all([1, 2, 3].map(() => ticketOf(one.url, admin, category)));
    for (const [index, ticket] of together.entries()) await askCustomer(index % 2 ? two.url : one.url, admin, ticket);
    await expectOnceEach(one.url, admin, together);

    const killed = await Promise.all([1, 2, 3, 4].map(() => ticketOf(one.url, admin, category)));
    const askedAt = Date.now();
    for (const ticket of killed) {
      await askCustomer(one.url, admin, ticket);
      await sleep(500);
    }
    // Killed once the first waits are due and before the last: some run before, the others while no process runs.
    await sleep(Math.max(0, askedAt + WAIT_MS + 800 - Date.now()));
    one.child.kill('SIGKILL');
    two.child.kill('SIGKILL');
    await sleep(Math.max(0, askedAt + WAIT_MS + 3000 - Date.now()));
    const three = await apps.start(first);
    await apps.start(second);
    await expectOnceEach(three.url, await login(three.url, ADMIN.email, ADMIN.password), killed);
  }, 120_000);
});
