import { mkdtempSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addCategory, addMember } from '../../../test/support/desk';
import { type Dovecot, inboundMail, mailboxSettings, startDovecot } from '../../../test/support/dovecot';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startSmtpSink, subjectOf } from '../../../test/support/smtpSink';
import { loadInboundMail } from '../../app/email/records';
import { userStream } from '../../domain/user/user';

const SUPPORT = 'help@acme.test';
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

const mail = (parts: Parameters<typeof inboundMail>[1]) => inboundMail(SUPPORT, parts);

/** A clock the test moves forward: links expire and flood windows pass without waiting. */
const movableClock = () => {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
};

const taken = (server: TestServer, key: string, timeoutMs = 20_000) =>
  eventually(() => loadInboundMail(server.deps, key), { timeoutMs, describe: `mail ${key} taken` });

describe('The e-mail channel: customers made by mail (Dovecot, SMTP sink)', () => {
  let dovecot: Dovecot;
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;
  const clock = movableClock();

  beforeAll(async () => {
    dovecot = await startDovecot();
    sink = await startSmtpSink();
    server = await startTestServer({
      clock: clock.now,
      env: { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com/', DELIVERY_BACKOFF_CAP_MS: '1000' },
    });
    admin = await server.login();
    await addCategory(server, admin, { name: 'General' });
    const saved = await server.request('PUT', '/api/settings', {
      token: admin,
      body: { systemName: 'Acme Help', supportEmail: SUPPORT, ...mailboxSettings(dovecot) },
    });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await sink.close();
    await dovecot.close();
  });

  const linkMails = (to: string) => sink.mailsTo(to).filter((sent) => subjectOf(sent.raw) === '[Acme Help] Set your password');
  const tokenOf = async (raw: string) => /https:\/\/desk\.example\.com\/set-password#token=([A-Za-z0-9._-]+)/.exec((await simpleParser(raw)).text ?? '')?.[1];
  const setPassword = (token: string, password: string) => server.request('POST', '/api/auth/set-password', { body: { token, password } });

  it('when a new sender writes, then the customer is marked created by e-mail, mailed a link that sets a password once, and signs in to see the ticket', async () => {
    await dovecot.append(mail({ from: 'Nia Park <nia@example.com>', id: 'nia-1@example.com', subject: 'Where is my order?', body: 'Order 42 is late.' }));
    const record = await taken(server, '<nia-1@example.com>');
    expect(record).toMatchObject({ outcome: 'opened', customerCreated: true });

    const listed = (await server.request('GET', '/api/users?q=nia@example.com', { token: admin })).body.users;
    expect(listed).toEqual([expect.objectContaining({ email: 'nia@example.com', role: 'customer', createdByEmail: true })]);
    const nia = listed[0] as { _id: string };
    expect((await server.request('GET', `/api/users/${nia._id}`, { token: admin })).body.user.createdByEmail).toBe(true);

    const sent = await eventually(() => linkMails('nia@example.com')[0], { timeoutMs: 15_000, describe: 'the password link mail' });
    const token = await tokenOf(sent.raw);
    expect(token).toBeDefined();
    // The log holds the link's digest and its actor, never the token.
    const events = await server.deps.events.readStream(userStream(nia._id));
    const issued = events.find((event) => event.type === 'PasswordLinkIssued')!;
    expect(issued.data).toMatchObject({ reason: 'created-by-email', tokenHash: expect.any(String) });
    expect(issued.metadata.actor).toMatchObject({ role: 'system', platform: 'email' });
    expect(JSON.stringify(events)).not.toContain(token!.split('.')[2]);

    expect(await setPassword(token!, 'abc')).toMatchObject({
      status: 400,
      body: { details: [{ path: 'password', message: 'Password must be at least 6 characters long' }] },
    });
    expect((await setPassword(token!, 'nia-secret-1')).status).toBe(204);
    const used = (await server.deps.events.readStream(userStream(nia._id))).find((event) => event.type === 'PasswordLinkUsed')!;
    expect(used.metadata.actor).toMatchObject({ userId: nia._id, role: 'customer' });

    const signedIn = await server.signIn('nia@example.com', 'nia-secret-1');
    const tickets = (await server.request('GET', '/api/tickets', { token: signedIn.accessToken })).body.tickets as Array<{ _id: string; title: string }>;
    expect(tickets.map((ticket) => ticket._id)).toEqual([record.ticketId]);

    expect(await setPassword(token!, 'another-one-2')).toMatchObject({
      status: 410,
      body: { code: 'LINK_USED', error: 'This password link has already been used' },
    });
    expect(await setPassword(`${nia._id}.made-up.not-a-mac`, 'another-one-2')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await setPassword('nobody.made-up.not-a-mac', 'another-one-2')).toMatchObject({ status: 404 });
  }, 60_000);

  it('when an admin sends a password link, then it expires after 7 days, and a few an hour are all a user gets', async () => {
    const nia = (await server.request('GET', '/api/users?q=nia@example.com', { token: admin })).body.users[0] as { _id: string };
    const before = linkMails('nia@example.com').length;
    const asked = await server.request('POST', `/api/users/${nia._id}/password-link`, { token: admin });
    expect(asked).toMatchObject({ status: 201, body: { sentTo: 'nia@example.com' } });
    const sent = await eventually(() => linkMails('nia@example.com')[before], { timeoutMs: 15_000, describe: "the admin's password link" });
    const issued = (await server.deps.events.readStream(userStream(nia._id))).filter((event) => event.type === 'PasswordLinkIssued').at(-1)!;
    expect(issued.data.reason).toBe('admin');
    expect(issued.metadata.actor).toMatchObject({ role: 'admin', platform: 'web' });

    clock.advance(7 * DAY_MS + 1000);
    expect(await setPassword((await tokenOf(sent.raw))!, 'too-late-123')).toMatchObject({ status: 410, body: { code: 'LINK_EXPIRED' } });
    await expect(server.signIn('nia@example.com', 'too-late-123')).rejects.toThrow(/401/);

    for (let link = 0; link < 3; link += 1) expect((await server.request('POST', `/api/users/${nia._id}/password-link`, { token: admin })).status).toBe(201);
    const refused = await server.request('POST', `/api/users/${nia._id}/password-link`, { token: admin });
    expect(refused).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', error: expect.stringMatching(/^Too many password links for this account/) } });
    // The newest link replaces the older ones.
    const latest = await eventually(() => linkMails('nia@example.com')[before + 3], { timeoutMs: 15_000, describe: 'the last link' });
    const older = linkMails('nia@example.com')[before + 1]!;
    expect(await setPassword((await tokenOf(older.raw))!, 'replaced-123')).toMatchObject({ status: 410, body: { code: 'LINK_REPLACED' } });
    expect((await setPassword((await tokenOf(latest.raw))!, 'latest-one-123')).status).toBe(204);
    expect((await server.signIn('nia@example.com', 'latest-one-123')).user.role).toBe('customer');
  }, 60_000);

  it('when "Category for new mail" is set, then new mail opens tickets there; an unknown or archived category is refused', async () => {
    const billing = await addCategory(server, admin, { name: 'Billing' });
    const archived = await addCategory(server, admin, { name: 'Old stuff' });
    expect((await server.request('PUT', `/api/categories/${archived}`, { token: admin, body: { isActive: false } })).status).toBe(200);

    expect(await server.request('PUT', '/api/settings', { token: admin, body: { mailboxCategory: 'no-such-category' } })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'mailboxCategory', message: 'Category for new mail: no such category' }] },
    });
    expect(await server.request('PUT', '/api/settings', { token: admin, body: { mailboxCategory: archived } })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'mailboxCategory', message: 'Category for new mail: "Old stuff" is archived; choose an active category' }] },
    });
    const saved = await server.request('PUT', '/api/settings', { token: admin, body: { mailboxCategory: billing } });
    expect(saved.status).toBe(200);
    expect((await server.request('GET', '/api/settings', { token: admin })).body.settings.mailboxCategory).toBe(billing);

    const known = await addMember(server, admin, 'customer', 'Ola');
    await dovecot.append(mail({ from: known.email, id: 'ola-1@example.com', subject: 'Invoice twice', body: 'I was charged twice.' }));
    const record = await taken(server, '<ola-1@example.com>');
    const { ticket } = (await server.request('GET', `/api/tickets/${record.ticketId}`, { token: admin })).body;
    expect(ticket.category).toMatchObject({ _id: billing, name: 'Billing' });
  }, 60_000);
});

