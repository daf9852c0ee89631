/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { renderWeb } from '../../test/render';
import type { BotCommand } from './api';
import { BotCommandForm } from './BotCommandForm';
import { BotCommandCard, BotStatusLine, botConnection } from './BotCommandsTab';
import { BotMessagesForm } from './BotMessagesForm';

const START: BotCommand = {
  _id: 'system-start',
  command: 'start',
  description: 'Start the bot',
  handler: 'start',
  response: null,
  order: 0,
  isActive: true,
  isSystem: true,
};
const HOURS: BotCommand = {
  _id: 'c1',
  command: 'hours',
  description: 'Opening hours',
  handler: 'custom',
  response: 'We are open 9-17.',
  order: 5,
  isActive: false,
  isSystem: false,
};

function renderForm(props: Partial<Parameters<typeof BotCommandForm>[0]> = {}) {
  const onSubmit = jest.fn();
  renderWeb(<BotCommandForm command={null} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} {...props} />);
  return { onSubmit, user: userEvent.setup() };
}

describe('Bot command form', () => {
  it('when a name is typed, then only lowercase letters and underscores remain', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Command Name'), '/Opening-Hours_2');
    expect(screen.getByLabelText('Command Name')).toHaveValue('openinghours_');
  });

  it('when name and description are blank, then both are required', async () => {
    const { user, onSubmit } = renderForm();
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('Command name is required')).toBeInTheDocument();
    expect(screen.getByText('Description is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when the description passes 256 characters, then its counter and the rule say so', async () => {
    const { user } = renderForm();
    await user.click(screen.getByLabelText(/^Description/));
    await user.paste('d'.repeat(257));
    expect(screen.getByText('257/256')).toHaveClass('over');
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('Description must be at most 256 characters')).toBeInTheDocument();
  });

  it('when the handler is custom, then a response is asked for, required and limited to 2000', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Command Name'), 'hours');
    await user.type(screen.getByLabelText(/^Description/), 'Opening hours');
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('A response is required for a custom command')).toBeInTheDocument();
    await user.click(screen.getByLabelText(/^Custom Response/));
    await user.paste('r'.repeat(2001));
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('Response must be at most 2000 characters')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await user.selectOptions(screen.getByLabelText('Handler'), 'help');
    expect(screen.queryByLabelText(/^Custom Response/)).not.toBeInTheDocument();
  });

  it('when the order is negative or not whole, then it is refused', async () => {
    const { user } = renderForm();
    await user.clear(screen.getByLabelText('Order'));
    await user.type(screen.getByLabelText('Order'), '-3');
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('Order must be 0 or more')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Order'));
    await user.type(screen.getByLabelText('Order'), '1.5');
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(screen.getByText('Order must be a whole number')).toBeInTheDocument();
  });

  it('when a valid custom command is submitted, then it is sent whole', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Command Name'), 'hours');
    await user.type(screen.getByLabelText(/^Description/), 'Opening hours');
    await user.type(screen.getByLabelText(/^Custom Response/), 'We are open 9-17.');
    await user.clear(screen.getByLabelText('Order'));
    await user.type(screen.getByLabelText('Order'), '7');
    await user.click(screen.getByRole('checkbox', { name: 'Active' }));
    await user.click(screen.getByRole('button', { name: 'Create Command' }));
    expect(onSubmit).toHaveBeenCalledWith({
      command: 'hours',
      description: 'Opening hours',
      handler: 'custom',
      response: 'We are open 9-17.',
      order: 7,
      isActive: false,
    });
  });

  it('when a system command is edited, then name and handler are locked and not sent', async () => {
    const { user, onSubmit } = renderForm({ command: START });
    expect(screen.getByLabelText('Command Name')).toBeDisabled();
    expect(screen.getByLabelText('Handler')).toBeDisabled();
    await user.clear(screen.getByLabelText(/^Description/));
    await user.type(screen.getByLabelText(/^Description/), 'Say hello');
    await user.click(screen.getByRole('button', { name: 'Update Command' }));
    expect(onSubmit).toHaveBeenCalledWith({ description: 'Say hello', response: null, order: 0, isActive: true });
  });
});

