import { renderBotMessage } from './botSettings';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';

describe('Bot message templates', () => {
  it('when every variable has a value, then each is filled in, as often as it is used', () => {
    expect(
      renderBotMessage('Ticket #{ticketId} ({category}) is {status}. #{ticketId} is with {agentName}.\n{message}', {
        ticketId: 1001,
        category: 'Billing',
        status: 'open',
        agentName: 'Bob Tester',
        message: 'Hi\nthere',
      }),
    ).toBe('Ticket #1001 (Billing) is open. #1001 is with Bob Tester.\nHi\nthere');
  });

  it('when a variable has no value, then its sentence is left out, never shown with a hole or braces', () => {
    const template = 'Welcome to support! Your ticket #{ticketId} is handled by {agentName}. Send /help for more.';
    expect(renderBotMessage(template, { ticketId: 1001, agentName: '' })).toBe('Welcome to support! Send /help for more.');
    expect(renderBotMessage(template, {})).toBe('Welcome to support! Send /help for more.');
    expect(renderBotMessage(template, { ticketId: 7, agentName: 'Ann' })).toBe('Welcome to support! Your ticket #7 is handled by Ann. Send /help for more.');
  });

  it('when a whole line depends on a missing value, then the line goes and the others stay', () => {
    expect(renderBotMessage('Hello!\nOpen ticket: #{ticketId}\n\nUse /ticket.', { ticketId: null })).toBe('Hello!\n\nUse /ticket.');
  });

  it('when nothing but variables without values is left, then they are dropped and no braces remain', () => {
    expect(renderBotMessage('{agentName}', {})).toBe('');
    expect(renderBotMessage('Status {status} for #{ticketId}', { status: 'open' })).toBe('Status open for');
  });

  it('when the defaults are rendered for a notice, then they read as before', () => {
    expect(renderBotMessage(DEFAULT_BOT_MESSAGES.agentAssignedMessage, { agentName: 'Bob Tester', ticketId: 1001 })).toBe(
      'Bob Tester is now handling your ticket #1001.',
    );
    expect(renderBotMessage(DEFAULT_BOT_MESSAGES.newMessageNotification, { ticketId: 1001, agentName: 'Bob Tester', message: 'We are on it.' })).toBe(
      'New reply on ticket #1001 from Bob Tester:\nWe are on it.',
    );
  });
});