describe('The e-mail channel: the flood limit across a restart', () => {
  it('when a sender reaches the hourly limit and the app restarts, then their next mail is still held back, and taken once the hour has passed', async () => {
    const dovecot = await startDovecot();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-flood-'));
    const env = { EMAIL_SENDER_HOURLY_LIMIT: '2', DELIVERY_BACKOFF_CAP_MS: '1000' };
    let server = await startTestServer({ dataDir, env });
    try {
      const admin = await server.login();
      await addCategory(server, admin, { name: 'General' });
      await server.request('PUT', '/api/settings', { token: admin, body: { supportEmail: SUPPORT, ...mailboxSettings(dovecot) } });
      for (const n of [1, 2]) await dovecot.append(mail({ from: 'flo@example.com', id: `flo-${n}@example.com`, subject: `Mail ${n}`, body: `Number ${n}.` }));
      await taken(server, '<flo-1@example.com>');
      await taken(server, '<flo-2@example.com>');
      await server.stop({ keepData: true });

      const clock = movableClock();
      server = await startTestServer({ dataDir, env, clock: clock.now });
      await dovecot.append(mail({ from: 'flo@example.com', id: 'flo-3@example.com', subject: 'Mail 3', body: 'Number 3.' }));
      // Fetched (seen) and queued, but held: its job waits and tries again.
      await eventually(async () => (await dovecot.list()).every((entry) => entry.flags.includes('\\Seen')), { timeoutMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 4000));
      expect(await loadInboundMail(server.deps, '<flo-3@example.com>')).toBeNull();

      clock.advance(HOUR_MS);
      expect(await taken(server, '<flo-3@example.com>')).toMatchObject({ outcome: 'posted' });
    } finally {
      await server.stop();
      await dovecot.close();
    }
  }, 90_000);
});
