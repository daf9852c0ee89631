/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, AGENT } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { AdminPage } from './AdminPage';

describe('Administrator-only screens', () => {
  it('when an agent opens the Admin Panel, then Access Denied shows instead', () => {
    renderWeb(<AdminPage />, { session: signedInAs(AGENT) });
    expect(screen.getByRole('alert')).toHaveTextContent(/^Access Denied/);
    expect(screen.queryByRole('tablist')).not.toBeInTheDocument();
  });

  it('when the admin chooses a tab, then the address names it, so a reload opens the same tab', async () => {
    // The panel's statistics have no server here; their failure to load is logged, and not what this test is about.
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWeb(<AdminPage />, { session: signedInAs(ADMIN), path: '/admin?tab=Teams' });
    expect(screen.getByRole('tab', { name: 'Teams' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.setup().click(screen.getByRole('tab', { name: 'Tags' }));
    expect(screen.getByRole('tab', { name: 'Tags' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByTestId('location')).toHaveTextContent('/admin?tab=Tags');
    logged.mockRestore();
  });
});
