/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import { ADMIN, AGENT, CUSTOMER } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { PublicOnly, RequireRole } from './guards';

const page = (text: string) => <p>{text}</p>;
const LANDINGS = { '/login': page('login page'), '/dashboard': page('dashboard page'), '/admin': page('admin page') };

describe('Route guards', () => {
  it('when the session is still being restored, then a loading screen shows', () => {
    renderWeb(<RequireRole>{page('secret')}</RequireRole>, { session: { status: 'loading', user: null }, path: '/profile', routes: LANDINGS });
    expect(screen.getByRole('status')).toHaveTextContent('Loading...');
    expect(screen.queryByText('secret')).not.toBeInTheDocument();
  });

  it('when an anonymous visitor opens a protected route, then they go to /login', () => {
    renderWeb(<RequireRole>{page('secret')}</RequireRole>, { path: '/profile', routes: LANDINGS });
    expect(screen.getByText('login page')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/login');
  });

  it('when a customer opens a staff route, then they go to /dashboard', () => {
    renderWeb(<RequireRole roles={['agent', 'admin']}>{page('live tickets')}</RequireRole>, {
      session: signedInAs(CUSTOMER),
      path: '/live-tickets',
      routes: LANDINGS,
    });
    expect(screen.getByTestId('location')).toHaveTextContent('/dashboard');
  });

  it('when an agent opens an admin route, then they go to /dashboard', () => {
    renderWeb(<RequireRole roles="admin">{page('settings')}</RequireRole>, { session: signedInAs(AGENT), path: '/settings', routes: LANDINGS });
    expect(screen.getByTestId('location')).toHaveTextContent('/dashboard');
  });

  it('when an admin lacks the required role, then they go to /admin', () => {
    renderWeb(<RequireRole roles="customer">{page('customer only')}</RequireRole>, { session: signedInAs(ADMIN), path: '/customers-only', routes: LANDINGS });
    expect(screen.getByTestId('location')).toHaveTextContent('/admin');
  });

  it('when the role is in the accepted list, then the screen shows', () => {
    renderWeb(<RequireRole roles={['agent', 'admin']}>{page('live tickets')}</RequireRole>, { session: signedInAs(AGENT), path: '/live-tickets' });
    expect(screen.getByText('live tickets')).toBeInTheDocument();
  });

  it('when a signed-in user opens a public-only page, then they go to /dashboard', () => {
    renderWeb(<PublicOnly>{page('sign in form')}</PublicOnly>, {
      session: signedInAs(CUSTOMER),
      path: '/login',
      routes: { '/dashboard': page('dashboard page') },
    });
    expect(screen.getByText('dashboard page')).toBeInTheDocument();
  });

  it('when an anonymous visitor opens a public-only page, then it shows', () => {
    renderWeb(<PublicOnly>{page('sign in form')}</PublicOnly>, { path: '/login' });
    expect(screen.getByText('sign in form')).toBeInTheDocument();
  });
});
