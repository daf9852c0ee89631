import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import type { TicketMessageNotice } from '#contract/live';
import { isStaff } from '#contract/users';
import { isTicketOpen, onLive } from '../../lib/live';
import { selectUser } from '../../entities/session/sessionSlice';
import type { Ticket } from '../../entities/ticket/types';
import { useTicketsQuery } from './api';
import { OPEN_FILTER } from './display';

/** The open tickets that are "mine": assigned to me (staff), or my own (customers); what the unread count covers. */
const MINE_LIMIT = 100;

/**
 * Messages I have not read on my open tickets (issue 41): for staff the tickets assigned to them,
 * for a customer their own. The list is the same RTK Query cache entry the live channel patches,
 * so the count follows pushes and clears when a ticket is read.
 */
export function useMyUnreadCount(): number {
  const user = useAppSelector(selectUser);
  const staff = user !== null && isStaff(user.role);
  const list = useTicketsQuery({ status: OPEN_FILTER, ...(staff ? { assigned: 'me' as const } : {}), limit: MINE_LIMIT }, { skip: user === null });
  return (list.data?.tickets ?? []).reduce((sum, ticket) => sum + ticket.unreadCount, 0);
}

/** Desktop notices can only be asked for on a user action; this is that action (a button's click). */
export const askForReplyNotices = () => void Notification.requestPermission().catch(() => undefined);
export const replyNoticesPending = () => typeof window !== 'undefined' && 'Notification' in window && Notification.permission === 'default';

/** A customer's reply on a ticket assigned to me, unless I am looking at it in this tab. */
function replyNotice(ticket: Ticket) {
  return { title: `Reply on #${ticket.ticketId}`, body: `${ticket.customer.firstName} ${ticket.customer.lastName} wrote on "${ticket.title}"` };
}

/**
 * Staff: a desktop notification when the customer of a ticket assigned to me writes (issue 41),
 * once the browser allows notifications; not while that ticket is open in a visible tab.
 */
export function useReplyNotifications(): void {
  const user = useAppSelector(selectUser);
  const navigate = useNavigate();
  const staff = user !== null && isStaff(user.role);
  const myId = user?._id;
  useEffect(() => {
    if (!staff || !myId) return undefined;
    return onLive<TicketMessageNotice<Ticket>>('ticket_message', ({ ticket, message }) => {
      if (ticket.assignedAgent?._id !== myId || message.senderId !== ticket.customer._id || message.isInternal) return;
      if (!('Notification' in window) || Notification.permission !== 'granted') return;
      if (isTicketOpen(ticket._id) && document.visibilityState === 'visible') return;
      const notice = replyNotice(ticket);
      const notification = new Notification(notice.title, { body: notice.body, tag: `reply-${ticket._id}` });
      notification.onclick = () => {
        window.focus();
        void navigate(`/tickets/${ticket._id}`);
        notification.close();
      };
    });
  }, [staff, myId, navigate]);
}
