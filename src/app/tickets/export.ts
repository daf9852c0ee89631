import { UnprocessableError } from '#contract/errors';
import type { Filter, ReadStore } from '../../platform/readstore/port';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { NO_TEAM_NAME, csvCell, fullName } from '../reports';

/** More than this many tickets is refused: narrow the filters (an export is one answer, held in memory). */
const EXPORT_MAX = 10_000;
const BATCH = 1_000;

const COLUMNS = ['ticket', 'title', 'status', 'priority', 'category', 'customer', 'agent', 'team', 'tags', 'createdAt', 'updatedAt', 'resolvedAt'];

const line = (ticket: TicketView) =>
  [
    ticket.ticketId,
    ticket.title,
    ticket.status,
    ticket.priority,
    ticket.category.name,
    fullName(ticket.customer),
    ticket.assignedAgent ? fullName(ticket.assignedAgent) : '',
    ticket.team?.name ?? NO_TEAM_NAME,
    // Tags hold no spaces (docs/teams.md), so one space parts them in the cell.
    ticket.tags.join(' '),
    ticket.createdAt,
    ticket.updatedAt,
    ticket.resolvedAt,
  ]
    .map(csvCell)
    .join(',');

/** The tickets of a staff list's filters as CSV, newest first, read a batch at a time by the list's index. */
export async function ticketsCsv(store: ReadStore, filter: Filter): Promise<string> {
  const tickets = store.collection<TicketView>(TICKETS);
  const total = await tickets.count(filter);
  if (total > EXPORT_MAX) throw new UnprocessableError(`${total} tickets match; an export takes at most ${EXPORT_MAX}: narrow the filters`, 'EXPORT_TOO_LARGE');
  const lines = [COLUMNS.map(csvCell).join(',')];
  for (let skip = 0; skip < total; skip += BATCH)
    for (const ticket of await tickets.find(filter, { sort: { createdAt: -1, ticketId: -1 }, skip, limit: BATCH })) lines.push(line(ticket));
  return `${lines.join('\r\n')}\r\n`;
}
