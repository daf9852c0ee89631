import { execFile } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { ADMIN, type TestServer, startTestServer } from '../../../test/support/server';
import { projectRoot } from '../../platform/paths';
import { TICKETS } from '../../projections/tickets';

/** Runs one of the project's CLI commands as its own process against the test server's data. */
function cli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', script, ...args],
      { cwd: projectRoot(), env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('Audit: the hash chains and the read models, proven', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let ticket: { _id: string; ticketId: number };
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    env = { DATA_DIR: server.dataDir, APP_URL: server.url, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    const carol = await addMember(server, admin, 'customer', 'Carol');
    const dave = await addMember(server, admin, 'customer', 'Dave');
    const category = await addCategory(server, admin, { name: 'Billing' });
    // A desk with some life in it: renames, assignments, notes, edits, outcomes, a deleted ticket.
    ticket = await openTicket(server, carol, category, { title: 'Invoice twice' });
    const other = await openTicket(server, dave, category, { title: 'Refund' });
    const ask = (method: string, url: string, token: string, body?: unknown) => server.request(method, url, { token, ...(body ? { body } : {}) });
    await ask('POST', `/api/tickets/${ticket._id}/assign`, agent.token, { agentId: agent.id });
    await ask('POST', `/api/tickets/${ticket._id}/messages`, agent.token, { content: 'Looking into it' });
    const posted = await ask('POST', `/api/tickets/${ticket._id}/messages`, carol.token, { content: 'Thanks' });
    await ask('PUT', `/api/messages/${posted.body.message._id}`, carol.token, { content: 'Thank you!' });
    await ask('POST', `/api/tickets/${ticket._id}/messages`, agent.token, { content: 'Duplicate charge confirmed', isInternal: true });
    await ask('PUT', `/api/tickets/${ticket._id}/outcome`, agent.token, { outcomeMessage: 'Refunded the second charge' });
    await ask('PUT', `/api/users/${agent.id}`, admin, { firstName: 'Alicia' });
    await ask('PUT', `/api/categories/${category}`, admin, { name: 'Billing and invoices' });
    await ask('POST', `/api/tickets/${ticket._id}/messages/read`, carol.token);
    await ask('DELETE', `/api/tickets/${other._id}`, admin);
  });
  afterAll(() => server.stop());

  describe('when the read models are checked against a replay of the log', () => {
    it('then every collection equals its rebuild', async () => {
      const answer = await server.request('GET', '/api/audit/projections', { token: admin });
      expect(answer.status).toBe(200);
      expect(answer.body.ok).toBe(true);
      expect(answer.body.events).toBeGreaterThan(20);
      const tickets = answer.body.collections.find((c: { name: string }) => c.name === TICKETS);
      expect(tickets).toMatchObject({ rebuilt: 1, live: 1, missing: { count: 0 }, extra: { count: 0 }, different: { count: 0 } });
    });

    it('then `npm run projections:rebuild` rebuilds with progress and has the running app compare', async () => {
      const run = await cli('src/cli/rebuild.ts', [], env);
      expect(run.stdout).toContain('Rebuilding');
      expect(run.stdout).toMatch(/Rebuilt \d+ documents from \d+ events/);
      expect(run.stdout).toContain('equal   tickets_v1: 1 rebuilt, 1 live');
      expect(run.stdout).toContain('The rebuilt read models equal the live ones.');
      expect(run.code).toBe(0);
    }, 60_000);

    it('then a live document changed behind the log is reported with the fields that differ', async () => {
      const tickets = server.deps.readStore.collection(TICKETS);
      const original = (await tickets.findOne({ _id: ticket._id }))!;
      await tickets.updateOne({ _id: ticket._id }, { $set: { title: 'Tampered', status: 'closed' } });
      try {
        const answer = await server.request('GET', '/api/audit/projections', { token: admin });
        expect(answer.body.ok).toBe(false);
        const report = answer.body.collections.find((c: { name: string }) => c.name === TICKETS);
        expect(report.different).toEqual({ count: 1, documents: [{ _id: ticket._id, fields: ['status', 'title'] }] });
      } finally {
        await tickets.replaceOne({ _id: ticket._id }, original);
      }
    });

    it('then only an admin may ask', async () => {
      expect((await server.request('GET', '/api/audit/projections', { token: agent.token })).status).toBe(403);
      expect((await server.request('GET', '/api/audit/verify', { token: agent.token })).status).toBe(403);
    });
  });

  describe('when the log is verified', () => {
    it('then an intact log reports both chains whole, over HTTP and from the command line', async () => {
      const answer = await server.request('GET', '/api/audit/verify', { token: admin });
      expect(answer.body).toMatchObject({ ok: true, logChain: true, firstBreak: null, head: { position: await server.deps.events.headPosition() } });
      const run = await cli('src/cli/audit.ts', ['verify'], env);
      expect(run.stdout).toContain(`Intact. Head: position ${answer.body.head.position}, log link ${answer.body.head.log}`);
      expect(run.code).toBe(0);
    }, 60_000);

    it('then `npm run audit -- ticket <number>` prints the timeline', async () => {
      const run = await cli('src/cli/audit.ts', ['ticket', String(ticket.ticketId)], env);
      expect(run.code).toBe(0);
      const lines = run.stdout.split('\n');
      expect(lines[0]).toMatch(new RegExp(`^Ticket #${ticket.ticketId} \\(${ticket._id}\\): 9 events, hash chain intact`));
      expect(run.stdout).toContain(`Opened ticket #${ticket.ticketId} "Invoice twice" for Carol Tester (Billing and invoices, priority medium) via the web`);
      expect(run.stdout).toMatch(/Carol Tester \(customer, web\)\s+Edited a message from "Thanks" to "Thank you!"/);
      expect(run.stdout).toMatch(/Alicia Tester \(agent, web\)\s+Assigned the ticket to Alicia Tester/);
      expect((await cli('src/cli/audit.ts', ['ticket', 'nope'], env)).stderr).toContain('Ticket not found');
      expect((await cli('src/cli/audit.ts', [], env)).code).toBe(2);
    }, 60_000);

    it('then a message altered in the SQLite file is reported with its stream and revision', async () => {
      const db = new Database(path.join(server.dataDir, 'events.db'));
      const row = db
        .prepare<[string], { revision: number; data: string }>(
          "SELECT revision, data FROM events WHERE stream_id = ? AND type = 'MessagePosted' ORDER BY revision LIMIT 1",
        )
        .get(`ticket-${ticket._id}`)!;
      db.prepare('UPDATE events SET data = ? WHERE stream_id = ? AND revision = ?').run(
        row.data.replace('Looking into it', 'We never charged you'),
        `ticket-${ticket._id}`,
        row.revision,
      );
      db.close();

      const answer = await server.request('GET', '/api/audit/verify', { token: admin });
      expect(answer.body).toMatchObject({
        ok: false,
        firstBreak: { chain: 'stream', streamId: `ticket-${ticket._id}`, revision: row.revision, type: 'MessagePosted' },
      });
      const history = await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin });
      expect(history.body.integrity).toMatchObject({ ok: false, firstBreak: { revision: row.revision } });
      const run = await cli('src/cli/audit.ts', ['verify'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`BROKEN: the first broken link is in the stream chain at stream ticket-${ticket._id}, revision ${row.revision}`);
    }, 60_000);

    it('then an event whose stored JSON no longer parses is the first break, named over HTTP and by `npm run audit:verify`: stream, revision, position and id', async () => {
      const db = new Database(path.join(server.dataDir, 'events.db'));
      const row = db
        .prepare<[string], { revision: number; position: number; event_id: string; data: string }>(
          "SELECT revision, position, event_id, data FROM events WHERE stream_id = ? AND type = 'TicketOpened' LIMIT 1",
        )
        .get(`ticket-${ticket._id}`)!;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(row.data.slice(0, -5), row.position);
      db.close();

      const answer = await server.request('GET', '/api/audit/verify', { token: admin });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        ok: false,
        firstBreak: {
          chain: 'stream',
          streamId: `ticket-${ticket._id}`,
          revision: row.revision,
          position: row.position,
          eventId: row.event_id,
          type: 'TicketOpened',
        },
      });
      expect(answer.body.firstBreak.reason).toMatch(/its stored data is not valid JSON/);
      const run = await cli('src/cli/audit.ts', ['verify'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `BROKEN: the first broken link is in the stream chain at stream ticket-${ticket._id}, revision ${row.revision} (position ${row.position}, TicketOpened, event ${row.event_id}).`,
      );
      expect(run.stdout).toMatch(/its stored data is not valid JSON \(.+\)/);
    }, 60_000);
  });
});
