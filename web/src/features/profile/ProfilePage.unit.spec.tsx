/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TICKET } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { continuesNotice, newTicketNotice, slaNotice, statusNotice } from './desktopNotifications';
import { NotificationSettings } from './ProfilePage';

const OFF = { newTickets: false, ticketUpdates: false, browserNotifications: false, mentionEmails: false };

/** jsdom has no Notification API; the browser's permission answer is what these tests choose. */
function browserPermission(permission: NotificationPermission, answer: NotificationPermission = permission) {
  Object.defineProperty(window, 'Notification', {
    configurable: true,
    value: Object.assign(jest.fn(), { permission, requestPermission: jest.fn(async () => answer) }),
  });
}

describe('Notification settings', () => {
  afterEach(() => Reflect.deleteProperty(window, 'Notification'));

  it('when browser notifications are enabled without permission, then the message of docs/product.md section 5 shows and nothing is saved', async () => {
    browserPermission('default', 'denied');
    const onSave = jest.fn(async () => true);
    renderWeb(<NotificationSettings preferences={OFF} onSave={onSave} />);
    await userEvent.setup().click(screen.getByRole('switch', { name: /Browser notifications/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please enable browser notifications to use this feature.');
    expect(onSave).not.toHaveBeenCalled();
  });

  it('when permission is granted, then the choice is saved', async () => {
    browserPermission('default', 'granted');
    const onSave = jest.fn(async () => true);
    renderWeb(<NotificationSettings preferences={OFF} onSave={onSave} />);
    await userEvent.setup().click(screen.getByRole('switch', { name: /Browser notifications/ }));
    expect(onSave).toHaveBeenCalledWith({ ...OFF, browserNotifications: true });
  });

  it('when saving fails, then the message of docs/product.md section 5 shows', async () => {
    renderWeb(<NotificationSettings preferences={OFF} onSave={jest.fn(async () => false)} />);
    await userEvent.setup().click(screen.getByRole('switch', { name: /New tickets/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to save notification settings. Please try again.');
  });
});

describe('Desktop notices', () => {
  it('when a ticket is new or changes status, then the notice uses the wordings of docs/product.md section 6', () => {
    expect(newTicketNotice(TICKET)).toEqual({ title: 'New ticket #1001', body: 'Invoice shows the wrong amount\nfrom Cara Customer · high priority' });
    expect(statusNotice(TICKET, 'in_progress').body).toBe('"Invoice shows the wrong amount" is now in progress');
    expect(statusNotice(TICKET, 'pending_customer').body).toBe('"Invoice shows the wrong amount" is now waiting for customer response');
    expect(statusNotice(TICKET, 'resolved').body).toMatch(/now resolved$/);
    expect(statusNotice(TICKET, 'closed').body).toMatch(/now closed$/);
    expect(statusNotice(TICKET, 'open', 'customer-replied').body).toBe('The customer replied: "Invoice shows the wrong amount" is now open');
  });

  it('when an SLA warning comes, then the assignee is told, or everyone while nobody is assigned (docs/sla.md)', () => {
    const warning = {
      ticketId: 't1',
      number: 1001,
      title: 'Printer jammed',
      target: 'firstResponse' as const,
      episode: 1,
      kind: 'breach' as const,
      dueAt: '2026-01-19T10:00:00.000Z',
      agentId: 'alice',
      position: 7,
    };
    expect(slaNotice(warning, 'alice')?.title).toBe('First response breached on #1001');
    expect(slaNotice(warning, 'bob')).toBeNull();
    expect(slaNotice({ ...warning, agentId: null, kind: 'warning' }, 'bob')?.title).toBe('First response due soon on #1001');
  });

  it('when a customer’s ticket continues elsewhere, then the notice names both tickets in the words Telegram and e-mail use (docs/tickets.md)', () => {
    const push = { ticket: { _id: 't1', ticketId: 1042 }, continuesIn: { _id: null, ticketId: 1043 }, position: 9 };
    expect(continuesNotice({ ...push, kind: 'merged' })).toEqual({
      title: 'Ticket #1042 merged',
      body: 'Your ticket #1042 was merged into ticket #1043, where the conversation continues.',
    });
    expect(continuesNotice({ ...push, kind: 'moved' }).body).toBe(
      'Your messages in ticket #1042 were moved to the new ticket #1043, where the conversation continues.',
    );
  });
});
