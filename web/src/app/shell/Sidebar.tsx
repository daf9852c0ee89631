import { useEffect } from 'react';
import { NavLink } from 'react-router';
import { isStaff } from '#contract/users';
import { Icon, type IconName } from '../../components/icons';
import { useLogout } from '../../entities/session/session';
import { type Role, selectUser } from '../../entities/session/sessionSlice';
import { AvailabilityToggle } from '../../entities/team/AvailabilityToggle';
import { SearchButton } from '../../features/search/SearchDialog';
import { NotificationBell } from '../../features/notifications/NotificationBell';
import { useTicketsQuery } from '../../features/tickets/api';
import { OPEN_FILTER, PRIORITY_COLOR } from '../../features/tickets/display';
import type { Ticket } from '../../entities/ticket/types';
import { fullName, initialsOf } from '../../lib/format';
import { selectTheme, themeToggled } from '../../lib/theme';
import { useAppDispatch, useAppSelector } from '../hooks';

const APP_VERSION = 'v3.1.0';
const SIDEBAR_OPEN_TICKETS = 5;

interface Entry {
  to: string;
  label: string;
  icon: IconName;
  roles: Role[];
}

/** docs/product.md section 2: the sidebar's entries and the roles that see each. */
const NAV_ENTRIES: Entry[] = [
  { to: '/dashboard', label: 'Dashboard', icon: 'dashboard', roles: ['customer', 'agent', 'admin'] },
  { to: '/live-tickets', label: 'Live Tickets', icon: 'live', roles: ['agent', 'admin'] },
  { to: '/canned-messages', label: 'Canned Messages', icon: 'canned', roles: ['agent', 'admin'] },
  // docs/macros.md: the staff member's own macros and the shared ones, beside the canned messages they extend.
  { to: '/macros', label: 'Macros', icon: 'bolt', roles: ['agent', 'admin'] },
  { to: '/profile', label: 'Profile', icon: 'profile', roles: ['customer', 'agent', 'admin'] },
  { to: '/admin', label: 'Admin Panel', icon: 'admin', roles: ['admin'] },
  { to: '/settings', label: 'Settings', icon: 'settings', roles: ['admin'] },
  { to: '/telegram-whitelist', label: 'Telegram Whitelist', icon: 'telegram', roles: ['admin'] },
];

export const entriesFor = (role: Role) => NAV_ENTRIES.filter((entry) => entry.roles.includes(role));

/** The staff sidebar's open tickets: #id, title and priority dot; hovering shows title and customer. */
export function OpenTicketsList({ tickets }: { tickets: Ticket[] }) {
  if (tickets.length === 0) return null;
  return (
    // Not a landmark: the dashboard's 'Open Tickets' statistic is the page's region of that name.
    <div className="sidebar-open">
      <h2 id="sidebar-open-title">Open Tickets</h2>
      <ul>
        {tickets.slice(0, SIDEBAR_OPEN_TICKETS).map((ticket) => (
          <li key={ticket._id}>
            <NavLink to={`/tickets/${ticket._id}`} title={`${ticket.title}\n${fullName(ticket.customer)}`}>
              <span className={`priority-dot priority-${PRIORITY_COLOR[ticket.priority]}`} aria-label={`${ticket.priority} priority`} />
              <span className="sidebar-open-id">#{ticket.ticketId}</span>
              <span className="sidebar-open-title">{ticket.title}</span>
            </NavLink>
          </li>
        ))}
      </ul>
      <NavLink to="/live-tickets?filter=open" className="sidebar-view-all">
        View All Open
      </NavLink>
    </div>
  );
}

/** Loaded only for staff with the sidebar expanded; a failure only reaches the console (docs/product.md section 8). */
function OpenTickets() {
  const { data, error } = useTicketsQuery({ status: OPEN_FILTER, limit: SIDEBAR_OPEN_TICKETS, sort: 'latest' });
  useEffect(() => {
    if (error) console.error('Could not load open tickets for the sidebar', error);
  }, [error]);
  return <OpenTicketsList tickets={data?.tickets ?? []} />;
}

export function Sidebar({ collapsed, onToggle }: { collapsed: boolean; onToggle: () => void }) {
  const user = useAppSelector(selectUser);
  const theme = useAppSelector(selectTheme);
  const dispatch = useAppDispatch();
  const logout = useLogout();
  if (!user) return null;
  return (
    <aside className={`sidebar ${collapsed ? 'sidebar-collapsed' : ''}`} aria-label="Main navigation">
      <div className="sidebar-top">
        {!collapsed && (
          <span className="brand">
            <Icon name="bolt" /> Support Desk
          </span>
        )}
        <button
          type="button"
          className="icon-button"
          onClick={onToggle}
          aria-expanded={!collapsed}
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          title={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
        >
          <Icon name={collapsed ? 'menu' : 'chevronLeft'} />
        </button>
      </div>
      <SearchButton collapsed={collapsed} />
      {isStaff(user.role) && <NotificationBell collapsed={collapsed} />}
      <nav>
        <ul className="sidebar-nav">
          {entriesFor(user.role).map((entry) => (
            <li key={entry.to}>
              <NavLink to={entry.to} className={({ isActive }) => `nav-entry ${isActive ? 'nav-active' : ''}`} title={collapsed ? entry.label : undefined}>
                <Icon name={entry.icon} />
                <span className="nav-label">{entry.label}</span>
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {!collapsed && isStaff(user.role) && <OpenTickets />}
      <div className="sidebar-footer">
        <button
          type="button"
          className="icon-button theme-toggle"
          onClick={() => dispatch(themeToggled())}
          title={theme === 'light' ? 'Switch to dark theme' : 'Switch to light theme'}
          aria-label={theme === 'light' ? 'Switch to dark theme' : 'Switch to light theme'}
        >
          <Icon name={theme === 'light' ? 'moon' : 'sun'} />
        </button>
        <div className="sidebar-user">
          <span className="avatar" aria-hidden="true">
            {initialsOf(user.firstName, user.lastName)}
          </span>
          {!collapsed && (
            <span className="sidebar-user-text">
              <strong>{fullName(user)}</strong>
              <span className="muted role-label">{user.role}</span>
            </span>
          )}
        </div>
        {isStaff(user.role) && <AvailabilityToggle compact={collapsed} />}
        {!collapsed && <p className="version">{APP_VERSION} · with global notifications</p>}
        <button type="button" className="button button-ghost logout" onClick={() => void logout()} title="Logout" aria-label="Logout">
          <Icon name="logout" />
          {!collapsed && <span>Logout</span>}
        </button>
      </div>
    </aside>
  );
}
