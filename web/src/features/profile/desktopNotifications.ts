import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import type { TicketContinues } from '#contract/live';
import { onLive } from '../../lib/live';
import { usePreferencesQuery } from './api';
import { STATUS_WORDS, type StatusChangeReason, mergedText, movedText } from '#contract/tickets';
import { SLA_TARGET_WORDS, type SlaWarningPush } from '#contract/sla';
import { isStaff } from '#contract/users';
import { selectUser } from '../../entities/session/sessionSlice';
import type { Ticket, TicketChange } from '../../entities/ticket/types';
import { permissionGranted, readLocalSettings, writeLocalSettings } from './notificationSettings';

/** docs/product.md section 6: a new-ticket notice closes after 10 s, a status notice after 5 s. */
const NEW_TICKET_CLOSE_MS = 10_000;
const STATUS_CLOSE_MS = 5_000;

export function newTicketNotice(ticket: Ticket) {
  return {
    title: `New ticket #${ticket.ticketId}`,
    body: `${ticket.title}\nfrom ${ticket.customer.firstName} ${ticket.customer.lastName} · ${ticket.priority} priority`,
  };
}

/** A status change; one the customer's reply made says so, since it is the desk's turn again (docs/tickets.md, reopening). */
export function statusNotice(ticket: Ticket, to: Ticket['status'], reason?: StatusChangeReason) {
  const body = `"${ticket.title}" is now ${STATUS_WORDS[to]}`;
  return { title: `Ticket #${ticket.ticketId} updated`, body: reason === 'customer-replied' ? `The customer replied: ${body}` : body };
}

/** docs/sla.md: a warning is for the assignee, or for every member of staff while nobody is assigned; null when not for `myId`. */
export function slaNotice(warning: SlaWarningPush, myId: string) {
  if (warning.agentId !== null && warning.agentId !== myId) return null;
  const what = SLA_TARGET_WORDS[warning.target];
  return {
    title: warning.kind === 'breach' ? `${what} breached on #${warning.number}` : `${what} due soon on #${warning.number}`,
    body: `"${warning.title}" ${warning.kind === 'breach' ? 'was due' : 'is due'} at ${new Date(warning.dueAt).toLocaleTimeString()}`,
  };
}

/** What a customer's browser says when their ticket continues elsewhere (docs/tickets.md, merging): the channels' words. */
export function continuesNotice({ kind, ticket, continuesIn }: TicketContinues) {
  return {
    title: kind === 'merged' ? `Ticket #${ticket.ticketId} merged` : `Ticket #${ticket.ticketId} split`,
    body: kind === 'merged' ? mergedText(ticket.ticketId, continuesIn.ticketId) : movedText(ticket.ticketId, continuesIn.ticketId),
  };
}

/**
 * A customer is told once, as the server pushes `ticket_continues` (each push reaches a tab once, a
 * reconnect resumes after what it saw, a reload starts from now), which ticket continues theirs:
 * a toast, and a desktop notice where the browser already lets this site show them (customers have
 * no notification settings of their own; docs/product.md section 6).
 */
function useContinuesNotices(customer: boolean): void {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  useEffect(() => {
    if (!customer) return;
    return onLive<TicketContinues>('ticket_continues', (push) => {
      const notice = continuesNotice(push);
      dispatch(toastShown('info', notice.body));
      if (!permissionGranted()) return;
      const notification = new Notification(notice.title, { body: notice.body, tag: `continues-${push.ticket._id}-${push.position}` });
      notification.onclick = () => {
        window.focus();
        if (push.continuesIn._id) void navigate(`/tickets/${push.continuesIn._id}`);
        notification.close();
      };
    });
  }, [customer, dispatch, navigate]);
}

/**
 * Global desktop notifications for agents and admins (docs/product.md section 6): new tickets and status
 * changes, each only while its local setting is on and the browser allows it. Changes one made
 * oneself are not announced back. The local copy follows the account's saved preferences. For a
 * customer, only the notice of a ticket that continues elsewhere.
 */
export function useDesktopNotifications(): void {
  const user = useAppSelector(selectUser);
  const staff = user !== null && isStaff(user.role);
  const navigate = useNavigate();
  useContinuesNotices(user !== null && !staff);
  const preferences = usePreferencesQuery(undefined, { skip: !staff });
  const saved = preferences.data?.notificationPreferences;

  useEffect(() => {
    if (saved) writeLocalSettings(saved);
  }, [saved]);

  useEffect(() => {
    if (!staff || !user) return;
    const show = (notice: { title: string; body: string }, ticket: Ticket, closeAfter: number, requireInteraction: boolean) => {
      const notification = new Notification(notice.title, { body: notice.body, tag: `ticket-${ticket._id}-${closeAfter}`, requireInteraction });
      notification.onclick = () => {
        window.focus();
        void navigate(`/tickets/${ticket._id}`);
        notification.close();
      };
      setTimeout(() => notification.close(), closeAfter);
    };
    const stops = [
      onLive<{ ticket: Ticket }>('new_ticket', ({ ticket }) => {
        if (readLocalSettings().newTickets && permissionGranted()) show(newTicketNotice(ticket), ticket, NEW_TICKET_CLOSE_MS, true);
      }),
      // docs/sla.md: a target at its warning share or breached, to the assignee, or to everyone while nobody is assigned.
      onLive<SlaWarningPush>('sla_warning', (warning) => {
        const notice = slaNotice(warning, user._id);
        if (!notice || !readLocalSettings().ticketUpdates || !permissionGranted()) return;
        const notification = new Notification(notice.title, {
          body: notice.body,
          tag: `sla-${warning.ticketId}-${warning.target}-${warning.kind}`,
        });
        notification.onclick = () => {
          window.focus();
          void navigate(`/tickets/${warning.ticketId}`);
          notification.close();
        };
      }),
      onLive<{ ticket: Ticket; change?: TicketChange }>('ticket_updated', ({ ticket, change }) => {
        if (change?.kind !== 'status' || change.by === user._id) return;
        if (readLocalSettings().ticketUpdates && permissionGranted()) show(statusNotice(ticket, change.to, change.reason), ticket, STATUS_CLOSE_MS, false);
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }, [staff, user, navigate]);
}
