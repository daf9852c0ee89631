import { ImapFlow } from 'imapflow';
import { type Dovecot, startDovecot } from './dovecot';

const MAIL = 'From: Ann <ann@example.com>\nTo: support@desk.test\nSubject: Hello\nMessage-ID: <hello@example.com>\n\nHi there\n';

describe('The test harness: a private Dovecot', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot();
  });
  afterAll(() => dovecot.close());

  it('when a mail is appended, then its user reads it over IMAP with the password', async () => {
    const uid = await dovecot.append(MAIL);
    expect(await dovecot.list()).toEqual([{ uid, flags: [] }]);
  });

  it('when stopped, then connections are refused; when started again, then the mail is still there', async () => {
    await dovecot.stop();
    const imap = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
    await expect(imap.connect()).rejects.toThrow(/ECONNREFUSED/);
    await dovecot.start();
    expect(await dovecot.list()).toHaveLength(1);
  });
});
