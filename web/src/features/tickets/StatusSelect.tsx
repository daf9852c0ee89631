import { TICKET_STATUSES } from '#contract/tickets';
import { statusLabel } from './display';
import type { Ticket } from '../../entities/ticket/types';

/** Staff may set any status from any other (docs/product.md section 4). */
export function StatusSelect({ ticket, onChange, id }: { ticket: Ticket; onChange: (status: string) => void; id?: string }) {
  return (
    <select
      id={id}
      className={`status-select status-${ticket.status}`}
      aria-label={`Status of ticket #${ticket.ticketId}`}
      value={ticket.status}
      onChange={(e) => onChange(e.target.value)}
    >
      {TICKET_STATUSES.map((status) => (
        <option key={status} value={status}>
          {statusLabel(status)}
        </option>
      ))}
    </select>
  );
}
