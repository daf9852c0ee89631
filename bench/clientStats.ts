import type { StatsSource } from '../src/projections/ticketStats';

/**
 * The dashboard statistics computed as a client-side dashboard computes them: from a fetched list of (at most
 * 1,000) tickets and the category list, in browser code. The benchmark's baseline for
 * `GET /api/tickets/stats`, which the server answers from running sums instead.
 */
interface ListedTicket extends StatsSource {
  ticketId: number;
  title: string;
}

interface ListedCategory {
  _id: string;
  name: string;
  color: string;
}

const minutes = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 60_000);
const average = (values: number[]) => (values.length > 0 ? Math.round(values.reduce((sum, value) => sum + value, 0) / values.length) : 0);

export function clientStatistics(tickets: ListedTicket[], categories: ListedCategory[], now = new Date()) {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const weekAgo = now.getTime() - 7 * 24 * 60 * 60 * 1000;
  const resolvedOn = (ticket: ListedTicket) =>
    ticket.status === 'resolved' || ticket.status === 'closed' ? (ticket.closedAt ?? ticket.resolvedAt ?? ticket.updatedAt) : null;
  const responded = tickets.filter((ticket) => ticket.assignedAgent && ticket.status !== 'open');
  const resolved = tickets.filter((ticket) => resolvedOn(ticket) !== null);
  return {
    totalTickets: tickets.length,
    openTickets: tickets.filter((ticket) => ticket.status === 'open').length,
    inProgressTickets: tickets.filter((ticket) => ticket.status === 'in_progress').length,
    resolvedTickets: tickets.filter((ticket) => ticket.status === 'resolved').length,
    avgResponseTime: average(responded.map((ticket) => Math.min(minutes(ticket.createdAt, ticket.updatedAt), 1440))),
    avgResolutionTime: average(resolved.map((ticket) => minutes(ticket.createdAt, resolvedOn(ticket)!))),
    todayTickets: tickets.filter((ticket) => Date.parse(ticket.createdAt) >= midnight.getTime()).length,
    weekTickets: tickets.filter((ticket) => Date.parse(ticket.createdAt) >= weekAgo).length,
    categoryStats: categories.map((category) => {
      const own = tickets.filter((ticket) => ticket.category._id === category._id);
      return {
        name: category.name,
        color: category.color,
        count: own.length,
        avgResolutionTime: average(own.filter((ticket) => resolvedOn(ticket) !== null).map((ticket) => minutes(ticket.createdAt, resolvedOn(ticket)!))),
      };
    }),
    recentActivity: tickets.slice(0, 10).map((ticket) => ({
      type: ticket.createdAt === ticket.updatedAt ? 'new' : 'updated',
      message: `Ticket #${ticket.ticketId}: ${ticket.title}`,
      time: ticket.updatedAt,
    })),
  };
}
