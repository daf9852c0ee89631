/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../../test/render';
import { MailList } from './MailCard';

const ORIGINAL = 'From: Eve <eve@example.com>\nSubject: Pay me\n\nChanged on the way.\n\n> quoted history';
const MAILS = [
  { key: '<a@example.com>', messageId: null, from: 'ann@example.com', subject: 'Printer on fire', warning: null, original: 'From: ann@example.com\n\nHello' },
  {
    key: '<b@example.com>',
    messageId: 'm2',
    from: 'eve@example.com',
    subject: 'Pay me',
    warning: 'The sender could not be verified: its DKIM signature does not verify (body hash did not verify).',
    original: ORIGINAL,
  },
];

describe('The e-mail card of a ticket (staff)', () => {
  it('when a ticket has mails, then each shows its sender, a failing one its warning, and "Show original" the whole mail', async () => {
    renderWeb(<MailList mails={MAILS} />);
    expect(screen.getByText('ann@example.com')).toBeInTheDocument();
    expect(screen.getByText(/The sender could not be verified/)).toBeInTheDocument();
    expect(screen.queryByText(/quoted history/)).not.toBeInTheDocument();
    await userEvent.click(screen.getAllByRole('button', { name: 'Show original' })[1]!);
    expect(screen.getByText(/quoted history/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Hide original' })).toBeInTheDocument();
  });

  it('when a ticket has no mails, then nothing is shown', () => {
    renderWeb(<MailList mails={[]} />);
    expect(screen.queryByText('E-mail')).not.toBeInTheDocument();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
  });
});
