/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, AGENT, CUSTOMER } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { UserForm } from './UserForm';
import { UsersTable, lastLoginText } from './UsersTab';

function renderForm(props: Partial<Parameters<typeof UserForm>[0]> = {}) {
  const onSubmit = jest.fn();
  renderWeb(<UserForm user={null} saving={false} error={null} onSubmit={onSubmit} onCancel={jest.fn()} {...props} />);
  return { onSubmit, user: userEvent.setup() };
}

describe('User form', () => {
  it('when submitted empty, then every required field says so and nothing is sent', async () => {
    const { user, onSubmit } = renderForm();
    await user.click(screen.getByRole('button', { name: 'Create User' }));
    expect(screen.getByText('First name is required')).toBeInTheDocument();
    expect(screen.getByText('Last name is required')).toBeInTheDocument();
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when a username is typed, then only lowercase letters, digits and underscores remain', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Username'), 'Jane.Doe-01_X!');
    expect(screen.getByLabelText('Username')).toHaveValue('janedoe01_x');
  });

  it('when fields break their rules, then the rule is named', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('First Name'), '   ');
    await user.type(screen.getByLabelText('Last Name'), 'Doe');
    await user.type(screen.getByLabelText('Username'), 'jd');
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), '12345');
    await user.click(screen.getByRole('button', { name: 'Create User' }));
    expect(screen.getByText('First name is required')).toBeInTheDocument();
    expect(screen.getByText('Username must be between 3 and 30 characters')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 6 characters long')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when names are typed, then they stop at 50 characters', async () => {
    const { user } = renderForm();
    await user.click(screen.getByLabelText('Last Name'));
    await user.paste('y'.repeat(60));
    expect(screen.getByLabelText('Last Name')).toHaveValue('y'.repeat(50));
  });

  it('when a valid new user is submitted, then it is sent active with the chosen role', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('First Name'), 'Jane');
    await user.type(screen.getByLabelText('Last Name'), 'Doe');
    await user.type(screen.getByLabelText('Username'), 'jane');
    await user.type(screen.getByLabelText('Email'), 'jane@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret1');
    await user.selectOptions(screen.getByLabelText('Role'), 'agent');
    expect(screen.getByRole('checkbox', { name: 'Active' })).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Create User' }));
    expect(onSubmit).toHaveBeenCalledWith({
      firstName: 'Jane',
      lastName: 'Doe',
      username: 'jane',
      email: 'jane@example.com',
      password: 'secret1',
      role: 'agent',
      isActive: true,
    });
  });

  it('when editing with the password left blank, then no password is sent', async () => {
    const { user, onSubmit } = renderForm({ user: AGENT });
    await user.clear(screen.getByLabelText('First Name'));
    await user.type(screen.getByLabelText('First Name'), 'Alicia');
    await user.click(screen.getByRole('button', { name: 'Update User' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.not.objectContaining({ password: expect.anything() }));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ firstName: 'Alicia', role: 'agent' });
  });

  it('when editing with a short new password, then it is refused', async () => {
    const { user, onSubmit } = renderForm({ user: AGENT });
    await user.type(screen.getByLabelText(/^Password/), 'abc');
    await user.click(screen.getByRole('button', { name: 'Update User' }));
    expect(screen.getByText('Password must be at least 6 characters long')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('when admins edit themselves, then role and active cannot be changed', () => {
    renderForm({ user: ADMIN, isSelf: true });
    expect(screen.getByLabelText('Role')).toBeDisabled();
    expect(screen.getByRole('checkbox', { name: 'Active' })).toBeDisabled();
  });

  it('when the server refuses, then its message shows and Saving... while sending', () => {
    renderForm({ error: 'Email already registered', saving: true });
    expect(screen.getByRole('alert')).toHaveTextContent('Email already registered');
    expect(screen.getByRole('button', { name: 'Saving...' })).toBeDisabled();
  });
});

describe('Users table', () => {
  const now = Date.parse('2026-11-21T12:00:00.000Z');
  it('when last logins vary, then they read Never, Just now, mins, hours, days, then a date', () => {
    expect(lastLoginText(null, now)).toBe('Never');
    expect(lastLoginText('2026-11-21T11:59:40.000Z', now)).toBe('Just now');
    expect(lastLoginText('2026-11-21T11:55:00.000Z', now)).toBe('5 mins ago');
    expect(lastLoginText('2026-11-21T09:00:00.000Z', now)).toBe('3 hours ago');
    expect(lastLoginText('2026-11-19T12:00:00.000Z', now)).toBe('2 days ago');
    expect(lastLoginText('2026-11-01T12:00:00.000Z', now)).toBe(new Date('2026-11-01T12:00:00.000Z').toLocaleDateString());
  });

  it('when the admin sees their own row, then its delete is blocked with the tooltip', async () => {
    const onDelete = jest.fn();
    renderWeb(<UsersTable users={[ADMIN, { ...CUSTOMER, isActive: false }]} meId={ADMIN._id} onEdit={jest.fn()} onDelete={onDelete} onSendLink={jest.fn()} />);
    const own = screen.getByRole('button', { name: 'Delete Adam Admin' });
    expect(own).toBeDisabled();
    expect(own.parentElement).toHaveAttribute('title', 'Cannot delete your own account');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Delete Cara Customer' }));
    expect(onDelete).toHaveBeenCalledWith(expect.objectContaining({ _id: CUSTOMER._id }));
    const rows = screen.getAllByRole('row');
    expect(
      within(rows[0]!)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Name', 'Email', 'Role', 'Status', 'Last Login', 'Actions']);
    expect(within(rows[2]!).getByText('Inactive')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('Never')).toBeInTheDocument();
  });

  it('when a customer was made by the e-mail channel, then the row says so and offers to send a password link', async () => {
    const onSendLink = jest.fn();
    renderWeb(
      <UsersTable users={[ADMIN, { ...CUSTOMER, createdByEmail: true }]} meId={ADMIN._id} onEdit={jest.fn()} onDelete={jest.fn()} onSendLink={onSendLink} />,
    );
    const rows = screen.getAllByRole('row');
    expect(within(rows[2]!).getByText('Created by e-mail')).toBeInTheDocument();
    expect(within(rows[1]!).queryByText('Created by e-mail')).toBeNull();
    await userEvent.setup().click(within(rows[2]!).getByRole('button', { name: 'Send password link' }));
    expect(onSendLink).toHaveBeenCalledWith(expect.objectContaining({ _id: CUSTOMER._id }));
  });
});
