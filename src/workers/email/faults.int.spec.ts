import { addCategory, addMember } from '../../../test/support/desk';
import { type Dovecot, mailboxSettings, startDovecot } from '../../../test/support/dovecot';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { mailTally, textsByTicket } from '../../../test/support/mailTally';
import { report } from '../../../test/support/tally';

const SUPPORT = 'help@acme.test';
const OUTAGE_MS = 60_000;

const mail = (from: string, id: string, body: string, extra: string[] = []) =>
  [`From: ${from}`, `To: ${SUPPORT}`, `Subject: Load ${id}`, `Message-ID: <${id}@example.com>`, ...extra, '', body].join('\n');

/** Each ticket's customer texts, as many times as each is there. */
const arrivedByTicket = (server: TestServer, admin: string) =>
  textsByTicket(async (route) => (await server.request('GET', route, { token: admin })).body, 'mail ');

describe('The e-mail channel under faults (Dovecot)', () => {
  let dovecot: Dovecot;
  let server: TestServer;
  let admin: string;
  let dataDir: string;
  const senders: string[] = [];

  beforeAll(async () => {
    dovecot = await startDovecot();
    server = await startTestServer({ env: { DELIVERY_BACKOFF_CAP_MS: '1000' } });
    dataDir = server.dataDir;
    admin = await server.login();
    await addCategory(server, admin, { name: 'General' });
    for (const name of ['Gus', 'Hal', 'Ivy']) senders.push((await addMember(server, admin, 'customer', name)).email);
    await server.request('PUT', '/api/settings', {
      token: admin,
      body: {
        supportEmail: SUPPORT,
        ...mailboxSettings(dovecot),
        mailboxAfterFetch: 'move',
        mailboxMoveTo: 'Done',
        maxFiles: 1,
        maxFileSize: 1024 * 1024,
      },
    });
  });
  afterAll(async () => {
    await server.stop();
    await dovecot.close();
  });

  it('when Dovecot is down for 60 s mid-load and the app restarts mid-fetch, then every mail arrives once, and health is degraded while the mailbox cannot be read', async () => {
    const expected: string[] = [];
    const senderOf = new Map<string, string>();
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const text = `mail ${expected.length + 1}`;
        expected.push(text);
        const sender = senders[expected.length % senders.length]!;
        senderOf.set(text, sender);
        await dovecot.append(mail(sender, `load-${expected.length}`, text));
      }
    };
    await send(10);
    await eventually(async () => (await arrivedByTicket(server, admin)).flat().length >= 3, { timeoutMs: 20_000, describe: 'the first mails taken' });
    await dovecot.stop();
    const downAt = Date.now();
    await eventually(async () => (await server.health()).body.status === 'degraded', { timeoutMs: 15_000, describe: 'health degraded' });
    // Mail keeps arriving at the server's disk meanwhile: appended once it is back, as a queue on the MX would.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
    expect((await server.health()).body.status).toBe('degraded');
    await dovecot.start();
    await send(10);
    // A restart while the new mails are being fetched: what was queued but not marked is fetched again.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await server.stop({ keepData: true });
    server = await startTestServer({ dataDir, env: { DELIVERY_BACKOFF_CAP_MS: '1000' } });
    admin = await server.login();
    await send(5);
    const byTicket = await eventually(
      async () => {
        const tickets = await arrivedByTicket(server, admin);
        return tickets.flat().length >= expected.length && (await dovecot.list()).length === 0 ? tickets : null;
      },
      { timeoutMs: 60_000, describe: 'every mail taken' },
    );
    const figures = mailTally(expected, senderOf, byTicket);
    report(`Dovecot outage of ${OUTAGE_MS / 1000} s and a restart mid-fetch`, { ...figures });
    expect(figures).toMatchObject({ delivered: expected.length, lost: 0, duplicated: 0, reordered: 0 });
    expect(await dovecot.list('Done')).toHaveLength(expected.length);
    await eventually(async () => (await server.health()).body.status === 'ok', { timeoutMs: 15_000, describe: 'health ok again' });
  }, 180_000);

  it('when a mail is too large or has no sender, then each is an entry in Deliveries, and nothing opens', async () => {
    await dovecot.append(mail('big@example.com', 'big', `mail big\n${'x'.repeat(76)}\n`.repeat(40_000)));
    await dovecot.append(['To: help@acme.test', 'Subject: nobody', 'Message-ID: <nobody@example.com>', '', 'mail without a sender'].join('\n'));
    const failed = await eventually(
      async () => {
        const { body } = await server.request('GET', '/api/deliveries', { token: admin });
        const inbound = body.deliveries.filter(
          (delivery: { direction: string; state: string }) => delivery.direction === 'inbound' && delivery.state === 'failed',
        );
        return inbound.length === 2 ? inbound : null;
      },
      { timeoutMs: 20_000, describe: 'two failed inbound mails' },
    );
    expect(failed.map((delivery: { lastError: string }) => delivery.lastError).sort()).toEqual([
      expect.stringMatching(/^the mail from big@example\.com is too large to take \(\d+ bytes\)$/),
      'the mail has no sender address (From) to answer',
    ]);
    expect(failed.every((delivery: { channel: string; kind: string }) => delivery.channel === 'email' && delivery.kind === 'mail')).toBe(true);
    expect((await arrivedByTicket(server, admin)).flat().filter((text) => text.startsWith('mail big') || text.startsWith('mail without'))).toEqual([]);
  });
});
