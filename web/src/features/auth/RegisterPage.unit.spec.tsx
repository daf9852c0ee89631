/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWeb } from '../../test/render';
import { LoginPage } from './LoginPage';
import { RegisterPage, validateRegistration } from './RegisterPage';

const VALID = { firstName: 'Cara', lastName: 'Customer', username: 'cara', email: 'cara@example.com', password: 'secret1', confirmPassword: 'secret1' };

describe('Registration', () => {
  it('when every field is valid, then there is nothing to say', () => {
    expect(validateRegistration(VALID)).toEqual({});
  });

  it('when fields are missing, short or mismatched, then the messages of docs/product.md section 5 show', () => {
    expect(validateRegistration({ ...VALID, password: 'short', confirmPassword: 'other' })).toEqual({
      password: 'Password must be at least 6 characters long',
      confirmPassword: 'Passwords do not match',
    });
    expect(validateRegistration({ ...VALID, firstName: ' ', email: 'not-an-email' })).toEqual({
      firstName: 'First name is required',
      email: 'Please enter a valid email address',
    });
  });

  it('when the page shows, then it lists the product features and refuses a bad form without calling the server', async () => {
    renderWeb(<RegisterPage />, { path: '/register' });
    for (const feature of ['Ticket tracking', 'Live chat', 'Attachments', 'Telegram bot', 'E-mail notifications'])
      expect(screen.getByText(feature)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password'), 'abc');
    await user.type(screen.getByLabelText('Confirm password'), 'abd');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('Password must be at least 6 characters long')).toBeInTheDocument();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(screen.getByText('First name is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('Sign-in', () => {
  it('when the page shows, then e-mail (an e-mail input) and password are required and link to registration', () => {
    renderWeb(<LoginPage />, { path: '/login' });
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Email')).toBeRequired();
    expect(screen.getByLabelText('Password')).toBeRequired();
    expect(screen.getByRole('link', { name: 'Create one' })).toHaveAttribute('href', '/register');
  });
});
