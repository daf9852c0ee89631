/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import { AGENT } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { AdminPage } from './AdminPage';

describe('Administrator-only screens', () => {
  it('when an agent opens the Admin Panel, then Access Denied shows instead', () => {
    renderWeb(<AdminPage />, { session: signedInAs(AGENT) });
    expect(screen.getByRole('alert')).toHaveTextContent(/^Access Denied/);
    expect(screen.queryByRole('tablist')).not.toBeInTheDocument();
  });
});
