import type { ReadStore } from '../../platform/readstore/port';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { NO_TEAM_NAME } from '../../app/reports';
import { tagSuggestions } from '../../projections/tags';
import { TEAMS, type TeamView } from '../../projections/teams';
import { NO_TEAM_KEY, type TicketStatsDoc, average, createdSince, loadTicketStats, localMidnight } from '../../projections/ticketStats';
import { TICKETS, type TicketView } from '../../projections/tickets';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** docs/product.md section 9: recent activity is built from the 10 newest tickets. */
const RECENT = 10;
/** The dashboard's Tags card. */
const TOP_TAGS = 10;

/** Per category: tickets in all, still open, and the average resolution time; busiest first. */
function categoryStatsOf(stats: TicketStatsDoc, categories: CategoryView[]) {
  return categories
    .map(({ _id, name, color }) => {
      const sums = stats.categories[_id];
      return {
        _id,
        name,
        color,
        count: sums?.count ?? 0,
        open: sums?.open ?? 0,
        avgResolutionTime: average({ sum: sums?.resolutionSum ?? 0, count: sums?.resolutionCount ?? 0 }),
      };
    })
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

/**
 * Per team, from the same running sums: tickets, still open, the average first response (creation to
 * staff's first public reply) and resolution time; the tickets in no team as "No team"; busiest first. An archived
 * team is listed while tickets still count under it.
 */
function teamStatsOf(stats: TicketStatsDoc, teams: TeamView[]) {
  const rows = [
    ...teams.map((team) => ({ _id: team._id as string | null, name: team.name, archived: team.archived, sums: stats.teams[team._id] })),
    { _id: null, name: NO_TEAM_NAME, archived: false, sums: stats.teams[NO_TEAM_KEY] },
  ];
  return rows
    .filter(({ archived, sums, _id }) => (sums?.count ?? 0) > 0 || (!archived && _id !== null))
    .map(({ _id, name, sums }) => ({
      _id,
      name,
      count: sums?.count ?? 0,
      open: sums?.open ?? 0,
      avgFirstResponseTime: average({ sum: sums?.firstResponseSum ?? 0, count: sums?.firstResponseCount ?? 0 }),
      avgResolutionTime: average({ sum: sums?.resolutionSum ?? 0, count: sums?.resolutionCount ?? 0 }),
    }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

const loadCategories = (store: ReadStore) => store.collection<CategoryView>(CATEGORIES).find({}, { sort: { order: 1, name: 1 } });

/**
 * `GET /tickets/stats`: counts and averages come from the running sums of the tickets projection,
 * recent activity from the newest tickets by index, so no request walks every ticket.
 */
export async function ticketStatistics(store: ReadStore, now: Date, timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone) {
  const [stats, categories, teams, topTags, newest, todayTickets, weekTickets] = await Promise.all([
    loadTicketStats(store, { created: false }),
    loadCategories(store),
    store.collection<TeamView>(TEAMS).find({}),
    tagSuggestions(store, '', TOP_TAGS),
    store.collection<TicketView>(TICKETS).find({}, { sort: { createdAt: -1, ticketId: -1 }, limit: RECENT }),
    createdSince(store, localMidnight(now, timeZone)),
    createdSince(store, new Date(now.getTime() - WEEK_MS)),
  ]);
  const count = (status: keyof typeof stats.byStatus) => stats.byStatus[status] ?? 0;
  const recentActivity = newest
    .map((ticket) => {
      const isNew = ticket.updatedAt === ticket.createdAt;
      return {
        type: isNew ? ('new' as const) : ('updated' as const),
        message: isNew
          ? `New ticket #${ticket.ticketId}: ${ticket.title}`
          : `Ticket #${ticket.ticketId} updated: ${ticket.title} (${ticket.status.replace(/_/g, ' ')})`,
        time: ticket.updatedAt,
        ticket: { _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title, status: ticket.status },
      };
    })
    .sort((a, b) => b.time.localeCompare(a.time));
  return {
    total: Object.values(stats.byStatus).reduce((sum, value) => sum + (value ?? 0), 0),
    open: count('open'),
    inProgress: count('in_progress'),
    pendingCustomer: count('pending_customer'),
    resolved: count('resolved'),
    closed: count('closed'),
    unassigned: stats.unassigned,
    todayTickets,
    weekTickets,
    avgResponseTime: average(stats.response),
    avgResolutionTime: average(stats.resolution),
    categoryStats: categoryStatsOf(stats, categories),
    teamStats: teamStatsOf(stats, teams),
    topTags,
    recentActivity,
  };
}

/** `GET /categories/stats`. */
export async function categoryStatistics(store: ReadStore) {
  const [stats, categories] = await Promise.all([loadTicketStats(store, { created: false }), loadCategories(store)]);
  return categoryStatsOf(stats, categories);
}
