import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appProcesses, call, login } from '../../../test/support/appProcesses';
import { type Dovecot, mailboxSettings, startDovecot } from '../../../test/support/dovecot';
import { eventually } from '../../../test/support/eventually';
import { mailTally, textsByTicket } from '../../../test/support/mailTally';
import { ADMIN } from '../../../test/support/server';
import { report } from '../../../test/support/tally';

const SUPPORT = 'help@acme.test';
const SENDERS = ['gus@example.com', 'hal@example.com', 'ivy@example.com'];

const mail = (from: string, id: string, body: string) =>
  [`From: ${from}`, `To: ${SUPPORT}`, `Subject: Crash ${id}`, `Message-ID: <${id}@example.com>`, '', body].join('\n');

/**
 * The app SIGKILLed while it takes the mailbox (docs/email.md, "Faults"): a mail is kept on disk and
 * queued before it is marked or moved, so what the kill cut short is fetched again and recognised by
 * its Message-ID; nothing is lost, nothing doubled, each sender's mails in order in their ticket.
 */
describe('The e-mail channel when the app is killed mid-fetch (Dovecot)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-mail-crash-'));
  const apps = appProcesses({
    PORT: '0',
    DATA_DIR: dataDir,
    REDIS_URL: '',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
  });
  let dovecot: Dovecot;

  beforeAll(async () => {
    dovecot = await startDovecot();
  });
  afterAll(async () => {
    apps.killAll();
    await dovecot.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the app is SIGKILLed while mails are being taken and started again, then every mail arrives once and in its order', async () => {
    let app = await apps.start();
    let admin = await login(app.url, ADMIN.email, ADMIN.password);
    expect((await call(app.url, 'POST', '/api/categories', admin, { name: 'General' })).status).toBe(201);
    const expected: string[] = [];
    const senderOf = new Map<string, string>();
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const text = `mail crash ${expected.length + 1}`;
        const sender = SENDERS[expected.length % SENDERS.length]!;
        expected.push(text);
        senderOf.set(text, sender);
        await dovecot.append(mail(sender, `crash-${expected.length}`, text));
      }
    };
    await send(30);
    const settings = await call(app.url, 'PUT', '/api/settings', admin, {
      supportEmail: SUPPORT,
      ...mailboxSettings(dovecot),
      mailboxAfterFetch: 'move',
      mailboxMoveTo: 'Done',
    });
    expect(settings.status).toBe(200);
    // Killed as soon as the first mail is moved: the others are being fetched, queued or not yet read.
    await eventually(async () => (await dovecot.list('Done').catch(() => [])).length > 0, { timeoutMs: 30_000, describe: 'a first mail moved' });
    app.child.kill('SIGKILL');
    const movedAtKill = (await dovecot.list('Done')).length;
    const leftAtKill = (await dovecot.list()).length;
    await send(10);

    app = await apps.start();
    admin = await login(app.url, ADMIN.email, ADMIN.password);
    const get = async (route: string) => (await call(app.url, 'GET', route, admin)).body;
    const byTicket = await eventually(
      async () => {
        const tickets = await textsByTicket(get, 'mail crash ');
        return tickets.flat().length >= expected.length && (await dovecot.list()).length === 0 ? tickets : null;
      },
      { timeoutMs: 60_000, describe: 'every mail taken' },
    );
    // The queue's jobs finish after the move: a doubled mail would show up a moment later.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const figures = mailTally(expected, senderOf, await textsByTicket(get, 'mail crash '));
    report('the app SIGKILLed mid-fetch and started again', { ...figures, movedAtKill, leftAtKill });
    expect(byTicket).toHaveLength(SENDERS.length);
    expect(figures).toMatchObject({ delivered: expected.length, lost: 0, duplicated: 0, reordered: 0 });
    expect(await dovecot.list('Done')).toHaveLength(expected.length);
    await apps.stop(app.child);
  }, 180_000);
});
