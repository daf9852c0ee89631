import { type MouseEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { Badge, Banner, EmptyState, LoadingScreen, StatCard } from '../../components/ui';
import { formatDate, fullName } from '../../lib/format';
import { selectUser } from '../auth/sessionSlice';
import { useStatsQuery, useTicketsQuery } from './api';
import { PRIORITY_COLOR } from './display';
import { PresenceMarker, useOthersOn } from './Presence';
import { StatusSelect } from './StatusSelect';
import type { Ticket, TicketListArgs } from './types';
import { useTicketActions } from './useTicketActions';

export const FILTERS = [
  { key: 'all', label: 'All', args: {} },
  { key: 'unassigned', label: 'Unassigned', args: { assigned: 'unassigned' } },
  { key: 'mine', label: 'My Tickets', args: { assigned: 'me' } },
  { key: 'open', label: 'Open', args: { status: 'open' } },
  { key: 'in_progress', label: 'In Progress', args: { status: 'in_progress' } },
] as const satisfies ReadonlyArray<{ key: string; label: string; args: Omit<TicketListArgs, 'limit'> }>;
type FilterKey = (typeof FILTERS)[number]['key'];

export const SORTS = [
  { key: 'latest', label: 'Latest First' },
  { key: 'priority', label: 'Priority High' },
  { key: 'status', label: 'Status' },
] as const;

const PAGE = 50;

/** Clicks on the card's own controls do their own thing; anywhere else opens the ticket. */
const fromControl = (event: MouseEvent) => (event.target as HTMLElement).closest('button, select, a, input, label') !== null;

export function LiveTicketCard({ ticket, myId, onOpen, onAssign, onStatus }: { ticket: Ticket; myId: string; onOpen: () => void; onAssign: () => void; onStatus: (status: string) => void }) {
  const others = useOthersOn(ticket._id, myId, true);
  const unassigned = ticket.assignedAgent === null;
  return (
    <article
      className={`live-card ${unassigned ? 'needs-attention' : `priority-card-${PRIORITY_COLOR[ticket.priority]}`}`}
      onClick={(event) => !fromControl(event) && onOpen()}
      aria-label={`Ticket #${ticket.ticketId}: ${ticket.title}`}
    >
      <header className="live-card-head">
        <span className="ticket-number">#{ticket.ticketId}</span>
        <span className={`badge priority-badge priority-${PRIORITY_COLOR[ticket.priority]}`}>{ticket.priority}</span>
        {unassigned && <Badge variant="destructive">NEEDS ASSIGNMENT</Badge>}
        <PresenceMarker viewers={others} />
        <time className="muted" dateTime={ticket.createdAt}>
          {formatDate(ticket.createdAt)}
        </time>
      </header>
      <h3>{ticket.title}</h3>
      <p className="clamp-2 muted">{ticket.description}</p>
      <dl className="live-card-meta">
        <div>
          <dt>Customer</dt>
          <dd>{fullName(ticket.customer)}</dd>
        </div>
        <div>
          <dt>Category</dt>
          <dd>
            <span className="color-dot" style={{ background: ticket.category.color }} aria-hidden="true" /> {ticket.category.name}
          </dd>
        </div>
        <div>
          <dt>Assignee</dt>
          <dd>{ticket.assignedAgent ? ticket.assignedAgent.username : 'Unassigned'}</dd>
        </div>
      </dl>
      <footer className="live-card-actions">
        <StatusSelect ticket={ticket} onChange={onStatus} />
        {ticket.assignedAgent?._id !== myId && (
          <button type="button" className="button button-primary button-small" onClick={onAssign}>
            Assign to Me
          </button>
        )}
        <button type="button" className="button button-ghost button-small" onClick={onOpen} aria-label={`View ticket #${ticket.ticketId}`}>
          <Icon name="eye" /> View
        </button>
      </footer>
    </article>
  );
}

export function LiveTicketsPage() {
  const me = useAppSelector(selectUser)!;
  const [params, setParams] = useSearchParams();
  const filterKey: FilterKey = FILTERS.some((filter) => filter.key === params.get('filter')) ? (params.get('filter') as FilterKey) : 'all';
  const [sort, setSort] = useState<TicketListArgs['sort']>('latest');
  const [limit, setLimit] = useState(PAGE);
  const filter = FILTERS.find((candidate) => candidate.key === filterKey)!;
  const list = useTicketsQuery({ ...filter.args, sort, limit });
  const stats = useStatsQuery();
  const actions = useTicketActions();
  const navigate = useNavigate();

  const choose = (key: FilterKey) => {
    setLimit(PAGE);
    setParams(key === 'all' ? {} : { filter: key });
  };
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Live Tickets</h1>
          <p className="muted">Every ticket as it happens</p>
        </div>
      </header>
      <div className="stat-grid stat-grid-3">
        <StatCard label="Open" value={stats.data?.open ?? '–'} icon="alert" tone="danger" />
        <StatCard label="Unassigned" value={stats.data?.unassigned ?? '–'} icon="user" tone="warning" />
        <StatCard label="In Progress" value={stats.data?.inProgress ?? '–'} icon="clock" tone="primary" />
      </div>
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Filter tickets">
          {FILTERS.map((option) => (
            <button key={option.key} type="button" className={option.key === filterKey ? 'active' : ''} aria-pressed={option.key === filterKey} onClick={() => choose(option.key)}>
              {option.label}
            </button>
          ))}
        </div>
        <label className="sort-control">
          <span>Sort</span>
          <select value={sort} onChange={(e) => setSort(e.target.value as TicketListArgs['sort'])} aria-label="Sort tickets">
            {SORTS.map((option) => (
              <option key={option.key} value={option.key}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error && <Banner kind="error">{errorMessage(list.error, 'Failed to load tickets')}</Banner>}
      {list.isLoading ? (
        <LoadingScreen text="Loading tickets..." />
      ) : list.data && list.data.tickets.length > 0 ? (
        <>
          <div className="live-grid">
            {list.data.tickets.map((ticket) => (
              <LiveTicketCard
                key={ticket._id}
                ticket={ticket}
                myId={me._id}
                onOpen={() => void navigate(`/tickets/${ticket._id}`)}
                onAssign={() => void actions.assignToMe(ticket)}
                onStatus={(status) => void actions.changeStatus(ticket, status)}
              />
            ))}
          </div>
          {list.data.pagination.total > list.data.tickets.length && (
            <div className="load-more">
              <span className="muted">
                Showing {list.data.tickets.length} of {list.data.pagination.total}
              </span>
              <button type="button" className="button button-secondary" onClick={() => setLimit((current) => current + PAGE)} disabled={list.isFetching}>
                Show more
              </button>
            </div>
          )}
        </>
      ) : (
        !list.error && <EmptyState title="No tickets found">There are no tickets matching your current filter</EmptyState>
      )}
    </div>
  );
}
