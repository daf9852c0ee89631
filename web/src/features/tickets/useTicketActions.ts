import { useCallback } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { selectUser } from '../../entities/session/sessionSlice';
import { useUpdateTicketMutation } from './api';
import type { Ticket } from '../../entities/ticket/types';

/**
 * The staff actions shared by Live Tickets and the ticket detail (spec.md section 4). Assign to Me
 * sets the agent and in_progress in one call; unassign keeps the status. Failures are logged as the
 * spec says and also shown, so a change that did not happen never looks as if it had.
 */
export function useTicketActions() {
  const me = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const [update] = useUpdateTicketMutation();
  const run = useCallback(
    async (body: { id: string; status?: string; assignedAgent?: string | null }, fallback: string) => {
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
  return {
    assignToMe: (ticket: Ticket) => run({ id: ticket._id, assignedAgent: me!._id, status: 'in_progress' }, 'Failed to assign ticket'),
    unassign: (ticket: Ticket) => run({ id: ticket._id, assignedAgent: null }, 'Failed to unassign ticket'),
    changeStatus: (ticket: Ticket, status: string) => run({ id: ticket._id, status }, 'Failed to update ticket status'),
  };
}
