/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_SYSTEM_SETTINGS } from '#contract/settings';
import { AGENT } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import type { SystemSettings } from './api';
import { SettingsForm, type SettingsActions, SettingsPage } from './SettingsPage';

const SETTINGS: SystemSettings = { ...DEFAULT_SYSTEM_SETTINGS, telegramBotToken: '', updatedAt: null, updatedBy: null };

function renderForm(settings: Partial<SystemSettings> = {}, actions: Partial<SettingsActions> = {}) {
  const save = jest.fn<ReturnType<SettingsActions['save']>, Parameters<SettingsActions['save']>>(async (input) => ({
    saved: { ...SETTINGS, ...input, telegramBotToken: input.telegramBotToken ? '123456:********WXYZ' : '' },
  }));
  const test = jest.fn<ReturnType<SettingsActions['test']>, Parameters<SettingsActions['test']>>(async () => ({
    kind: 'success',
    text: 'Telegram bot is working correctly!',
  }));
  const testMailbox = jest.fn<ReturnType<SettingsActions['testMailbox']>, Parameters<SettingsActions['testMailbox']>>(async () => ({
    kind: 'success',
    text: 'Mailbox connection works: INBOX holds 0 message(s).',
  }));
  renderWeb(<SettingsForm settings={{ ...SETTINGS, ...settings }} actions={{ save, test, testMailbox, ...actions }} />);
  return { save, test, testMailbox, user: userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) }) };
}

async function replace(user: ReturnType<typeof userEvent.setup>, label: RegExp | string, value: string) {
  await user.clear(screen.getByLabelText(label));
  if (value) await user.type(screen.getByLabelText(label), value);
}

describe('System settings form', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('when opened, then the four groups show with the stored values in MB and minutes', () => {
    renderForm();
    for (const group of ['Telegram Bot Integration', 'System Configuration', 'File Upload Settings', 'Rate Limiting'])
      expect(screen.getByRole('heading', { name: group })).toBeInTheDocument();
    expect(screen.getByLabelText('Max File Size (MB)')).toHaveValue(10);
    expect(screen.getByLabelText('Max Files per Message')).toHaveValue(5);
    expect(screen.getByLabelText('Window (minutes)')).toHaveValue(15);
    expect(screen.getByLabelText('Max Requests per Window')).toHaveValue(100);
    expect(screen.getByLabelText('System Name')).toHaveValue('Customer Support System');
    expect(screen.getByRole('link', { name: /Manage Telegram Whitelist/ })).toHaveAttribute('href', '/telegram-whitelist');
  });

  it('when values are outside their bounds, then each bound is named and nothing is saved', async () => {
    const { user, save } = renderForm();
    await replace(user, 'Max File Size (MB)', '101');
    await replace(user, 'Max Files per Message', '21');
    await replace(user, 'Window (minutes)', '61');
    await replace(user, 'Max Requests per Window', '0');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(screen.getByText('Max file size must be between 1 and 100 MB')).toBeInTheDocument();
    expect(screen.getByText('Max files must be between 1 and 20')).toBeInTheDocument();
    expect(screen.getByText('Rate limit window must be between 1 and 60 minutes')).toBeInTheDocument();
    expect(screen.getByText('Rate limit requests must be between 1 and 1000')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to save settings');
    expect(save).not.toHaveBeenCalled();
  });

  it('when a number box is emptied, then it must be a number', async () => {
    const { user, save } = renderForm();
    await replace(user, 'Max Files per Message', '');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(screen.getByText('Max files must be a number')).toBeInTheDocument();
    expect(save).not.toHaveBeenCalled();
  });

  it('when valid values are saved, then megabytes and minutes are sent as bytes and milliseconds and the message vanishes after 5 s', async () => {
    const { user, save } = renderForm();
    await replace(user, 'Max File Size (MB)', '25');
    await replace(user, 'Window (minutes)', '30');
    await replace(user, 'CORS Origins', 'https://a.example.com, https://b.example.com');
    await user.click(screen.getByRole('switch', { name: /Maintenance Mode/ }));
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(save).toHaveBeenCalledWith(
      expect.objectContaining({
        maxFileSize: 25 * 1024 * 1024,
        rateLimitWindowMs: 30 * 60 * 1000,
        maintenanceMode: true,
        corsOrigins: ['https://a.example.com', 'https://b.example.com'],
      }),
    );
    expect(await screen.findByText('Settings saved successfully!')).toBeInTheDocument();
    act(() => jest.advanceTimersByTime(5000));
    expect(screen.queryByText('Settings saved successfully!')).not.toBeInTheDocument();
  });

  it('when a new token is saved, then the box shows it masked as stored', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Bot Token'), '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('Settings saved successfully!')).toBeInTheDocument();
    expect(screen.getByLabelText('Bot Token')).toHaveValue('123456:********WXYZ');
  });

  it('when the server refuses, then its message and the field at fault show', async () => {
    const { user } = renderForm(
      {},
      { save: async () => ({ error: 'Webhook URL must start with https://', fields: { telegramWebhookUrl: 'Webhook URL must start with https://' } }) },
    );
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Webhook URL must start with https://');
    expect(screen.getAllByText('Webhook URL must start with https://')).toHaveLength(2);
  });

  it('when the bot is tested without a token, then the token is asked for first', async () => {
    const { user, test } = renderForm();
    await user.click(screen.getByRole('button', { name: 'Test Bot' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a Telegram bot token first.');
    expect(test).not.toHaveBeenCalled();
    act(() => jest.advanceTimersByTime(5000));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when a token is typed and tested, then the typed token is tried and the answer shown', async () => {
    const test = jest.fn(async () => ({ kind: 'error' as const, text: 'Telegram bot test failed: Unauthorized' }));
    const { user } = renderForm({}, { test });
    await user.type(screen.getByLabelText('Bot Token'), '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    await user.click(screen.getByRole('button', { name: 'Test Bot' }));
    expect(test).toHaveBeenCalledWith('123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    expect(await screen.findByRole('alert')).toHaveTextContent('Telegram bot test failed: Unauthorized');
  });
});

describe('Administrator-only screens', () => {
  it('when an agent opens System Settings, then Access Denied says why', () => {
    renderWeb(<SettingsPage />, { session: signedInAs(AGENT) });
    expect(screen.getByRole('alert')).toHaveTextContent('Access Denied: You must be an administrator to access system settings.');
  });
});
