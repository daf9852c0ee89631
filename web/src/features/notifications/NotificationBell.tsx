import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import type { NotificationPush, NotificationView } from '#contract/notifications';
import { Icon } from '../../components/icons';
import { fullName, timeAgo } from '../../lib/format';
import { onLive } from '../../lib/live';
import { useMarkAllNotificationsReadMutation, useMarkNotificationReadMutation, useNotificationsQuery } from './api';
import './notifications.css';

/** Where a notification leads: its ticket, scrolled to the note and marking it (`?message=`, as a search hit). */
const noteLink = (notification: NotificationView) =>
  notification.ticket ? `/tickets/${notification.ticket._id}?message=${encodeURIComponent(notification.messageId)}` : null;

/**
 * A desktop notice of a mention while this tab is hidden, where the browser lets the site show them
 * (the person allowed it); a visible tab has the bell's count instead.
 */
function useMentionNotices(): void {
  const navigate = useNavigate();
  const [markRead] = useMarkNotificationReadMutation();
  useEffect(
    () =>
      onLive<NotificationPush>('notification', ({ notification }) => {
        const link = noteLink(notification);
        if (!document.hidden || !link || !('Notification' in window) || Notification.permission !== 'granted') return;
        const notice = new Notification(`${fullName(notification.by)} mentioned you on #${notification.ticket?.ticketId}`, {
          body: notification.excerpt,
          tag: `mention-${notification._id}`,
        });
        notice.onclick = () => {
          window.focus();
          void markRead(notification._id);
          void navigate(link);
          notice.close();
        };
      }),
    [navigate, markRead],
  );
}

/** Staff's bell: the unread count, and the list of who mentioned them where (docs/notifications.md, "Mentions"). */
export function NotificationBell({ collapsed }: { collapsed: boolean }) {
  const { data } = useNotificationsQuery();
  const [markRead] = useMarkNotificationReadMutation();
  const [markAllRead] = useMarkAllNotificationsReadMutation();
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const panel = useRef<HTMLDivElement>(null);
  useMentionNotices();
  useEffect(() => {
    if (!open) return undefined;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !panel.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  const unread = data?.unread ?? 0;
  const notifications = data?.notifications ?? [];
  const choose = (notification: NotificationView) => {
    const link = noteLink(notification);
    if (!notification.read) void markRead(notification._id);
    setOpen(false);
    if (link) void navigate(link);
  };
  const label = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';
  return (
    <div className="notification-bell" ref={panel}>
      <button
        type="button"
        className="sidebar-trigger notification-trigger"
        aria-label={label}
        title={label}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <Icon name="bell" />
        {!collapsed && <span>Notifications</span>}
        {unread > 0 && (
          <span className="notification-count" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="notification-panel" role="dialog" aria-label="Notifications">
          <div className="notification-panel-head">
            <strong>Notifications</strong>
            {unread > 0 && (
              <button type="button" className="button button-ghost button-small" onClick={() => void markAllRead()}>
                Mark all read
              </button>
            )}
          </div>
          {notifications.length === 0 ? (
            <p className="muted small">Nobody has mentioned you yet.</p>
          ) : (
            <ul>
              {notifications.map((notification) => (
                <li key={notification._id}>
                  <button type="button" className={`notification-item ${notification.read ? '' : 'notification-unread'}`} onClick={() => choose(notification)}>
                    <span>
                      <strong>{fullName(notification.by)}</strong> mentioned you
                      {notification.ticket ? ` on #${notification.ticket.ticketId} ${notification.ticket.title}` : ' on a deleted ticket'}
                    </span>
                    <span className="notification-excerpt">{notification.excerpt}</span>
                    <time className="muted small" dateTime={notification.createdAt}>
                      {timeAgo(notification.createdAt)}
                    </time>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
