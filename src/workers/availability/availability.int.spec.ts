import { rmSync } from 'node:fs';
import path from 'node:path';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { ticketStream } from '../../domain/ticket/ticket';
import { userStream } from '../../domain/user/user';

/** The servers' clock runs this far ahead of the real one; timers look at it every 100 ms (SLA_TIMER_MAX_DELAY_MS). */
let ahead = 0;
const clock = () => new Date(Date.now() + ahead);

/** A round-robin team of `agents` and a category routed to it. */
async function roundRobinTeam(server: TestServer, admin: string, agents: Member[], cap: number | null = null) {
  const team = (await server.request('POST', '/api/teams', { token: admin, body: { name: 'Refunds', members: agents.map((agent) => agent.id) } })).body.team;
  expect((await server.request('PUT', `/api/teams/${team._id}/assignment`, { token: admin, body: { mode: 'round-robin', cap } })).status).toBe(200);
  return { teamId: team._id as string, category: await addCategory(server, admin, { routeTeamId: team._id }) };
}

const assigneeOf = async (server: TestServer, token: string, ticketId: string) =>
  ((await server.request('GET', `/api/tickets/${ticketId}`, { token })).body.ticket.assignedAgent?._id ?? null) as string | null;

/** Availability beyond the switch (docs/teams.md): sign-out, idle time, grace period, capacity that frees. */
describe('Availability and the work it moves', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ clock, env: { SLA_TIMER_MAX_DELAY_MS: '100' } });
    admin = await server.login();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    ahead = 0;
  });

  it('when staff sign out, then they are Offline by their own hand, and Available again once they sign in', async () => {
    const agent = await addMember(server, admin, 'agent', 'Olga');
    expect((await server.request('POST', '/api/auth/logout', { token: agent.token })).status).toBe(204);
    const changes = (await server.deps.events.readStream(userStream(agent.id))).filter((event) => event.type === 'AvailabilitySet');
    expect(changes.map((event) => [event.data.availability, event.data.reason, event.metadata.actor?.userId])).toEqual([
      ['offline', { kind: 'signed-out' }, agent.id],
    ]);
    const token = await server.login(agent.email, 'password-123');
    expect((await server.request('GET', '/api/auth/availability', { token })).body).toEqual({ availability: 'available' });
  });

  it('when staff signed in on two devices sign out of one, then they stay Available; signing out of the last makes them Offline', async () => {
    const agent = await addMember(server, admin, 'agent', 'Dora');
    const laptop = await server.signIn(agent.email, 'password-123');
    expect((await server.request('POST', '/api/auth/logout', { token: agent.token })).status).toBe(204);
    expect((await server.request('GET', '/api/auth/availability', { token: laptop.accessToken })).body).toEqual({ availability: 'available' });
    expect((await server.request('POST', '/api/auth/logout', { body: { refreshToken: laptop.refreshToken } })).status).toBe(204);
    const changes = (await server.deps.events.readStream(userStream(agent.id))).filter((event) => event.type === 'AvailabilitySet');
    expect(changes.map((event) => [event.data.availability, event.data.reason])).toEqual([['offline', { kind: 'signed-out' }]]);
  });

  it('when Available staff show no activity for the idle time, then the system sets them Away saying why', async () => {
    const bad = await server.request('PUT', '/api/settings', { token: admin, body: { idleAwayMinutes: -1 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Away after idle minutes must be between 0 (never) and 1440');
    expect((await server.request('PUT', '/api/settings', { token: admin, body: { idleAwayMinutes: 15 } })).status).toBe(200);
    const agent = await addMember(server, admin, 'agent', 'Ida');
    expect((await server.request('POST', '/api/auth/activity', { token: agent.token })).status).toBe(204);
    ahead = 14 * 60_000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await server.request('GET', '/api/auth/availability', { token: agent.token })).body).toEqual({ availability: 'available' });
    ahead = 16 * 60_000;
    await eventually(async () => (await server.request('GET', '/api/auth/availability', { token: agent.token })).body.availability === 'away', {
      describe: 'the agent is Away',
      timeoutMs: 10_000,
    });
    const away = (await server.deps.events.readStream(userStream(agent.id))).findLast((event) => event.type === 'AvailabilitySet')!;
    expect([away.data.reason, away.metadata.actor?.userId]).toEqual([{ kind: 'idle', minutes: 15 }, 'system']);
    expect((await server.request('PUT', '/api/settings', { token: admin, body: { idleAwayMinutes: 0 } })).status).toBe(200);
  });

  it('when an agent stays Offline past the grace period, then their tickets go to the other available member and the history says why', async () => {
    const bad = await server.request('PUT', '/api/settings', { token: admin, body: { offlineGraceSeconds: 3 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Offline grace period must be 0 (never) or between 5 seconds and 7 days');
    expect((await server.request('PUT', '/api/settings', { token: admin, body: { offlineGraceSeconds: 300 } })).status).toBe(200);
    const [ana, ben] = [await addMember(server, admin, 'agent', 'Ana'), await addMember(server, admin, 'agent', 'Ben')];
    const { category } = await roundRobinTeam(server, admin, [ana, ben]);
    const customer = await addMember(server, admin, 'customer', 'Cleo');
    const ticket = await openTicket(server, customer, category);
    expect(await assigneeOf(server, admin, ticket._id)).toBe(ana.id);
    expect((await server.request('POST', '/api/auth/logout', { token: ana.token })).status).toBe(204);
    ahead = 200_000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await assigneeOf(server, admin, ticket._id)).toBe(ana.id);
    ahead = 301_000;
    await eventually(async () => (await assigneeOf(server, admin, ticket._id)) === ben.id, { describe: 'the ticket is with Ben', timeoutMs: 10_000 });
    const history = JSON.stringify((await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin })).body);
    expect(history).toContain('Returned the ticket to the team \\"Refunds\\": Ana Tester was offline for longer than the grace period of 5 minutes');
    // Ben signs out and back in within the grace period: his Offline is over, so its timer returns nothing.
    expect((await server.request('POST', '/api/auth/logout', { token: ben.token })).status).toBe(204);
    await server.login(ben.email, 'password-123');
    ahead = 700_000;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const returned = (await server.deps.events.readStream(ticketStream(ticket._id))).filter((event) => event.type === 'AgentUnassignedFromTicket');
    expect(returned.map((event) => [event.data.agentId, event.metadata.actor?.userId])).toEqual([[ana.id, 'system']]);
    expect((await server.request('PUT', '/api/settings', { token: admin, body: { offlineGraceSeconds: 0 } })).status).toBe(200);
  });

  it('when an agent at the cap resolves a ticket, then the oldest waiting ticket of the team is theirs', async () => {
    const agent = await addMember(server, admin, 'agent', 'Cat');
    const { category } = await roundRobinTeam(server, admin, [agent], 1);
    const [first, second, third] = [
      await openTicket(server, await addMember(server, admin, 'customer'), category),
      await openTicket(server, await addMember(server, admin, 'customer'), category),
      await openTicket(server, await addMember(server, admin, 'customer'), category),
    ];
    expect([await assigneeOf(server, admin, first._id), await assigneeOf(server, admin, second._id)]).toEqual([agent.id, null]);
    expect((await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'resolved' } })).status).toBe(200);
    await eventually(async () => (await assigneeOf(server, admin, second._id)) === agent.id, { describe: 'the waiting ticket is assigned', timeoutMs: 10_000 });
    expect(await assigneeOf(server, admin, third._id)).toBeNull();
  });
});

