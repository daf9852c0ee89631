import type { TicketStats } from './types';

/**
 * "Open" means one thing everywhere (docs/product.md section 4): open, in progress or pending customer, as
 * the sidebar, the Open filter and the one-open-ticket rule count them. What is not open is
 * finished (resolved or closed), so the two add up to the total.
 */
export const openTickets = (stats: TicketStats) => stats.open + stats.inProgress + stats.pendingCustomer;
export const finishedTickets = (stats: TicketStats) => stats.resolved + stats.closed;

/** The hints the cards carry, so a reader knows what each number counts. */
export const OPEN_HINT = 'Open, in progress or waiting on customer';
export const IN_PROGRESS_HINT = 'Of the open tickets';
export const FINISHED_HINT = 'Resolved or closed';
