import { simpleParser } from 'mailparser';
import { addCategory, addMember } from '../../../test/support/desk';
import { type Dovecot, inboundMail, mailboxSettings, startDovecot } from '../../../test/support/dovecot';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startSmtpSink } from '../../../test/support/smtpSink';
import { type InboundMailTaken, loadInboundMail } from '../../app/email/records';

const SUPPORT = 'help@acme.test';

const mail = (parts: Parameters<typeof inboundMail>[1]) => inboundMail(SUPPORT, parts);

const withAttachment = (from: string, id: string, subject: string, text: string, file: { name: string; content: string }) =>
  mail({
    from,
    id,
    subject,
    headers: ['Content-Type: multipart/mixed; boundary="b1"'],
    body: [
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      text,
      '--b1',
      `Content-Type: text/plain; name="${file.name}"`,
      `Content-Disposition: attachment; filename="${file.name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from(file.content).toString('base64'),
      '--b1--',
    ].join('\n'),
  });

describe('The e-mail channel: the support mailbox read over IMAP (Dovecot)', () => {
  let dovecot: Dovecot;
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    dovecot = await startDovecot();
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com/', DELIVERY_BACKOFF_CAP_MS: '1000' } });
    admin = await server.login();
    await addCategory(server, admin, { name: 'General' });
    const saved = await server.request('PUT', '/api/settings', {
      token: admin,
      body: {
        systemName: 'Acme Help',
        supportEmail: SUPPORT,
        ...mailboxSettings(dovecot),
      },
    });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await sink.close();
    await dovecot.close();
  });

  const taken = (key: string) => eventually(() => loadInboundMail(server.deps, key), { timeoutMs: 20_000, describe: `mail ${key} taken` });
  const ticketOf = async (record: InboundMailTaken) => (await server.request('GET', `/api/tickets/${record.ticketId}`, { token: admin })).body;

  it('when a new sender writes with an attachment, then a customer is made, a ticket opens with the file, and the mail is marked seen', async () => {
    const uid = await dovecot.append(
      withAttachment('Ann Lee <ann@example.com>', 'first@example.com', 'Printer on fire', 'The printer is on fire.\n\nAnn', {
        name: 'log.txt',
        content: 'smoke detected\n',
      }),
    );
    const record = await taken('<first@example.com>');
    expect(record).toMatchObject({ outcome: 'opened', from: 'ann@example.com', customerCreated: true, subject: 'Printer on fire' });
    const { ticket, messages } = await ticketOf(record);
    expect(ticket).toMatchObject({ title: 'Printer on fire', platform: 'email', customer: { firstName: 'Ann', lastName: 'Lee' } });
    expect(ticket.description).toContain('The printer is on fire.');
    expect(messages.flatMap((message: { attachments: Array<{ originalName: string }> }) => message.attachments.map((file) => file.originalName))).toEqual([
      'log.txt',
    ]);
    await eventually(async () => (await dovecot.list()).find((entry) => entry.uid === uid)?.flags.includes('\\Seen'));
    const users = (await server.request('GET', '/api/users?q=ann@example.com', { token: admin })).body.users;
    expect(users.filter((user: { email: string }) => user.email === 'ann@example.com')).toHaveLength(1);
  });

  it('when the customer replies quoting the last mail, then the reply lands in the same ticket with the quote trimmed', async () => {
    const first = await taken('<first@example.com>');
    await dovecot.append(
      mail({
        from: 'Ann Lee <ann@example.com>',
        id: 'second@example.com',
        subject: 'Re: Printer on fire',
        headers: ['In-Reply-To: <first@example.com>', 'References: <first@example.com>'],
        body: 'It is out now, thanks.\n\nOn Sat, 28 Nov 2026 at 12:00, Ann Lee <ann@example.com> wrote:\n> The printer is on fire.\n> Ann\n',
      }),
    );
    const record = await taken('<second@example.com>');
    expect(record).toMatchObject({ outcome: 'posted', ticketId: first.ticketId });
    const { messages } = await ticketOf(record);
    expect(messages.at(-1)).toMatchObject({ content: 'It is out now, thanks.', platform: 'email' });
  });

  it("when an agent answers, then the reply leaves in the customer's thread with its file, a note never does, and the customer's answer to it comes back trimmed", async () => {
    const first = await taken('<first@example.com>');
    const agent = await addMember(server, admin, 'agent', 'Dan');
    const form = new FormData();
    form.append('content', 'Please send a photo.');
    form.append('attachments', new Blob(['step 1: unplug\n'], { type: 'text/plain' }), 'steps.txt');
    const posted = await fetch(`${server.url}/api/tickets/${first.ticketId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}` },
      body: form,
    });
    expect(posted.status).toBe(201);
    await server.request('POST', `/api/tickets/${first.ticketId}/messages`, {
      token: agent.token,
      body: { content: 'Note: customer is upset', isInternal: true },
    });
    const reply = await eventually(() => sink.mailsTo('ann@example.com').find((sent) => /^Subject: Re: /m.test(sent.raw)));
    const sent = await simpleParser(reply.raw);
    const messageId = sent.messageId!;
    expect(messageId).toMatch(new RegExp(`^<reply\\..+\\.${first.ticketId}@acme\\.test>$`));
    expect(sent.inReplyTo).toBe('<second@example.com>');
    expect(sent.references).toEqual(['<first@example.com>', '<second@example.com>']);
    expect(sent.replyTo?.text).toBe('help@acme.test');
    expect(sent.subject).toMatch(/^Re: Printer on fire \[#\d+\]$/);
    expect(sent.text).toContain('Please send a photo.');
    expect(sent.attachments.map((file) => [file.filename, file.content.toString()])).toEqual([['steps.txt', 'step 1: unplug\n']]);
    expect(sink.received.some((sent) => sent.raw.includes('customer is upset'))).toBe(false);

    await dovecot.append(
      mail({
        from: 'Ann Lee <ann@example.com>',
        id: 'third@example.com',
        subject: 'Re: Printer on fire',
        headers: [`In-Reply-To: ${messageId}`, `References: <first@example.com> ${messageId}`],
        body: 'Photo is coming.\n\n-- \nAnn Lee\nAcme Corp\n\nOn Sat, 28 Nov 2026, Acme Help <help@acme.test> wrote:\n> Please send a photo.\n',
      }),
    );
    const record = await taken('<third@example.com>');
    expect(record).toMatchObject({ outcome: 'posted', ticketId: first.ticketId });
    expect((await ticketOf(record)).messages.at(-1)).toMatchObject({ content: 'Photo is coming.', platform: 'email' });
  });

  it('when an auto-reply, a bounce or list mail arrives, then nothing opens and no mail answers it', async () => {
    const before = (await server.request('GET', '/api/tickets', { token: admin })).body.pagination.total;
    const sent = sink.received.length;
    await dovecot.append(
      mail({ from: 'bob@example.com', id: 'away@example.com', subject: 'Out of office', body: 'Away.', headers: ['Auto-Submitted: auto-replied'] }),
    );
    await dovecot.append(
      mail({
        from: 'MAILER-DAEMON@mx.example.com',
        id: 'bounce@mx.example.com',
        subject: 'Undelivered Mail Returned to Sender',
        body: 'This is the mail system.',
        headers: ['Return-Path: <>'],
      }),
    );
    await dovecot.append(mail({ from: 'news@example.com', id: 'news@example.com', subject: 'Weekly news', body: 'News.', headers: ['Precedence: bulk'] }));
    await dovecot.append(mail({ from: `Desk <${SUPPORT}>`, id: 'own@acme.test', subject: 'Our own', body: 'Looped.' }));
    expect((await taken('<away@example.com>')).reason).toBe('automatic mail (Auto-Submitted: auto-replied)');
    expect((await taken('<bounce@mx.example.com>')).outcome).toBe('ignored');
    expect((await taken('<news@example.com>')).reason).toBe('automatic mail (Precedence: bulk)');
    expect((await taken('<own@acme.test>')).reason).toBe('sent from the support address');
    expect((await server.request('GET', '/api/tickets', { token: admin })).body.pagination.total).toBe(before);
    expect(sink.received.length).toBe(sent);
  });

  it('when the same mail arrives twice (re-sent, same Message-ID), then it makes one message', async () => {
    const known = await addMember(server, admin, 'customer', 'Cleo');
    const again = mail({ from: known.email, id: 'twice@example.com', subject: 'Twice', body: 'Only once please.' });
    await dovecot.append(again);
    const record = await taken('<twice@example.com>');
    await dovecot.append(again);
    await eventually(async () => (await dovecot.list()).every((entry) => entry.flags.includes('\\Seen')));
    const { messages, ticket } = await ticketOf(record);
    expect(ticket.description).toBe('Only once please.');
    expect(messages).toHaveLength(0);
    expect(record.customerCreated).toBe(false);
  });

  it('when a mail carries a DKIM signature that does not verify, then its record carries a warning for staff', async () => {
    const signature = [
      'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=s1;',
      ' h=Message-ID:Subject:To:From; bh=Ba3gj8+xBPQLJTahTfzW6RbWQ/XPgESxkCi2B66PSQg=;',
      ' b=TcqKGahcuVb6g52RPwwANnH1ZcRju5OQiS1HSU0JqnvP+VIuffiQNPEVpvV3YK7u4SEs3ai8I',
    ];
    await dovecot.append(mail({ from: 'eve@example.com', id: 'spoof@example.com', subject: 'Pay me', body: 'Changed on the way.', headers: signature }));
    const record = await taken('<spoof@example.com>');
    expect(record.auth?.warning).toMatch(/^The sender could not be verified: its DKIM signature does not verify/);
    // Staff see the sender, the warning and the whole original; the customer does not.
    const shown = await server.request('GET', `/api/tickets/${record.ticketId}/mail`, { token: admin });
    expect(shown.body.mails).toEqual([
      expect.objectContaining({
        key: '<spoof@example.com>',
        from: 'eve@example.com',
        warning: record.auth?.warning,
        original: expect.stringContaining('DKIM-Signature: v=1;'),
      }),
    ]);
    const eve = await server.signIn('eve@example.com', 'x').catch(() => null);
    expect(eve).toBeNull();
    const customer = await addMember(server, admin, 'customer', 'Fay');
    expect((await server.request('GET', `/api/tickets/${record.ticketId}/mail`, { token: customer.token })).status).toBe(403);
  });
});
