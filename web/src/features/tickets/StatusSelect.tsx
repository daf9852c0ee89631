import { useId, useRef, useState } from 'react';
import { TICKET_STATUSES } from '#contract/tickets';
import { statusLabel } from './display';
import type { Ticket } from '../../entities/ticket/types';

/** Keys that leave the choice as it is: they confirm, cancel or move on. */
const NOT_CHOOSING = new Set(['Enter', 'Escape', 'Tab', 'Shift']);

/**
 * Staff may set any status from any other (docs/product.md section 4). One intent, one change: a
 * native select commits on every change, and a closed select's arrow keys change it, so pressing `s`
 * and two arrows recorded two statuses and mailed the customer twice. A pick with the pointer (or a
 * phone's picker) commits at once; a choice made with the keyboard is held until Enter or Save, and
 * Escape or Cancel puts the ticket's status back (docs/web.md, "Status select").
 */
export function StatusSelect({ ticket, onChange, id }: { ticket: Ticket; onChange: (status: string) => void; id?: string }) {
  const [draft, setDraft] = useState<string | null>(null);
  const byKeyboard = useRef(false);
  const hintId = useId();
  const pending = draft !== null && draft !== ticket.status;
  const commit = (status: string) => {
    setDraft(null);
    if (status !== ticket.status) onChange(status);
  };
  return (
    <span className="status-picker">
      <select
        id={id}
        className={`status-select status-${pending ? draft : ticket.status}`}
        aria-label={`Status of ticket #${ticket.ticketId}`}
        aria-describedby={pending ? hintId : undefined}
        value={pending ? draft : ticket.status}
        onPointerDown={() => (byKeyboard.current = false)}
        onKeyDown={(e) => {
          if (!NOT_CHOOSING.has(e.key)) {
            byKeyboard.current = true;
            return;
          }
          if (!pending || (e.key !== 'Enter' && e.key !== 'Escape')) return;
          // Enter here must not also open the focused ticket (Live Tickets), nor Escape leave anything behind.
          e.preventDefault();
          e.stopPropagation();
          if (e.key === 'Enter') commit(draft);
          else setDraft(null);
        }}
        onChange={(e) => (byKeyboard.current ? setDraft(e.target.value) : commit(e.target.value))}
      >
        {TICKET_STATUSES.map((status) => (
          <option key={status} value={status}>
            {statusLabel(status)}
          </option>
        ))}
      </select>
      {pending && (
        <>
          <button type="button" className="button button-primary button-small" onClick={() => commit(draft)}>
            Save
          </button>
          <button type="button" className="button button-small" onClick={() => setDraft(null)}>
            Cancel
          </button>
          <span id={hintId} className="hint">
            Enter saves, Escape cancels
          </span>
        </>
      )}
    </span>
  );
}
