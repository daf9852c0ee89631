/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, CUSTOMER, ticket } from '../../test/fixtures';
import { renderWeb, signedInAs } from '../../test/render';
import { OpenTicketsList, Sidebar, entriesFor } from './Sidebar';

describe('Sidebar', () => {
  it('when filtered by role, then each role sees the entries docs/product.md section 2 lists', () => {
    const labels = (role: 'customer' | 'agent' | 'admin') => entriesFor(role).map((entry) => entry.label);
    expect(labels('customer')).toEqual(['Dashboard', 'Profile']);
    expect(labels('agent')).toEqual(['Dashboard', 'Live Tickets', 'Canned Messages', 'Macros', 'Profile']);
    expect(labels('admin')).toEqual(['Dashboard', 'Live Tickets', 'Canned Messages', 'Macros', 'Profile', 'Admin Panel', 'Settings', 'Telegram Whitelist']);
  });

  it('when expanded, then the active entry is highlighted and the footer shows initials, name, role, version and Logout', () => {
    renderWeb(<Sidebar collapsed={false} onToggle={jest.fn()} />, { session: signedInAs(CUSTOMER), path: '/profile' });
    expect(screen.getByRole('link', { name: 'Profile' })).toHaveClass('nav-active');
    expect(screen.getByRole('link', { name: 'Dashboard' })).not.toHaveClass('nav-active');
    expect(screen.getByText('CC')).toBeInTheDocument();
    expect(screen.getByText('Cara Customer')).toBeInTheDocument();
    expect(screen.getByText('customer')).toBeInTheDocument();
    expect(screen.getByText(/v3\.1\.0.*notifications/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Logout' })).toBeInTheDocument();
  });

  it('when the theme toggle is used, then its title flips and the choice is kept', async () => {
    const { store } = renderWeb(<Sidebar collapsed={false} onToggle={jest.fn()} />, { session: signedInAs(CUSTOMER), path: '/dashboard' });
    const toggle = screen.getByTitle('Switch to dark theme');
    await userEvent.setup().click(toggle);
    expect(screen.getByTitle('Switch to light theme')).toBeInTheDocument();
    expect(store.getState().theme.theme).toBe('dark');
  });

  it('when collapsed, then labels hide from sight but stay named, and the toggle expands', async () => {
    const onToggle = jest.fn();
    renderWeb(<Sidebar collapsed onToggle={onToggle} />, { session: signedInAs(ADMIN), path: '/dashboard' });
    expect(screen.getByRole('link', { name: 'Telegram Whitelist' })).toBeInTheDocument();
    expect(screen.queryByText('Adam Admin')).not.toBeInTheDocument();
    expect(screen.queryByText('Open Tickets')).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Expand sidebar' }));
    expect(onToggle).toHaveBeenCalled();
  });

  it('when staff have open tickets, then up to 5 show with #id, title, priority dot, a hover title with the customer, and View All Open', () => {
    const seven = Array.from({ length: 7 }, (_, index) =>
      ticket({ _id: `t${index}`, ticketId: 1001 + index, title: `Problem ${index}`, priority: index === 0 ? 'urgent' : 'low' }),
    );
    renderWeb(<OpenTicketsList tickets={seven} />);
    expect(screen.getByRole('heading', { name: 'Open Tickets' })).toBeInTheDocument();
    const links = screen.getAllByRole('link').filter((link) => link.getAttribute('href')?.startsWith('/tickets/'));
    expect(links).toHaveLength(5);
    expect(links[0]).toHaveTextContent('#1001Problem 0');
    expect(links[0]).toHaveAttribute('title', 'Problem 0\nCara Customer');
    expect(screen.getByLabelText('urgent priority')).toHaveClass('priority-red');
    expect(screen.getByRole('link', { name: 'View All Open' })).toHaveAttribute('href', '/live-tickets?filter=open');
  });

  it('when no ticket is open, then the section is absent', () => {
    renderWeb(<OpenTicketsList tickets={[]} />);
    expect(screen.queryByText('Open Tickets')).not.toBeInTheDocument();
  });
});
