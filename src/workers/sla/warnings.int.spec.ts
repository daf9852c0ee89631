import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { addCategory, addMember, type Member, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';
import { bodyOf, startSmtpSink, subjectOf } from '../../../test/support/smtpSink';

const MINUTE = 60_000;
const around = (firstResponse: number) => ({ firstResponse, nextResponse: null, resolution: null });
/** Around the clock: first response in 10 minutes, the warning at half of it. */
const SETTINGS = {
  calendars: [],
  defaultCalendarId: null,
  policies: [
    { id: 'fast', name: 'Fast', categoryId: null, calendarId: null, targets: { low: around(10), medium: around(10), high: around(10), urgent: around(10) } },
  ],
  pauseStatuses: ['pending_customer'],
  warnPercent: 50,
};

/** Removes the embedded queue's file: every job, completed id and reactor checkpoint of it. */
const loseQueue = (dataDir: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, `queue.db${suffix}`), { force: true });
};

describe('SLA warnings', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  /** The servers' clock runs this far ahead of the real one; timers look at it every 100 ms (SLA_TIMER_MAX_DELAY_MS). */
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const start = (dataDir?: string, env: Record<string, string> = {}) =>
    startTestServer({ ...(dataDir ? { dataDir } : {}), clock, env: { SMTP_URL: sink.url, SLA_TIMER_MAX_DELAY_MS: '100', ...env } });

  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });
  beforeEach(() => {
    ahead = 0;
  });

  /** A desk with the policy, an agent, and a customer's ticket nobody is assigned to. */
  async function desk(server: TestServer) {
    const admin = await server.login();
    expect((await server.request('PUT', '/api/sla/settings', { token: admin, body: SETTINGS })).status).toBe(200);
    const agent = await addMember(server, admin, 'agent', 'Alice');
    const category = await addCategory(server, admin);
    const ticket = await openTicket(server, await addMember(server, admin, 'customer', 'Bob'), category, { title: `Printer ${randomUUID().slice(0, 6)}` });
    return { admin, agent, ticket };
  }

  /** Each server numbers its tickets from 1001: the mails are told apart by the ticket's link. */
  const mails = (to: string, ticket: { _id: string }, words: string) =>
    sink.mailsTo(to).filter((mail) => subjectOf(mail.raw)?.includes(`${words} on ticket #`) && bodyOf(mail.raw).includes(`/tickets/${ticket._id}`));
  const raised = async (server: TestServer, admin: string, ticketId: string) =>
    ((await server.request('GET', `/api/tickets/${ticketId}/history`, { token: admin })).body.events as Array<{ type: string }>).filter(
      (event) => event.type === 'SlaWarningRaised',
    ).length;
  /** Long enough for many more timer hops: nothing more may come. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

  /**
   * The breach mailed once to each; the warning once too when its instant came while a process ran
   * (`warned`), and never when the first look at the ticket was past its due time.
   */
  async function expectOnce(server: TestServer, admin: string, agent: Member, ticket: { _id: string; ticketId: number }, warned: boolean) {
    for (const to of [agent.email, ADMIN.email]) {
      await eventually(() => mails(to, ticket, 'First response breached').length > 0, { describe: `the breach mailed to ${to}` });
    }
    await settle();
    for (const to of [agent.email, ADMIN.email]) {
      expect(mails(to, ticket, 'First response due soon')).toHaveLength(warned ? 1 : 0);
      expect(mails(to, ticket, 'First response breached')).toHaveLength(1);
    }
    expect(await raised(server, admin, ticket._id)).toBe(warned ? 2 : 1);
  }

  /** Moves the clock past the warning share and waits for its mail to everyone. */
  async function warnedAt6(ticket: { _id: string }, agent: Member) {
    ahead = 6 * MINUTE;
    for (const to of [agent.email, ADMIN.email])
      await eventually(() => mails(to, ticket, 'First response due soon').length === 1, { describe: `the warning mailed to ${to}` });
  }

  it('warns at the share and at the breach, once each, every agent while nobody is assigned', async () => {
    const server = await start();
    try {
      const { admin, agent, ticket } = await desk(server);
      await settle();
      expect(mails(agent.email, ticket, 'First response due soon')).toHaveLength(0);
      ahead = 6 * MINUTE;
      await eventually(() => mails(agent.email, ticket, 'First response due soon').length === 1, { describe: 'the warning at 50%' });
      expect(mails(agent.email, ticket, 'First response breached')).toHaveLength(0);
      ahead = 11 * MINUTE;
      await expectOnce(server, admin, agent, ticket, true);
      const live = await server.request('GET', `/api/tickets/${ticket._id}/sla`, { token: admin });
      expect(live.body.sla.targets[0]).toMatchObject({ target: 'firstResponse', state: 'breached' });
    } finally {
      await server.stop();
    }
  });

  it('tells only the assignee, and nothing once the target is met', async () => {
    const server = await start();
    try {
      const { admin, agent, ticket } = await desk(server);
      expect((await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: admin, body: { agentId: agent.id } })).status).toBe(200);
      ahead = 6 * MINUTE;
      await eventually(() => mails(agent.email, ticket, 'First response due soon').length === 1, { describe: 'the warning to the assignee' });
      expect(mails(ADMIN.email, ticket, 'First response due soon')).toHaveLength(0);
      expect((await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'On it' } })).status).toBe(201);
      ahead = 11 * MINUTE;
      await settle();
      expect(mails(agent.email, ticket, 'First response breached')).toHaveLength(0);
    } finally {
      await server.stop();
    }
  });

  it('fires once across a restart, from the timers kept in the queue', async () => {
    const first = await start();
    const { agent, ticket } = await desk(first);
    await warnedAt6(ticket, agent);
    await first.stop({ keepData: true });
    ahead = 11 * MINUTE;
    const second = await start(first.dataDir);
    try {
      await expectOnce(second, await second.login(), agent, ticket, true);
    } finally {
      await second.stop({ keepData: true });
    }
    // The queue lost (its timers and their ids gone): the timers are re-armed from the log, and the ticket's stream refuses a second warning.
    loseQueue(first.dataDir);
    const third = await start(first.dataDir);
    try {
      await expectOnce(third, await third.login(), agent, ticket, true);
    } finally {
      await third.stop();
    }
  });

  it('re-arms the timers from the log on start when the queue lost them; down over both instants, only the breach is told', async () => {
    const first = await start();
    const { agent, ticket } = await desk(first);
    await first.stop({ keepData: true });
    loseQueue(first.dataDir);
    ahead = 11 * MINUTE;
    const second = await start(first.dataDir);
    try {
      await expectOnce(second, await second.login(), agent, ticket, false);
    } finally {
      await second.stop();
    }
  });

  it('fires once with two processes on one store and one queue', async () => {
    const env = {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test-sla-${randomUUID().slice(0, 8)}`,
      WORKERS_LEASE_TTL_MS: '1500',
    };
    const one = await start(undefined, env);
    const two = await start(one.dataDir, env);
    try {
      const { admin, agent, ticket } = await desk(one);
      await warnedAt6(ticket, agent);
      ahead = 11 * MINUTE;
      await expectOnce(two, admin, agent, ticket, true);
    } finally {
      await two.stop({ keepData: true });
      await one.stop();
    }
  });
});