/** Removes the embedded queue's file: every job, completed id and reactor checkpoint of it. */
const loseQueue = (dataDir: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, `queue.db${suffix}`), { force: true });
};

describe('Availability timers after the queue lost them', () => {
  it('when the queue is lost while one agent idles and another is Offline, then the next start plans both timers again and each does its work once', async () => {
    ahead = 0;
    const env = { SLA_TIMER_MAX_DELAY_MS: '100' };
    const first = await startTestServer({ clock, env });
    let firstStopped = false;
    let second: TestServer | null = null;
    try {
      const admin = await first.login();
      expect((await first.request('PUT', '/api/settings', { token: admin, body: { idleAwayMinutes: 15, offlineGraceSeconds: 300 } })).status).toBe(200);
      const ida = await addMember(first, admin, 'agent', 'Ida');
      expect((await first.request('POST', '/api/auth/activity', { token: ida.token })).status).toBe(204);
      const [ana, ben] = [await addMember(first, admin, 'agent', 'Ana'), await addMember(first, admin, 'agent', 'Ben')];
      const { category } = await roundRobinTeam(first, admin, [ana, ben]);
      const ticket = await openTicket(first, await addMember(first, admin, 'customer', 'Cleo'), category);
      expect(await assigneeOf(first, admin, ticket._id)).toBe(ana.id);
      expect((await first.request('POST', '/api/auth/logout', { token: ana.token })).status).toBe(204);
      await first.stop({ keepData: true });
      firstStopped = true;
      loseQueue(first.dataDir);

      // Past Ana's grace period, not yet past anyone's idle time.
      ahead = 6 * 60_000;
      second = await startTestServer({ dataDir: first.dataDir, clock, env });
      const server = second;
      const adminAgain = await server.login();
      await eventually(async () => (await assigneeOf(server, adminAgain, ticket._id)) === ben.id, { describe: 'the ticket is with Ben', timeoutMs: 15_000 });
      // Ida is not Away yet (signing her in would count as activity and start her idle time again).
      expect((await server.deps.events.readStream(userStream(ida.id))).filter((event) => event.type === 'AvailabilitySet')).toEqual([]);

      // Past Ida's idle time (from her activity before the stop).
      ahead = 16 * 60_000;
      await eventually(
        async () =>
          (await server.deps.events.readStream(userStream(ida.id))).some((event) => event.type === 'AvailabilitySet' && event.data.availability === 'away'),
        { describe: 'Ida is Away', timeoutMs: 15_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idaChanges = (await server.deps.events.readStream(userStream(ida.id))).filter((event) => event.type === 'AvailabilitySet');
      expect(idaChanges.map((event) => [event.data.availability, event.data.reason, event.metadata.actor?.userId])).toEqual([
        ['away', { kind: 'idle', minutes: 15 }, 'system'],
      ]);
      const returned = (await server.deps.events.readStream(ticketStream(ticket._id))).filter((event) => event.type === 'AgentUnassignedFromTicket');
      expect(returned.map((event) => [event.data.agentId, event.metadata.actor?.userId])).toEqual([[ana.id, 'system']]);
    } finally {
      if (second) await second.stop();
      else if (!firstStopped) await first.stop();
      else rmSync(first.dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
