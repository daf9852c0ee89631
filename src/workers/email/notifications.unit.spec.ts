import type { TicketView } from '../../projections/tickets';
import type { UserView } from '../../projections/users';
import { emailFor, fallbackSender } from './notifications';

describe('E-mail wording', () => {
  it('when no support address is set, then the sender is a valid no-reply address', () => {
    expect(fallbackSender('https://desk.example.com/')).toBe('no-reply@desk.example.com');
    expect(fallbackSender('http://localhost:3000')).toBe('no-reply@localhost.localdomain');
    expect(fallbackSender('http://127.0.0.1:3000')).toBe('no-reply@localhost.localdomain');
    expect(fallbackSender('http://[::1]:3000')).toBe('no-reply@localhost.localdomain');
  });

  it('when a title or reply holds CR/LF, then the subject stays one line and the body keeps plain line breaks', () => {
    const ticket = { _id: 't1', ticketId: 1001, title: 'Broken\r\nBcc: someone@evil.test', category: { name: 'Billing' } } as unknown as TicketView;
    const customer = { firstName: 'Carol' } as unknown as UserView;
    const mail = emailFor(
      { notice: { kind: 'reply', content: 'Line one\r\nLine two\rLine three', senderName: 'Dan Tester', files: [] }, ticket, customer },
      'Acme Help',
      'https://desk.example.com',
    );
    expect(mail?.subject).toBe('[Acme Help] New reply on ticket #1001: Broken Bcc: someone@evil.test');
    expect(mail?.text).not.toMatch(/\r/);
    expect(mail?.text).toContain('your ticket #1001 “Broken Bcc: someone@evil.test”:\n\nLine one\nLine two\nLine three\n');
  });

  it('when the ticket was merged into another, then the mail names the ticket that continues', () => {
    const ticket = { _id: 't2', ticketId: 1002, title: 'Again', category: { name: 'Billing' } } as unknown as TicketView;
    const customer = { firstName: 'Carol' } as unknown as UserView;
    const mail = emailFor({ notice: { kind: 'merged', targetNumber: 1001 }, ticket, customer }, 'Acme Help', 'https://desk.example.com');
    expect(mail).toMatchObject({ kind: 'merged', subject: '[Acme Help] Ticket #1002 continues in #1001' });
    expect(mail?.text).toContain('Your ticket #1002 was merged into ticket #1001, where the conversation continues.');
  });
});