describe('Bot command cards and status', () => {
  it('when a command is a system command, then it cannot be deleted', () => {
    renderWeb(
      <>
        <BotCommandCard command={START} onEdit={jest.fn()} onDelete={jest.fn()} />
        <BotCommandCard command={HOURS} onEdit={jest.fn()} onDelete={jest.fn()} />
      </>,
    );
    expect(screen.queryByRole('button', { name: 'Delete command start' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete command hours' })).toBeInTheDocument();
    expect(screen.getByRole('article', { name: '/start' })).toHaveTextContent('System');
    expect(screen.getByRole('article', { name: '/hours' })).toHaveTextContent('Inactive');
  });

  it('when the status is not known, active, or anything else, then it reads unknown, connected, error', () => {
    expect(botConnection(undefined, false)).toBe('unknown');
    expect(botConnection({ status: 'active', botUsername: 'desk_bot' }, false)).toBe('connected');
    expect(botConnection({ status: 'inactive', error: 'No Telegram bot token is set' }, false)).toBe('error');
    expect(botConnection({ status: 'error', error: 'Unauthorized' }, false)).toBe('error');
    expect(botConnection(undefined, true)).toBe('error');
    renderWeb(<BotStatusLine connection="connected" status={{ status: 'active', botUsername: 'desk_bot' }} />);
    expect(screen.getByRole('status')).toHaveTextContent('Bot status: Connected as @desk_bot');
  });
});

describe('Bot messages form', () => {
  function renderMessages() {
    const onSubmit = jest.fn();
    renderWeb(<BotMessagesForm messages={DEFAULT_BOT_MESSAGES} saving={false} error={null} onSubmit={onSubmit} onReset={jest.fn()} onCancel={jest.fn()} />);
    return { onSubmit, user: userEvent.setup() };
  }

  it('when opened, then all nine texts show with their counters out of 1000', () => {
    renderMessages();
    expect(screen.getAllByRole('textbox')).toHaveLength(9);
    expect(screen.getByText(`${DEFAULT_BOT_MESSAGES.welcomeMessage.length}/1000`)).toBeInTheDocument();
    expect(screen.getByText(/Variables you can use: \{ticketId\}, \{category\}, \{status\}, \{agentName\}, \{message\}/)).toBeInTheDocument();
  });

  it('when a text is too long, empty, or uses an unknown variable, then it is refused', async () => {
    const { user, onSubmit } = renderMessages();
    await user.clear(screen.getByLabelText(/^Help message/));
    await user.clear(screen.getByLabelText(/^Cancel message/));
    await user.click(screen.getByLabelText(/^Cancel message/));
    await user.paste('c'.repeat(1001));
    await user.clear(screen.getByLabelText(/^Welcome message/));
    await user.click(screen.getByLabelText(/^Welcome message/));
    await user.paste('Hi {name}');
    await user.click(screen.getByRole('button', { name: 'Save Messages' }));
    expect(screen.getByText('Help message cannot be empty')).toBeInTheDocument();
    expect(screen.getByText('Cancel message must be at most 1000 characters')).toBeInTheDocument();
    expect(screen.getByText(/Welcome message uses an unknown variable \{name\}/)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when the texts are fine, then all of them are sent', async () => {
    const { user, onSubmit } = renderMessages();
    await user.clear(screen.getByLabelText(/^Ticket closed message/));
    await user.click(screen.getByLabelText(/^Ticket closed message/));
    await user.paste('Ticket #{ticketId} is closed.');
    await user.click(screen.getByRole('button', { name: 'Save Messages' }));
    expect(onSubmit).toHaveBeenCalledWith({ ...DEFAULT_BOT_MESSAGES, ticketClosedMessage: 'Ticket #{ticketId} is closed.' });
  });
});
