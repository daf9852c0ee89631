/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../../test/render';
import { SetupChecklist } from './SetupChecklist';

const FRESH = { categories: 0, agents: 0, telegramBot: false, servicePolicies: 0, supportEmail: false, tickets: 0 };

describe('Setup checklist (issue 50)', () => {
  it('when the desk is new, then every step is to do and links to where it is done', () => {
    renderWeb(<SetupChecklist setup={FRESH} onHide={jest.fn()} />);
    expect(screen.getByRole('heading', { name: 'Set up your desk' })).toBeInTheDocument();
    expect(screen.getByText('0 of 5 done')).toBeInTheDocument();
    const steps = within(screen.getByRole('list')).getAllByRole('listitem');
    expect(steps.map((step) => step.querySelector('strong')!.textContent)).toEqual([
      'Add a category (to do)',
      'Invite your agents (to do)',
      'Set a support e-mail (to do)',
      'Connect Telegram (to do)',
      'Set service levels (to do)',
    ]);
    expect(screen.getByRole('link', { name: 'Add categories' })).toHaveAttribute('href', '/admin?tab=Categories');
    expect(screen.getByRole('link', { name: 'Add agents' })).toHaveAttribute('href', '/admin?tab=Users');
    expect(screen.getByText(/No tickets yet\. Customers open tickets/)).toHaveTextContent('DATA_DIR=./demo-data npm run demo');
  });

  it('when steps are done, then they tick with what is there and lose their link', () => {
    renderWeb(<SetupChecklist setup={{ ...FRESH, categories: 2, agents: 1, servicePolicies: 1, tickets: 3 }} onHide={jest.fn()} />);
    expect(screen.getByText('3 of 5 done')).toBeInTheDocument();
    expect(screen.getByText('2 categories')).toBeInTheDocument();
    expect(screen.getByText('1 active agent')).toBeInTheDocument();
    expect(screen.getByText('1 policy')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Add categories' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add the bot token' })).toHaveAttribute('href', '/settings');
    expect(screen.queryByText(/No tickets yet/)).not.toBeInTheDocument();
  });

  it('when the admin presses Hide, then the dashboard is told once', async () => {
    const onHide = jest.fn();
    renderWeb(<SetupChecklist setup={FRESH} onHide={onHide} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Hide' }));
    expect(onHide).toHaveBeenCalledTimes(1);
  });
});
