import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addCategory, addMember } from '../../../test/support/desk';
import { appProcesses, call } from '../../../test/support/appProcesses';
import { ADMIN, startTestServer } from '../../../test/support/server';
import { pagesOfAll } from '../../platform/eventstore/paging';
import { createUser } from '../identity/service';
import { startSession } from '../identity/sessions';

const TICKETS = 200;
const AGENTS = 3;
/** 3 x 67 places for 200 tickets: every ticket finds a place, and one claim past the cap would show. */
const CAP = 67;

/**
 * Fair assignment across two app processes on one log (docs/teams.md): 200 customers open a ticket each
 * at once, half through each process, into a category routed to a round-robin team of three agents.
 */
describe('Automatic assignment with two app processes on one DATA_DIR', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-assignment-race-'));
  const apps = appProcesses({ PORT: '0', DATA_DIR: dataDir, REDIS_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' });
  afterAll(() => {
    apps.killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('then 200 tickets opened at once are each assigned exactly once, nobody past the cap, and the turns even within one', async () => {
    // The desk is made in this process (its users' sessions minted directly: 200 sign-ins from one address would meet the login throttle).
    const setup = await startTestServer({ dataDir });
    const admin = await setup.login();
    const agents = await Promise.all(Array.from({ length: AGENTS }, (_, index) => addMember(setup, admin, 'agent', `Agent${index}`)));
    const team = (await setup.request('POST', '/api/teams', { token: admin, body: { name: 'Race', members: agents.map((agent) => agent.id) } })).body.team;
    expect((await setup.request('PUT', `/api/teams/${team._id}/assignment`, { token: admin, body: { mode: 'round-robin', cap: CAP } })).status).toBe(200);
    const category = await addCategory(setup, admin, { routeTeamId: team._id });
    const context = { actor: { userId: 'system', role: 'system', platform: 'system' as const }, now: new Date() };
    const customers: string[] = [];
    for (let batch = 0; batch < TICKETS; batch += 20) {
      const made = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const username = `racer_${batch + index}`;
          const input = {
            username,
            email: `${username}@example.com`,
            password: 'password-123',
            firstName: 'Race',
            lastName: 'Customer',
            role: 'customer' as const,
            isActive: true,
          };
          const user = await createUser(setup.deps, input, context);
          return (await startSession(setup.deps, user, { ip: null, userAgent: null, requestId: 'race-setup' })).accessToken;
        }),
      );
      customers.push(...made);
    }
    await setup.stop({ keepData: true });

    const [first, second] = await Promise.all([apps.start(), apps.start()]);
    const opened = await Promise.all(
      customers.map((token, index) =>
        call(
          index % 2 === 0 ? first.url : second.url,
          'POST',
          '/api/tickets',
          token,
          { title: `Race ${index}`, description: 'Opened with 199 others', category },
          120_000,
        ),
      ),
    );
    // 202: opened, the answer not waiting longer for the read models (a loaded machine); the log below counts either way.
    expect(opened.filter((answer) => answer.status !== 201 && answer.status !== 202).map((answer) => [answer.status, answer.body])).toEqual([]);
    await Promise.all([apps.stop(first.child), apps.stop(second.child)]);

    // The log is the judge: every assignment the two processes appended, ticket by ticket.
    const check = await startTestServer({ dataDir });
    try {
      const assignments = new Map<string, string[]>();
      const ticketIds: string[] = [];
      for await (const page of pagesOfAll(check.deps.events, { pageSize: 1000 })) {
        for (const event of page) {
          if (event.type === 'TicketOpened' && event.data.categoryId === category) ticketIds.push(event.data.ticketId as string);
          if (event.type !== 'AgentAssignedToTicket') continue;
          const { ticketId, agentId, rule } = event.data as { ticketId: string; agentId: string; rule?: { teamId: string } };
          expect(rule?.teamId).toBe(team._id);
          expect(event.metadata.actor?.userId).toBe('system');
          assignments.set(ticketId, [...(assignments.get(ticketId) ?? []), agentId]);
        }
      }
      expect(ticketIds).toHaveLength(TICKETS);
      expect(ticketIds.filter((ticketId) => assignments.get(ticketId)?.length !== 1)).toEqual([]);
      const perAgent = agents.map((agent) => ticketIds.filter((ticketId) => assignments.get(ticketId)![0] === agent.id).length);
      expect(perAgent.reduce((sum, count) => sum + count, 0)).toBe(TICKETS);
      expect(Math.max(...perAgent)).toBeLessThanOrEqual(CAP);
      expect(Math.max(...perAgent) - Math.min(...perAgent)).toBeLessThanOrEqual(1);
      // The claims on the team's turns stream agree: one per ticket, in turn.
      const claims = (await check.deps.events.readStream(`teamturns-${team._id}`)).filter((event) => event.type === 'TeamTicketClaimed');
      expect(claims).toHaveLength(TICKETS);
      expect(claims.slice(1).filter((claim, index) => claim.data.agentId === claims[index]!.data.agentId)).toEqual([]);
    } finally {
      await check.stop({ keepData: true });
    }
  }, 300_000);
});
