import { Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Icon } from '../../components/icons';
import { LoadingScreen } from '../../components/ui';
import { useDesktopNotifications } from '../../features/profile/desktopNotifications';
import { useMyUnreadCount, useReplyNotifications } from '../../features/tickets/needsMe';
import { useOutboxSender } from '../../features/tickets/outbox';
import { KeyboardHelp } from './KeyboardHelp';
import { livePauseNotice, useLiveStatus } from '../../lib/live';
import { NARROW, useMediaQuery } from '../../lib/useMediaQuery';
import { SearchDialog } from '../../features/search/SearchDialog';
import { Sidebar } from './Sidebar';
import { PageTitleContext } from '../../lib/pageTitle';

/** The name of each screen in the tab title (issue 41: the title says where one is). */
const SCREEN_TITLES: Array<[RegExp, string]> = [
  [/^\/dashboard/, 'Dashboard'],
  [/^\/live-tickets/, 'Live Tickets'],
  [/^\/tickets\//, 'Ticket'],
  [/^\/canned-messages/, 'Canned Messages'],
  [/^\/macros/, 'Macros'],
  [/^\/profile/, 'Profile'],
  [/^\/admin/, 'Admin Panel'],
  [/^\/settings/, 'System Settings'],
  [/^\/telegram-whitelist/, 'Telegram Whitelist'],
];
const APP_TITLE = 'Customer Support System';

/**
 * "(3) Live Tickets · Customer Support System": unread messages on my open tickets first, then the screen, or what it
 * shows when it names it ("#1042 Printer on fire", usePageTitle), so tabs of several tickets tell apart.
 */
function tabTitle(pathname: string, unread: number, page: string | null): string {
  const screen = page ?? SCREEN_TITLES.find(([pattern]) => pattern.test(pathname))?.[1];
  return `${unread > 0 ? `(${unread}) ` : ''}${screen ? `${screen} · ` : ''}${APP_TITLE}`;
}

/**
 * Every signed-in screen: the sidebar beside the page. On windows 768 px wide or narrower the
 * sidebar is forced collapsed into a top bar with a menu button; expanding it there lays it over the
 * dimmed page as a drawer, and clicking the overlay (or Escape) collapses it again (docs/product.md section 2,
 * issue 25).
 */
export function Layout() {
  const narrow = useMediaQuery(NARROW);
  const [collapsed, setCollapsed] = useState(false);
  const [openOnNarrow, setOpenOnNarrow] = useState(false);
  const { pathname } = useLocation();
  const live = useLiveStatus();
  useDesktopNotifications();
  useReplyNotifications();
  useOutboxSender();
  const unread = useMyUnreadCount();
  const [pageTitle, setPageTitle] = useState<string | null>(null);
  useEffect(() => {
    document.title = tabTitle(pathname, unread, pageTitle);
  }, [pathname, unread, pageTitle]);
  useEffect(() => setOpenOnNarrow(false), [pathname, narrow]);

  useEffect(() => {
    if (!openOnNarrow) return undefined;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setOpenOnNarrow(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openOnNarrow]);

  const isCollapsed = narrow ? !openOnNarrow : collapsed;
  const toggle = () => (narrow ? setOpenOnNarrow((open) => !open) : setCollapsed((value) => !value));
  return (
    <div className={`shell ${isCollapsed ? 'shell-collapsed' : ''} ${narrow ? 'shell-narrow' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <KeyboardHelp />
      {narrow && (
        <header className="topbar">
          <button type="button" className="icon-button" onClick={toggle} aria-expanded={openOnNarrow} aria-label="Expand sidebar" title="Expand sidebar">
            <Icon name="menu" />
          </button>
          <span className="brand">
            <Icon name="bolt" /> Support Desk
          </span>
        </header>
      )}
      {(!narrow || openOnNarrow) && <Sidebar collapsed={isCollapsed} onToggle={toggle} />}
      <SearchDialog />
      {narrow && openOnNarrow && <div className="sidebar-overlay" data-testid="sidebar-overlay" aria-hidden="true" onClick={() => setOpenOnNarrow(false)} />}
      <main className="shell-main" id="main" tabIndex={-1}>
        {/* Until the channel is back and caught up, what the screen shows may be behind. */}
        {live === 'reconnecting' && (
          <div className="banner banner-warning live-banner" role="status">
            Reconnecting…
          </div>
        )}
        {live === 'paused' && (
          <div className="banner banner-warning live-banner" role="status">
            Live updates paused: {livePauseNotice()}
          </div>
        )}
        <PageTitleContext value={setPageTitle}>
          <Suspense fallback={<LoadingScreen />}>
            <Outlet />
          </Suspense>
        </PageTitleContext>
      </main>
    </div>
  );
}
