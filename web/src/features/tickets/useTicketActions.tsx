import { useCallback, useState } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { ConfirmDialog } from '../../components/ui';
import { selectUser } from '../../entities/session/sessionSlice';
import { useTagTicketMutation, useUpdateTicketMutation } from './api';
import type { Ticket } from '../../entities/ticket/types';

/**
 * The staff actions shared by Live Tickets and the ticket detail (docs/product.md section 4). Assign to Me
 * sets the agent and in_progress in one call; unassign keeps the status. Failures are logged as the
 * spec says and also shown, so a change that did not happen never looks as if it had. Taking a
 * ticket a colleague holds asks first (issue 41): `takeOverDialog` is that question, to be rendered.
 */
export function useTicketActions() {
  const me = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const [update] = useUpdateTicketMutation();
  const [tagTicket] = useTagTicketMutation();
  const [takeOver, setTakeOver] = useState<Ticket | null>(null);
  const run = useCallback(
    async (body: Parameters<typeof update>[0], fallback: string) => {
      try {
        await update(body).unwrap();
        return true;
      } catch (failure) {
        console.error(fallback, failure);
        dispatch(toastShown('error', errorMessage(failure, fallback)));
        return false;
      }
    },
    [dispatch, update],
  );
  const assign = (ticket: Ticket) => run({ id: ticket._id, assignedAgent: me!._id, status: 'in_progress' }, 'Failed to assign ticket');
  return {
    assignToMe: (ticket: Ticket) => {
      if (ticket.assignedAgent === null || ticket.assignedAgent._id === me!._id) return assign(ticket);
      setTakeOver(ticket);
      return Promise.resolve(false);
    },
    takeOverDialog: takeOver && (
      <ConfirmDialog
        message={`Ticket #${takeOver.ticketId} is assigned to ${takeOver.assignedAgent?.username ?? 'someone else'}. Assign it to you instead?`}
        confirmLabel="Assign to Me"
        onCancel={() => setTakeOver(null)}
        onConfirm={() => {
          setTakeOver(null);
          void assign(takeOver);
        }}
      />
    ),
    unassign: (ticket: Ticket) => run({ id: ticket._id, assignedAgent: null }, 'Failed to unassign ticket'),
    changeStatus: (ticket: Ticket, status: string) => run({ id: ticket._id, status }, 'Failed to update ticket status'),
    /** docs/teams.md: the team, priority or category; the server records each with its actor. */
    reroute: (ticket: Ticket, change: { team?: string | null; priority?: Ticket['priority']; category?: string }) =>
      run({ id: ticket._id, ...change }, 'Failed to update ticket'),
    tag: async (ticket: Ticket, tag: string, tagged: boolean) => {
      try {
        await tagTicket({ id: ticket._id, tag, tagged }).unwrap();
      } catch (failure) {
        console.error('Failed to update tags', failure);
        dispatch(toastShown('error', errorMessage(failure, 'Failed to update tags')));
      }
    },
  };
}
