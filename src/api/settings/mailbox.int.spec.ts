import { type Dovecot, mailboxSettings, startDovecot } from '../../../test/support/dovecot';
import { type TestServer, startTestServer } from '../../../test/support/server';

/** The support mailbox in System Settings (docs/email.md), against a real Dovecot. */
describe('System settings: the support mailbox', () => {
  let dovecot: Dovecot;
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    dovecot = await startDovecot();
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(async () => {
    await server.stop();
    await dovecot.close();
  });

  const mailbox = () => ({ ...mailboxSettings(dovecot), mailboxFolder: 'INBOX' });
  const put = (body: unknown) => server.request('PUT', '/api/settings', { token: admin, body });
  const test = (body: unknown) => server.request('POST', '/api/settings/mailbox/test', { token: admin, body });

  it('when the mailbox is saved, then the password is never answered again and the mask sent back keeps it', async () => {
    const saved = await put({ ...mailbox(), mailboxAfterFetch: 'move', mailboxMoveTo: 'Done', mailboxUnknownSenders: 'refuse' });
    expect(saved.status).toBe(200);
    expect(saved.body.settings).toMatchObject({ mailboxHost: dovecot.host, mailboxPort: dovecot.port, mailboxPassword: '********', mailboxAfterFetch: 'move' });
    expect(JSON.stringify(saved.body)).not.toContain(dovecot.password);
    expect(JSON.stringify((await server.request('GET', '/api/settings', { token: admin })).body)).not.toContain(dovecot.password);
    await put({ ...saved.body.settings, mailboxFolder: 'INBOX' });
    // The stored password still signs in: the mask kept it.
    expect(await test({})).toEqual({ status: 200, body: { success: true, folder: 'INBOX', messages: 0, idle: true } });
    const history = await server.deps.events.readStream('settings-system');
    expect(history.find((event) => 'mailboxHost' in (event.data.changes as object))?.metadata.actor?.role).toBe('admin');
  });

  it('when the connection is tested, then a wrong password, a stopped server and a missing host are each said plainly', async () => {
    expect((await test({ ...mailbox(), mailboxPassword: 'wrong' })).body).toMatchObject({
      success: false,
      error: expect.stringMatching(/refused the user name or password/),
    });
    expect((await test({ ...mailbox(), mailboxFolder: 'Nowhere' })).body).toMatchObject({ success: false });
    await dovecot.stop();
    try {
      expect((await test(mailbox())).body).toEqual({ success: false, error: 'the server refused the connection (is the host and port right?)' });
    } finally {
      await dovecot.start();
    }
    expect(await test({ mailboxHost: '' })).toMatchObject({ status: 400, body: { error: 'Please enter the mailbox host first.' } });
    expect(await test({ mailboxPort: 0 })).toMatchObject({ status: 400, body: { error: 'Mailbox port must be between 1 and 65535' } });
  });

  it('when bad mailbox values are saved, then 400 names the field', async () => {
    expect(await put({ mailboxAfterFetch: 'delete' })).toMatchObject({ status: 400, body: { error: 'After fetching must be seen or move' } });
    expect(await put({ mailboxHost: 'imap example.com' })).toMatchObject({ status: 400, body: { error: 'Mailbox host must be a host name or an IP address' } });
  });
});
