import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { bodyOf, startSmtpSink, subjectOf } from '../../../test/support/smtpSink';
import { report, tally } from '../../../test/support/tally';
import { outboxDir } from './mailer';

describe('E-mail notifications over SMTP', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;
  let category: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com/' } });
    admin = await server.login();
    category = await addCategory(server, admin, { name: 'Accounts' });
    await server.request('PUT', '/api/settings', { token: admin, body: { systemName: 'Acme Help', supportEmail: 'help@acme.test' } });
  });

  afterAll(async () => {
    await server.stop();
    await sink.close();
  });

  it('mails the customer on creation, staff replies and status changes, never for internal notes', async () => {
    const carol = await addMember(server, admin, 'customer', 'Carol');
    const agent = await addMember(server, admin, 'agent', 'Dan');
    const ticket = await openTicket(server, carol, category, { title: 'Locked out' });
    const created = await eventually(() => sink.mailsTo(carol.email)[0]);
    expect(subjectOf(created.raw)).toBe(`[Acme Help] Ticket #${ticket.ticketId} created: Locked out`);
    expect(created.raw).toMatch(/^From: Acme Help <help@acme\.test>$/m);
    expect(bodyOf(created.raw)).toContain(`Follow it here: https://desk.example.com/tickets/${ticket._id}`);

    await server.request('POST', `/api/tickets/${ticket._id}/messages`, {
      token: agent.token,
      body: { content: 'Internal: check the logs', isInternal: true },
    });
    await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: carol.token, body: { content: 'Any update?' } });
    await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'Your account is unlocked now.' } });
    const reply = await eventually(() => sink.mailsTo(carol.email)[1]);
    expect(subjectOf(reply.raw)).toBe(`[Acme Help] New reply on ticket #${ticket.ticketId}: Locked out`);
    expect(bodyOf(reply.raw)).toContain(`Dan Tester replied to your ticket #${ticket.ticketId} “Locked out”:`);
    expect(bodyOf(reply.raw)).toContain('Your account is unlocked now.');

    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'resolved' } });
    const status = await eventually(() => sink.mailsTo(carol.email)[2]);
    expect(subjectOf(status.raw)).toBe(`[Acme Help] Ticket #${ticket.ticketId} is now resolved`);
    // The resolution also asks for a rating (docs/satisfaction.md), after the status mail.
    const survey = await eventually(() => sink.mailsTo(carol.email)[3]);
    expect(subjectOf(survey.raw)).toBe(`[Acme Help] How did we do on ticket #${ticket.ticketId}?`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.mailsTo(carol.email)).toHaveLength(4);
    expect(sink.received.some((mail) => mail.raw.includes('check the logs') || mail.raw.includes('Any update?'))).toBe(false);
  });

  it('sends nothing while e-mail notifications are off', async () => {
    const erin = await addMember(server, admin, 'customer', 'Erin');
    await server.request('PUT', '/api/settings', { token: admin, body: { emailNotifications: false } });
    const quiet = await openTicket(server, erin, category, { title: 'Quiet one' });
    await server.request('PUT', `/api/tickets/${quiet._id}`, { token: admin, body: { status: 'closed' } });
    await server.request('PUT', '/api/settings', { token: admin, body: { emailNotifications: true } });
    const loud = await openTicket(server, erin, category, { title: 'Loud one' });
    await eventually(() => sink.mailsTo(erin.email).length === 1);
    expect(subjectOf(sink.mailsTo(erin.email)[0]!.raw)).toBe(`[Acme Help] Ticket #${loud.ticketId} created: Loud one`);
  });

  it('retries a temporary SMTP refusal and delivers once; keeps a permanent refusal as a failed job', async () => {
    const fay = await addMember(server, admin, 'customer', 'Fay');
    sink.refuseNext(451, 'Try again later');
    const ticket = await openTicket(server, fay, category, { title: 'Retry me' });
    await eventually(() => sink.mailsTo(fay.email).length === 1, { timeoutMs: 15_000 });
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'closed' } });
    await eventually(() => sink.mailsTo(fay.email).length === 2);

    sink.refuseNext(550, 'No such mailbox');
    const gus = await addMember(server, admin, 'customer', 'Gus');
    await openTicket(server, gus, category, { title: 'Nobody home' });
    const failed = await eventually(async () => (await server.deps.queue.failed('email')).find((job) => (job.data as { to: string }).to === gus.email));
    expect(failed).toMatchObject({ attemptsMade: 1 });
    expect(failed.failedReason).toContain('SMTP 550');
    expect(sink.mailsTo(fay.email)).toHaveLength(2);
  }, 30_000);
});

