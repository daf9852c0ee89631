/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import type { AccessRequest, WhitelistEntry } from './api';
import { AccessRequests, WhitelistForm, WhitelistPage, WhitelistTable, filterEntries, requesterName } from './WhitelistPage';

const entry = (overrides: Partial<WhitelistEntry>): WhitelistEntry => ({
  _id: `w-${overrides.telegramId}`,
  telegramId: '1',
  username: '',
  firstName: '',
  lastName: '',
  notes: '',
  isActive: true,
  createdAt: '2026-11-01T09:00:00.000Z',
  ...overrides,
});
const request = (overrides: Partial<AccessRequest>): AccessRequest => ({
  _id: `r-${overrides.telegramId}`,
  telegramId: '1',
  username: '',
  firstName: '',
  lastName: '',
  firstAttemptAt: '2026-11-20T09:00:00.000Z',
  lastAttemptAt: '2026-11-21T09:00:00.000Z',
  attemptCount: 3,
  lastMessage: 'Hello, can I get help?',
  ...overrides,
});
const ENTRIES = [
  entry({ telegramId: '111', username: 'JaneDoe', firstName: 'Jane', lastName: 'Doe', notes: 'VIP' }),
  entry({ telegramId: '222', firstName: 'Omar', lastName: 'Nasser', isActive: false }),
];

describe('Whitelist form', () => {
  function renderForm(existing: WhitelistEntry | null = null) {
    const onSubmit = jest.fn();
    renderWeb(<WhitelistForm entry={existing} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} />);
    return { onSubmit, user: userEvent.setup() };
  }

  it('when added without a Telegram ID, then it is required; the helper-bot hint shows', async () => {
    const { user, onSubmit } = renderForm();
    expect(screen.getByText(/helper bot such as @userinfobot/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add to Whitelist' }));
    expect(screen.getByText('Telegram ID is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when the ID is not a number, then that is said; with only an ID the rest stays optional', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Telegram ID'), '@jane');
    await user.click(screen.getByRole('button', { name: 'Add to Whitelist' }));
    expect(screen.getByText(/Telegram ID must be a number/)).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Telegram ID'));
    await user.type(screen.getByLabelText('Telegram ID'), ' 123456789 ');
    await user.click(screen.getByRole('button', { name: 'Add to Whitelist' }));
    expect(onSubmit).toHaveBeenCalledWith({ telegramId: '123456789', username: '', firstName: '', lastName: '', notes: '' });
  });

  it('when pasted notes are over 500 characters, then they are kept whole, counted as over and refused with the reason', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Telegram ID'), '123456789');
    await user.click(screen.getByLabelText('Notes'));
    await user.paste('n'.repeat(600));
    expect(screen.getByLabelText('Notes')).toHaveValue('n'.repeat(600));
    expect(screen.getByText('600/500')).toHaveClass('over');
    await user.click(screen.getByRole('button', { name: 'Add to Whitelist' }));
    expect(screen.getByText('Notes must be at most 500 characters')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when editing, then the Telegram ID is locked', async () => {
    const { user, onSubmit } = renderForm(ENTRIES[0]);
    expect(screen.getByLabelText('Telegram ID')).toBeDisabled();
    await user.clear(screen.getByLabelText('Notes'));
    await user.type(screen.getByLabelText('Notes'), 'Key account');
    await user.click(screen.getByRole('button', { name: 'Update Entry' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ telegramId: '111', notes: 'Key account' }));
  });
});

describe('Pending access requests', () => {
  it('when there are none, then the card is not shown', () => {
    renderWeb(<AccessRequests requests={[]} busy={false} onApprove={jest.fn()} onReject={jest.fn()} />);
    expect(screen.queryByText('Pending Access Requests')).not.toBeInTheDocument();
  });

  it('when requests wait, then the badge counts them and each shows who, ID, attempts, last message and both actions', async () => {
    const onApprove = jest.fn();
    const onReject = jest.fn();
    const requests = [
      request({ telegramId: '9', username: 'sam' }),
      request({ telegramId: '8', firstName: 'Lee', lastName: 'Chan' }),
      request({ telegramId: '7' }),
    ];
    renderWeb(<AccessRequests requests={requests} busy={false} onApprove={onApprove} onReject={onReject} />);
    expect(screen.getByText('3 pending')).toBeInTheDocument();
    const sam = screen.getByRole('listitem', { name: 'Request from @sam' });
    expect(sam).toHaveTextContent('ID: 9');
    expect(sam).toHaveTextContent('Attempts3');
    expect(sam).toHaveTextContent('Hello, can I get help?');
    expect(sam).toHaveTextContent(new Date('2026-11-20T09:00:00.000Z').toLocaleString());
    expect(screen.getByRole('listitem', { name: 'Request from Lee Chan' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Request from Unknown User' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(sam).getByRole('button', { name: 'Approve' }));
    await user.click(within(sam).getByRole('button', { name: 'Reject' }));
    expect(onApprove).toHaveBeenCalledWith(requests[0]);
    expect(onReject).toHaveBeenCalledWith(requests[0]);
    expect(requesterName({ username: '', firstName: '', lastName: '' })).toBe('Unknown User');
  });
});

describe('Whitelisted users', () => {
  it('when listed, then the columns, status and actions follow docs/product.md section 2', async () => {
    const onToggle = jest.fn();
    renderWeb(<WhitelistTable entries={ENTRIES} filtering={false} busy={false} onEdit={jest.fn()} onToggle={onToggle} onDelete={jest.fn()} />);
    const rows = screen.getAllByRole('row');
    expect(
      within(rows[0]!)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Telegram ID', 'Username', 'Name', 'Notes', 'Status', 'Added', 'Actions']);
    expect(rows[1]).toHaveTextContent('@JaneDoe');
    expect(rows[1]).toHaveTextContent('Active');
    expect(rows[2]).toHaveTextContent('Inactive');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Activate 222' }));
    expect(onToggle).toHaveBeenCalledWith(ENTRIES[1]);
    expect(screen.getByRole('button', { name: 'Deactivate 111' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete 111' })).toBeInTheDocument();
  });

  it('when searching, then Telegram ID, username, first and last name match regardless of case', () => {
    expect(filterEntries(ENTRIES, 'janedoe').map((found) => found.telegramId)).toEqual(['111']);
    expect(filterEntries(ENTRIES, '@JANEDOE').map((found) => found.telegramId)).toEqual(['111']);
    expect(filterEntries(ENTRIES, '22').map((found) => found.telegramId)).toEqual(['222']);
    expect(filterEntries(ENTRIES, 'nasser').map((found) => found.telegramId)).toEqual(['222']);
    expect(filterEntries(ENTRIES, 'vip')).toEqual([]);
  });

  it('when empty, then the right empty state shows', () => {
    const { rerender } = renderWeb(<WhitelistTable entries={[]} filtering={false} busy={false} onEdit={jest.fn()} onToggle={jest.fn()} onDelete={jest.fn()} />);
    expect(screen.getByText('No whitelisted users yet')).toBeInTheDocument();
    rerender(<WhitelistTable entries={[]} filtering busy={false} onEdit={jest.fn()} onToggle={jest.fn()} onDelete={jest.fn()} />);
    expect(screen.getByText('No entries match your search')).toBeInTheDocument();
  });

  it('when an agent opens the screen, then Access Denied says why', () => {
    renderWeb(<WhitelistPage />, { session: signedInAs(AGENT) });
    expect(screen.getByRole('alert')).toHaveTextContent('Access Denied: You must be an administrator to manage the Telegram whitelist.');
  });
});
