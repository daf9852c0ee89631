import { useEffect, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { isStaff } from '#contract/users';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { Badge, Banner, Card, EmptyState, LoadingScreen, StatCard } from '../../components/ui';
import { formatDate, formatDuration, plural, timeAgo } from '../../lib/format';
import { type User, selectUser } from '../../entities/session/sessionSlice';
import { useStatsQuery } from '../../entities/ticket/api';
import { FINISHED_HINT, IN_PROGRESS_HINT, OPEN_HINT, finishedTickets, openTickets } from '../../entities/ticket/counts';
import { useTicketsQuery } from './api';
import { CreateTicketDialog } from './CreateTicketDialog';
import { RatingsAwaiting } from '../../entities/satisfaction/RatingsAwaiting';
import { SatisfactionCard } from '../../entities/satisfaction/SatisfactionCard';
import { SlaCard } from '../../entities/sla/SlaCard';
import { useSetupStatusQuery } from '../../entities/desk/api';
import { SetupChecklist, setupSteps, useSetupChecklistHidden } from '../../entities/desk/SetupChecklist';
import { statusLabel, statusVariant } from './display';
import type { Ticket, TicketStats } from '../../entities/ticket/types';

/** docs/product.md section 9: the dashboard list shows 5; the live recent list keeps 10. */
export const DASHBOARD_SHOWN = 5;
const RECENT_KEPT = 10;

export function StatsGrid({ stats }: { stats: TicketStats }) {
  return (
    <div className="stat-grid">
      <StatCard label="Total Tickets" value={stats.total} icon="ticket" />
      <StatCard label="Open Tickets" value={openTickets(stats)} hint={OPEN_HINT} icon="alert" tone="danger" />
      <StatCard label="In Progress" value={stats.inProgress} hint={IN_PROGRESS_HINT} icon="clock" tone="primary" />
      <StatCard label="Resolved" value={finishedTickets(stats)} hint={FINISHED_HINT} icon="check" tone="success" />
      <StatCard label="Response Time" value={formatDuration(stats.avgResponseTime)} hint="Average response time" icon="bolt" />
      <StatCard label="Resolution Time" value={formatDuration(stats.avgResolutionTime)} hint="Average resolution time" icon="clock" />
      <StatCard label="Today's Tickets" value={stats.todayTickets} hint="Created today" icon="plus" />
      <StatCard label="This Week" value={stats.weekTickets} hint="Created this week" icon="dashboard" />
    </div>
  );
}

export function CategoriesCard({ stats }: { stats: TicketStats }) {
  const top = [...stats.categoryStats].sort((a, b) => b.count - a.count).slice(0, 6);
  return (
    <Card title="Categories">
      {top.length === 0 ? (
        <p className="muted">No categories yet.</p>
      ) : (
        <ul className="category-stats">
          {top.map((category) => (
            <li key={category._id}>
              <span className="color-dot" style={{ background: category.color }} aria-hidden="true" />
              <span className="category-name">{category.name}</span>
              <span className="muted">
                {plural(category.count, 'ticket')} · {formatDuration(category.avgResolutionTime)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** Per team (docs/teams.md): tickets, still open, first-response and resolution times; the tickets in no team as "No team". */
export function TeamsCard({ stats }: { stats: TicketStats }) {
  if (stats.teamStats.length === 0) return null;
  return (
    <Card title="Teams">
      <div className="sla-scroll" tabIndex={0} role="region" aria-label="Tickets by team">
        <table className="table satisfaction-table">
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Tickets</th>
              <th scope="col">Open</th>
              <th scope="col">First response</th>
              <th scope="col">Resolution</th>
            </tr>
          </thead>
          <tbody>
            {stats.teamStats.map((team) => (
              <tr key={team._id ?? 'none'}>
                <td>{team.name}</td>
                <td>{team.count}</td>
                <td>{team.open}</td>
                <td>{formatDuration(team.avgFirstResponseTime)}</td>
                <td>{formatDuration(team.avgResolutionTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

/** The tags most tickets carry now (docs/teams.md). */
export function TopTagsCard({ stats }: { stats: TicketStats }) {
  return (
    <Card title="Top Tags">
      {stats.topTags.length === 0 ? (
        <p className="muted">No tags yet.</p>
      ) : (
        <ul className="category-stats">
          {stats.topTags.map(({ tag, uses }) => (
            <li key={tag}>
              <Link to={`/live-tickets?tag=${encodeURIComponent(tag)}`} className="category-name">
                {tag}
              </Link>
              <span className="muted">{plural(uses, 'ticket')}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function RecentActivityCard({ stats }: { stats: TicketStats }) {
  const entries = stats.recentActivity.slice(0, 5);
  return (
    <Card title="Recent Activity">
      {entries.length === 0 ? (
        <p className="muted">No activity yet.</p>
      ) : (
        <ul className="activity">
          {entries.map((entry) => (
            <li key={`${entry.ticket._id}-${entry.time}`}>
              <span className={`activity-dot activity-${entry.type}`} aria-hidden="true" />
              <Link to={`/tickets/${entry.ticket._id}`}>{entry.message}</Link>
              <time className="muted" dateTime={entry.time}>
                {timeAgo(entry.time)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** An empty desk says how work will reach it (issue 50). */
export const HOW_TICKETS_ARRIVE = 'Customers open tickets on this site or through the Telegram bot; each appears here and in Live Tickets as it arrives.';

/** Typing in the customer's search box waits this long before the list asks the server. */
const LIST_SEARCH_DEBOUNCE_MS = 200;

/**
 * A customer's own tickets by words they wrote or read in them (the engine of the desk's search,
 * docs/search.md): the list's first 5 matches, newest first, in place of the latest 5.
 */
function useOwnTicketSearch() {
  const [text, setText] = useState('');
  const [words, setWords] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setWords(text.trim()), LIST_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const found = useTicketsQuery({ q: words, limit: DASHBOARD_SHOWN, sort: 'latest' }, { skip: !words });
  return { text, setText, words, found };
}

export function TicketListCard({ user, tickets, onNewTicket }: { user: User; tickets: Ticket[]; onNewTicket: () => void }) {
  const navigate = useNavigate();
  const staff = isStaff(user.role);
  const searchId = useId();
  const search = useOwnTicketSearch();
  const searching = !staff && search.words !== '';
  const shown = searching ? (search.found.data?.tickets ?? []) : tickets;
  const actions = staff ? (
    <Link to="/live-tickets" className="button button-secondary">
      View All Tickets
    </Link>
  ) : (
    <>
      <label htmlFor={searchId} className="visually-hidden">
        Search your tickets
      </label>
      <input
        id={searchId}
        className="ticket-list-search"
        type="search"
        value={search.text}
        maxLength={200}
        placeholder="Search tickets..."
        onChange={(event) => search.setText(event.target.value)}
      />
      <button type="button" className="button button-secondary" onClick={onNewTicket}>
        <Icon name="plus" /> New Ticket
      </button>
    </>
  );
  const empty = searching ? (
    search.found.isFetching ? (
      <p className="muted">Searching...</p>
    ) : search.found.isError ? (
      <p className="muted">Search failed. Try again.</p>
    ) : (
      <EmptyState title="No tickets match your search">Try other words, or fewer.</EmptyState>
    )
  ) : (
    <EmptyState title="No tickets yet">
      {staff ? (
        <>
          <span>No tickets have been created yet.</span>
          <br />
          <span>{HOW_TICKETS_ARRIVE}</span>
        </>
      ) : (
        "You haven't created any support tickets yet."
      )}
    </EmptyState>
  );
  return (
    <Card title={staff ? 'Recent Tickets' : 'Your Tickets'} actions={actions} className="ticket-list-card">
      {shown.length === 0 ? (
        empty
      ) : (
        <ul className="ticket-rows" aria-label={searching ? 'Your tickets matching the search' : undefined}>
          {shown.slice(0, DASHBOARD_SHOWN).map((ticket) => (
            <li key={ticket._id}>
              <button type="button" className="ticket-row" onClick={() => void navigate(`/tickets/${ticket._id}`)}>
                <Badge variant="outline" className="ticket-number">
                  #{ticket.ticketId}
                </Badge>
                <span className="ticket-row-title">{ticket.title}</span>
                <Badge variant={statusVariant(ticket.status)}>{statusLabel(ticket.status)}</Badge>
                <time className="muted" dateTime={ticket.createdAt}>
                  {formatDate(ticket.createdAt)}
                </time>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function DashboardPage() {
  const user = useAppSelector(selectUser)!;
  const staff = isStaff(user.role);
  const list = useTicketsQuery({ limit: RECENT_KEPT, sort: 'latest' });
  const stats = useStatsQuery(undefined, { skip: !staff });
  const [setupHidden, hideSetup] = useSetupChecklistHidden();
  const setup = useSetupStatusQuery(undefined, { skip: user.role !== 'admin' || setupHidden });
  const [creating, setCreating] = useState(false);

  if (list.isLoading || (staff && stats.isLoading)) return <LoadingScreen text="Loading dashboard..." />;
  const failure = list.error ?? stats.error;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Welcome back, {user.firstName}!</h1>
          <p className="muted">Here&apos;s what&apos;s happening with your support system today</p>
        </div>
        {!staff && (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            <Icon name="plus" /> Create New Ticket
          </button>
        )}
      </header>
      {failure && <Banner kind="error">{errorMessage(failure, 'Failed to load dashboard data')}</Banner>}
      {setup.data && !setupHidden && (setup.data.tickets === 0 || setupSteps(setup.data).some((step) => !step.done)) && (
        <SetupChecklist setup={setup.data} onHide={hideSetup} />
      )}
      {staff && stats.data && <StatsGrid stats={stats.data} />}
      {!staff && <RatingsAwaiting />}
      <div className={staff ? 'dashboard-grid' : ''}>
        {/* A failed load shows its error above, never the empty state under it (issue 25). */}
        {!list.error && <TicketListCard user={user} tickets={list.data?.tickets ?? []} onNewTicket={() => setCreating(true)} />}
        {staff && stats.data && (
          <div className="dashboard-side">
            <CategoriesCard stats={stats.data} />
            <TopTagsCard stats={stats.data} />
            <RecentActivityCard stats={stats.data} />
          </div>
        )}
      </div>
      {/* The reports hold tables: they take the page's width, never a side column's (issue 50). */}
      {staff && stats.data && (
        <div className="dashboard-reports">
          <TeamsCard stats={stats.data} />
          <SatisfactionCard />
          <SlaCard />
        </div>
      )}
      {creating && <CreateTicketDialog onClose={() => setCreating(false)} />}
    </div>
  );
}
