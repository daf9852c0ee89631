import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { ticketStream } from '../../domain/ticket/ticket';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { appProcesses } from '../../../test/support/appProcesses';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two processes on one event log, each with a workers' lease and a queue of its own (two Redis prefixes), so
 * both plan and run every grace timer and every fill: the ticket's stream and the team's turns stream are all
 * that keep a return or an assignment from happening twice (docs/teams.md).
 */
describe('Grace returns and fills with two processes reacting to one log', () => {
  let first: TestServer;
  let second: ChildProcess;
  const processes = appProcesses({ REDIS_URL, LOG_LEVEL: 'warn' });

  beforeAll(async () => {
    first = await startTestServer({ env: { REDIS_URL, REDIS_PREFIX: `avail-a-${randomUUID().slice(0, 8)}` } });
    ({ child: second } = await processes.start({
      REDIS_PREFIX: `avail-b-${randomUUID().slice(0, 8)}`,
      PORT: '0',
      DATA_DIR: first.dataDir,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    }));
  }, 60_000);

  afterAll(async () => {
    if (second) await processes.stop(second);
    await first?.stop();
  });

  it('when an agent stays Offline past the grace period and capacity frees, then each ticket is returned and assigned once', async () => {
    const admin = await first.login();
    expect((await first.request('PUT', '/api/settings', { token: admin, body: { offlineGraceSeconds: 5 } })).status).toBe(200);
    const [ana, ben] = [await addMember(first, admin, 'agent', 'Ana'), await addMember(first, admin, 'agent', 'Ben')];
    const team = (await first.request('POST', '/api/teams', { token: admin, body: { name: 'Refunds', members: [ana.id, ben.id] } })).body.team._id;
    // Eight places each: Ben's four and Ana's four returned fill his.
    expect((await first.request('PUT', `/api/teams/${team}/assignment`, { token: admin, body: { mode: 'round-robin', cap: 8 } })).status).toBe(200);
    const category = await addCategory(first, admin, { routeTeamId: team });
    const open = async () => openTicket(first, await addMember(first, admin, 'customer', 'Cleo'), category);
    const assigneeOf = async (ticketId: string) => (await first.request('GET', `/api/tickets/${ticketId}`, { token: admin })).body.ticket.assignedAgent?._id;
    const first8: Array<{ _id: string }> = [];
    for (let index = 0; index < 8; index += 1) first8.push(await open());
    const anas = first8.filter((_, index) => index % 2 === 0);
    const bens = first8.filter((_, index) => index % 2 === 1);
    expect(await Promise.all(first8.map((ticket) => assigneeOf(ticket._id)))).toEqual(first8.map((_, index) => (index % 2 === 0 ? ana.id : ben.id)));

    // Both processes run the grace timer of Ana's sign-out at the same moment, over her four tickets.
    expect((await first.request('POST', '/api/auth/logout', { token: ana.token })).status).toBe(204);
    for (const ticket of anas)
      await eventually(async () => (await assigneeOf(ticket._id)) === ben.id, { describe: "Ana's ticket is with Ben", timeoutMs: 20_000 });
    // Ben is at the cap: the next ticket waits until he resolves one.
    const waiting = await open();
    expect(await assigneeOf(waiting._id)).toBeUndefined();
    expect((await first.request('PUT', `/api/tickets/${bens[0]!._id}`, { token: ben.token, body: { status: 'resolved' } })).status).toBe(200);
    await eventually(async () => (await assigneeOf(waiting._id)) === ben.id, { describe: 'the waiting ticket is with Ben', timeoutMs: 20_000 });
    // Six more wait; raising the cap has both processes give them at once.
    const more = await Promise.all(Array.from({ length: 6 }, () => open()));
    expect((await first.request('PUT', `/api/teams/${team}/assignment`, { token: admin, body: { mode: 'round-robin', cap: 20 } })).status).toBe(200);
    for (const ticket of more)
      await eventually(async () => (await assigneeOf(ticket._id)) === ben.id, { describe: 'a waiting ticket is with Ben', timeoutMs: 20_000 });
    // Long enough for the slower of the two to have run its timer and its fills as well.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const eventsOf = async (ticketId: string, type: string) =>
      (await first.deps.events.readStream(ticketStream(ticketId))).filter((event) => event.type === type);
    for (const ticket of anas) {
      expect((await eventsOf(ticket._id, 'AgentUnassignedFromTicket')).map((event) => event.data.returned)).toEqual([
        { teamId: team, teamName: 'Refunds', reason: 'offline', graceSeconds: 5 },
      ]);
      expect((await eventsOf(ticket._id, 'AgentAssignedToTicket')).map((event) => event.data.agentId)).toEqual([ana.id, ben.id]);
    }
    for (const ticket of [...bens, waiting, ...more]) {
      expect((await eventsOf(ticket._id, 'AgentUnassignedFromTicket')).length).toBe(0);
      expect((await eventsOf(ticket._id, 'AgentAssignedToTicket')).map((event) => event.data.agentId)).toEqual([ben.id]);
    }
    // The claims on the team's turns stream agree: one per assignment.
    const claims = (await first.deps.events.readStream(`teamturns-${team}`)).filter((event) => event.type === 'TeamTicketClaimed');
    const claimsOf = (ticketId: string) => claims.filter((event) => event.data.ticketId === ticketId).map((event) => event.data.agentId);
    expect(claims).toHaveLength(8 + 4 + 1 + 6);
    for (const ticket of anas) expect(claimsOf(ticket._id)).toEqual([ana.id, ben.id]);
    for (const ticket of [...bens, waiting, ...more]) expect(claimsOf(ticket._id)).toEqual([ben.id]);
  }, 90_000);
});
