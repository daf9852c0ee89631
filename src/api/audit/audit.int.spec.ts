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
  let carol: Member;
  let ticket: { _id: string; ticketId: number };
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    env = { DATA_DIR: server.dataDir, APP_URL: server.url, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
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

    it('then `npm run projections:rebuild` rebuilds with progress and compares the read models in the SQLite file the running app writes', async () => {
      const run = await cli('src/cli/rebuild.ts', [], env);
      expect(run.stdout).toContain('Rebuilding');
      expect(run.stdout).toMatch(/Compared with the live sqlite read models at position \d+ \(\d+ events\)/);
      expect(run.stdout).toContain('equal   tickets_v1: 1 rebuilt, 1 live');
      expect(run.stdout).toContain('The rebuilt read models equal the live ones.');
      expect(run.code).toBe(0);
    }, 60_000);

    it('then with READSTORE=memory `npm run projections:rebuild` rebuilds on its heap and has the running app compare its own', async () => {
      const run = await cli('src/cli/rebuild.ts', [], { ...env, READSTORE: 'memory' });
      expect(run.stdout).toMatch(/Rebuilt \d+ documents from \d+ events/);
      expect(run.stdout).toContain("Compared with the running app's read models");
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

    it('then the damaged ticket answers with what is damaged and where, to staff; a customer and a command learn only that it is; nothing is written', async () => {
      const invoices = await addCategory(server, admin, { name: 'Invoices' });
      const events = await server.deps.events.headPosition();
      const opened = await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: admin });
      expect(opened.status).toBe(409);
      expect(opened.body).toMatchObject({
        code: 'HISTORY_DAMAGED',
        damaged: { streamId: `ticket-${ticket._id}`, revision: 0, type: 'TicketOpened' },
      });
      expect(opened.body.error).toMatch(
        /^This ticket's stored history is damaged: its event at revision 0 \(TicketOpened, position \d+, id [0-9a-f-]+\) cannot be read: its stored data is not valid JSON\./,
      );
      expect(opened.body.error).toContain('npm run audit:verify');
      const staffMoment = await server.request('GET', `/api/tickets/${ticket._id}/at?revision=0`, { token: agent.token });
      expect(staffMoment).toMatchObject({ status: 409, body: { code: 'HISTORY_DAMAGED', damaged: { revision: 0 } } });

      const customerMoment = await server.request('GET', `/api/tickets/${ticket._id}/at?revision=0`, { token: carol.token });
      expect(customerMoment.status).toBe(409);
      expect(customerMoment.body).toEqual({
        code: 'HISTORY_DAMAGED',
        error: "This ticket's earlier versions cannot be shown because part of its stored history is damaged. Please contact support.",
      });
      // Her open ticket's stream decides whether she may open another: it cannot be read, so nothing is decided.
      const another = await server.request('POST', '/api/tickets', {
        token: carol.token,
        body: { title: 'Second invoice', description: 'Also twice', category: invoices, priority: 'low' },
      });
      expect(another.status).toBe(409);
      expect(another.body).toEqual({
        code: 'HISTORY_DAMAGED',
        error:
          'Part of the stored history this needs is damaged and cannot be read, so nothing was changed. An administrator can find where with npm run audit:verify.',
      });
      expect(await server.deps.events.headPosition()).toBe(events);
    }, 60_000);

    it('then an event rewritten into another shape keeps the history readable, its line saying so, and time travel names it', async () => {
      const category = await addCategory(server, admin, { name: 'Shipping' });
      const erin = await addMember(server, admin, 'customer', 'Erin');
      const parcel = await openTicket(server, erin, category, { title: 'Parcel lost' });
      await server.request('POST', `/api/tickets/${parcel._id}/messages`, { token: erin.token, body: { content: 'Where is it?' } });
      const db = new Database(path.join(server.dataDir, 'events.db'));
      const row = db
        .prepare<[string], { revision: number; position: number }>("SELECT revision, position FROM events WHERE stream_id = ? AND type = 'MessagePosted'")
        .get(`ticket-${parcel._id}`)!;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ note: 'rewritten' }), row.position);
      db.close();

      const history = await server.request('GET', `/api/tickets/${parcel._id}/history`, { token: admin });
      expect(history.status).toBe(200);
      expect(history.body.integrity).toMatchObject({ ok: false, firstBreak: { revision: row.revision } });
      expect(history.body.events[row.revision]).toMatchObject({
        type: 'MessagePosted',
        summary: 'Unreadable: its stored data does not have the fields of a MessagePosted event',
      });
      for (const token of [admin, erin.token]) {
        const moment = await server.request('GET', `/api/tickets/${parcel._id}/at?revision=${row.revision}`, { token });
        expect(moment.status).toBe(200);
        // The projection passes over a message without its fields: the conversation shows nothing rather than a made-up line.
        expect(moment.body.messages).toEqual([]);
      }
      const opening = new Database(path.join(server.dataDir, 'events.db'));
      opening
        .prepare("UPDATE events SET data = ? WHERE stream_id = ? AND type = 'TicketOpened'")
        .run(JSON.stringify({ note: 'rewritten' }), `ticket-${parcel._id}`);
      opening.close();
      const rewritten = await server.request('GET', `/api/tickets/${parcel._id}/history`, { token: admin });
      expect(rewritten.status).toBe(200);
      expect(rewritten.body.events[0]).toMatchObject({
        type: 'TicketOpened',
        summary: 'Unreadable: its stored data does not have the fields of a TicketOpened event',
      });
      const moment = await server.request('GET', `/api/tickets/${parcel._id}/at?revision=0`, { token: admin });
      expect(moment.status).toBe(409);
      expect(moment.body).toMatchObject({ code: 'HISTORY_DAMAGED', damaged: { streamId: `ticket-${parcel._id}`, revision: 0, type: 'TicketOpened' } });
      expect(moment.body.error).toMatch(
        /^This ticket's stored history is damaged: the event at position \d+ \(TicketOpened, stream ticket-[0-9a-f-]+, revision 0\) does not fold: /,
      );
      // Whose ticket it was is part of what was rewritten: a customer cannot be shown to own it.
      expect((await server.request('GET', `/api/tickets/${parcel._id}/at?revision=0`, { token: erin.token })).status).toBe(404);
    }, 60_000);
  });
});