describe('E-mail notifications through an SMTP outage', () => {
  /** How long the SMTP server is away at least (SMTP_OUTAGE_MS). */
  const OUTAGE_MS = Number(process.env.SMTP_OUTAGE_MS ?? 10_000);
  /**
   * Tries of the first waiting mail before the server returns: with mail's backoff from 5 s and a
   * 60 s cap its next try is then 20 s away, as a long outage leaves it; the return must not wait for it.
   */
  const TRIES_BEFORE_RETURN = 3;

  it(
    'when the SMTP server refuses connections while a reply, a second reply and the closing are posted, then within 5 s of its return all three arrive once and in order',
    async () => {
      const sink = await startSmtpSink();
      const server = await startTestServer({ env: { SMTP_URL: sink.url, DELIVERY_BACKOFF_CAP_MS: '60000' } });
      try {
        const admin = await server.login();
        const category = await addCategory(server, admin, { name: 'Mail outage' });
        const ola = await addMember(server, admin, 'customer', 'Ola');
        const ticket = await openTicket(server, ola, category, { title: 'Mail me' });
        await eventually(() => sink.mailsTo(ola.email).length === 1, { describe: 'the creation mail' });
        const down = Date.now();
        await sink.goDown();
        const post = (content: string) => server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: admin, body: { content } });
        expect((await post('First answer while the mail server is away')).status).toBe(201);
        expect((await post('Second answer while the mail server is away')).status).toBe(201);
        expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'closed' } })).status).toBe(200);
        await eventually(
          async () => {
            const { deliveries } = (await server.request('GET', '/api/deliveries', { token: admin })).body as {
              deliveries: Array<{ channel: string; state: string; attempts: number; lastError: string | null }>;
            };
            return deliveries.some(
              (delivery) =>
                delivery.channel === 'email' &&
                delivery.state === 'retrying' &&
                delivery.attempts >= TRIES_BEFORE_RETURN &&
                delivery.lastError?.includes('ECONNREFUSED'),
            );
          },
          { timeoutMs: 60_000, describe: `the first mail tried ${TRIES_BEFORE_RETURN} times` },
        );
        const health = (await server.health()).body;
        expect(health).toMatchObject({ status: 'degraded', channels: { email: { inbound: 0, outbound: 3 } } });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - down))));
        const back = Date.now();
        await sink.goUp();
        await eventually(() => sink.mailsTo(ola.email).length >= 4, { timeoutMs: 30_000, describe: 'the mails after the outage' });
        const arrivedAfterMs = Date.now() - back;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const arrived = sink
          .mailsTo(ola.email)
          .slice(1)
          .map((mail) => subjectOf(mail.raw) ?? '');
        const expected = [
          `[Customer Support System] New reply on ticket #${ticket.ticketId}: Mail me`,
          `[Customer Support System] New reply on ticket #${ticket.ticketId}: Mail me`,
          `[Customer Support System] Ticket #${ticket.ticketId} is now closed`,
        ];
        expect(arrived).toEqual(expected);
        const bodies = sink
          .mailsTo(ola.email)
          .slice(1, 3)
          .map((mail) => bodyOf(mail.raw));
        expect(bodies[0]).toContain('First answer');
        expect(bodies[1]).toContain('Second answer');
        const keyed = sink
          .mailsTo(ola.email)
          .slice(1)
          .map((mail) => bodyOf(mail.raw).match(/(First|Second) answer|is now closed/)?.[0] ?? '?');
        const figures = tally(['First answer', 'Second answer', 'is now closed'], keyed);
        report(`SMTP outage of ${Math.round((back - down) / 1000)} s`, { ...figures, arrivedAfterMs });
        expect(figures).toEqual({ sent: 3, delivered: 3, lost: 0, duplicated: 0, reordered: 0 });
        expect(arrivedAfterMs).toBeLessThan(5000);
        expect((await server.health()).body.status).toBe('ok');
      } finally {
        await server.stop();
        await sink.close();
      }
    },
    OUTAGE_MS + 90_000,
  );
});

describe('E-mail notifications without SMTP_URL', () => {
  it('writes each mail as an .eml file in DATA_DIR/outbox', async () => {
    const server = await startTestServer();
    try {
      const admin = await server.login();
      const category = await addCategory(server, admin);
      const hal = await addMember(server, admin, 'customer', 'Hal');
      const ticket = await openTicket(server, hal, category, { title: 'Printer on fire' });
      const dir = outboxDir(server.deps.config);
      const files = await eventually(() => {
        try {
          const names = readdirSync(dir).filter((name) => name.endsWith('.eml'));
          return names.length > 0 ? names : undefined;
        } catch {
          return undefined;
        }
      });
      expect(files).toHaveLength(1);
      const raw = readFileSync(path.join(dir, files[0]!), 'utf8');
      expect(raw).toMatch(new RegExp(`^To: ${hal.email}$`, 'm'));
      expect(subjectOf(raw)).toBe(`[Customer Support System] Ticket #${ticket.ticketId} created: Printer on fire`);
      expect(bodyOf(raw)).toContain(`http://localhost:0/tickets/${ticket._id}`);
    } finally {
      await server.stop();
    }
  });
});
