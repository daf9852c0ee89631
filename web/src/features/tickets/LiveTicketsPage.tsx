import { type MouseEvent, useDeferredValue, useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { Banner, EmptyState, LoadingScreen, Modal, StatCard } from '../../components/ui';
import { DIFFERENT_CUSTOMERS_MESSAGE, isOpenStatus } from '#contract/tickets';
import { MergeConfirm } from './MergePanel';
import { formatDate, formatDateTime, fullName, timeAgo, waitedForShort } from '../../lib/format';
import { selectUser } from '../../entities/session/sessionSlice';
import { useStatsQuery } from '../../entities/ticket/api';
import { IN_PROGRESS_HINT, OPEN_HINT, openTickets } from '../../entities/ticket/counts';
import { useTicketsQuery } from './api';
import { useTeamsQuery } from '../../entities/team/api';
import { RatingCell, useRatingsOf } from '../../entities/satisfaction/RatingCell';
import { SlaChip, useSlaOf } from '../../entities/sla/SlaChip';
import type { TicketSla } from '#contract/sla';
import { PRIORITY_COLOR, rememberTicketOrder } from './display';
import { useShortcuts } from '../../lib/shortcuts';
import { askForReplyNotices, replyNoticesPending } from './needsMe';
import { PresenceMarker, useOthersOn } from './Presence';
import { StatusSelect } from './StatusSelect';
import type { Ticket, TicketListArgs, TicketListItem } from '../../entities/ticket/types';
import { useTicketActions } from './useTicketActions';
import { BulkBar, BulkResult } from './BulkBar';
import { downloadWithToken } from '../../components/AuthFile';
import type { BulkChange, SavedView } from '#contract/responses';
import { DEFAULT_VIEWS, type DefaultViewKey, VIEW_COLUMNS, type ViewColumn, type ViewFilters } from '#contract/views';
import { useViewCountsQuery, useViewsQuery } from './viewsApi';
import { SaveViewDialog } from './SaveViewDialog';

const ALL_COLUMNS: readonly ViewColumn[] = VIEW_COLUMNS;
const COLUMN_LABELS: Record<ViewColumn, string> = {
  number: '#',
  priority: 'Priority',
  status: 'Status',
  customer: 'Customer',
  assignee: 'Assignee',
  waiting: 'Waiting',
  sla: 'SLA',
  rating: 'Rating',
};

/** A view's filters as the list query takes them (the address and the server keep them as text). */
const argsOf = (filters: ViewFilters): Omit<TicketListArgs, 'limit'> => {
  const { waiting, ...rest } = filters;
  return { ...(rest as Omit<TicketListArgs, 'limit' | 'waiting'>), ...(waiting !== undefined ? { waiting: waiting === 'true' } : {}) };
};
/** The list's arguments as a view keeps them. */
const filtersOf = (args: Omit<TicketListArgs, 'limit' | 'sort'>): ViewFilters =>
  Object.fromEntries(Object.entries(args).flatMap(([name, value]) => (value === undefined || value === '' ? [] : [[name, String(value)]])));

/** The ten default views (docs/views.md): shown first, in this order, addressed as `?filter=<key>`. */
export const FILTERS = DEFAULT_VIEWS.map((view) => ({ key: view.key, label: view.label, args: argsOf(view.filters) }));
type FilterKey = DefaultViewKey;
const DEFAULT_FILTER: FilterKey = 'open';

export const SORTS = [
  { key: 'latest', label: 'Latest First' },
  { key: 'priority', label: 'Priority High' },
  { key: 'status', label: 'Status' },
  { key: 'waiting', label: 'Waiting Longest' },
  { key: 'due', label: 'Next Due' },
] as const;

const PAGE = 50;

/** Clicks on the card's own controls do their own thing; anywhere else opens the ticket. */
const fromControl = (event: MouseEvent) => (event.target as HTMLElement).closest('button, select, a, input, label') !== null;

/** The priority at a glance: its colour as a dot and its word (issue 25). */
export function PriorityBadge({ priority }: { priority: Ticket['priority'] }) {
  return (
    <span className={`badge priority-badge priority-${PRIORITY_COLOR[priority]}`}>
      <span className="priority-dot" aria-hidden="true" /> {priority}
    </span>
  );
}

/** An unassigned ticket's marker: quiet, not an alarm (issue 25); the words are docs/product.md's. */
const NeedsAssignment = () => (
  <span className="badge needs-assignment">
    <Icon name="user" size={12} /> NEEDS ASSIGNMENT
  </span>
);

/** Only work someone can still do needs an assignee: a resolved or closed ticket without one is finished, not waiting. */
const needsAssignment = (ticket: Ticket) => ticket.assignedAgent === null && isOpenStatus(ticket.status);

/** Messages the agent has not read yet on a ticket; nothing when there are none. */
export function UnreadBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="badge unread-badge">
      {count}
      <span className="visually-hidden"> unread</span>
    </span>
  );
}

/** Since when the customer waits for the desk, with the full date on hover; a dash when nobody waits. */
export function WaitingSince({ ticket, long = false }: { ticket: Ticket; long?: boolean }) {
  if (!ticket.waitingSince) return <span className="muted">{long ? 'Not waiting' : '—'}</span>;
  return (
    <time className="waiting-since" dateTime={ticket.waitingSince} title={`Waiting for us since ${formatDateTime(ticket.waitingSince)}`}>
      {waitedForShort(ticket.waitingSince)}
    </time>
  );
}

/** Cards or a compact table; the choice is remembered in this browser (issue 25). */
export const VIEW_KEY = 'liveTicketsView';
type View = 'cards' | 'table';
const storedView = (): View => {
  try {
    return localStorage.getItem(VIEW_KEY) === 'table' ? 'table' : 'cards';
  } catch {
    return 'cards';
  }
};

export function LiveTicketsTable({
  tickets,
  columns = ALL_COLUMNS,
  myId,
  onOpen,
  onAssign,
  onStatus,
  selected,
  onSelect,
  onSelectAll,
}: {
  tickets: TicketListItem[];
  /** The columns shown besides the title (a saved view keeps them). */
  columns?: readonly ViewColumn[];
  myId: string;
  onOpen: (ticket: Ticket) => void;
  onAssign: (ticket: Ticket) => void;
  onStatus: (ticket: Ticket, status: string) => void;
  /** The rows ticked (by ticket id): the tickets of a bulk change (docs/bulk.md), or the two to merge. */
  selected: ReadonlySet<string>;
  /** `range`: shift was held, so every row from the last one ticked takes the same choice. */
  onSelect: (ticket: TicketListItem, ticked: boolean, range: boolean) => void;
  onSelectAll: (ticked: boolean) => void;
}) {
  const shows = (column: ViewColumn) => columns.includes(column);
  const allTicked = tickets.length > 0 && tickets.every((ticket) => selected.has(ticket._id));
  // One line a ticket (issue 41): at 1440x900 at least 15 rows show, and the title takes the room left.
  const ratings = useRatingsOf(tickets.map((ticket) => ticket._id));
  const sla = useSlaOf(tickets);
  return (
    <div className="table-wrap card live-table-card">
      <table className="table live-table">
        <caption className="visually-hidden">Tickets</caption>
        <thead>
          <tr>
            <th scope="col" className="live-table-select">
              <input
                type="checkbox"
                checked={allTicked}
                ref={(box) => {
                  if (box) box.indeterminate = !allTicked && tickets.some((ticket) => selected.has(ticket._id));
                }}
                onChange={(event) => onSelectAll(event.target.checked)}
                aria-label="Select all tickets shown"
              />
            </th>
            {shows('number') && <th scope="col">#</th>}
            <th scope="col" className="live-table-title-head">
              Title
            </th>
            {shows('priority') && <th scope="col">Priority</th>}
            {shows('status') && <th scope="col">Status</th>}
            {shows('customer') && <th scope="col">Customer</th>}
            {shows('assignee') && <th scope="col">Assignee</th>}
            {shows('waiting') && <th scope="col">Waiting</th>}
            {shows('sla') && <th scope="col">SLA</th>}
            {shows('rating') && <th scope="col">Rating</th>}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tickets.map((ticket) => (
            <tr key={ticket._id} className={ticket.assignedAgent === null ? 'needs-attention-row' : ''}>
              <td className="live-table-select">
                <input
                  type="checkbox"
                  checked={selected.has(ticket._id)}
                  // A checkbox's change comes from its click, which says whether shift was held.
                  onChange={(event) => onSelect(ticket, event.target.checked, (event.nativeEvent as globalThis.MouseEvent).shiftKey === true)}
                  aria-label={`Select ticket #${ticket.ticketId}`}
                />
              </td>
              {shows('number') && <td className="ticket-number">#{ticket.ticketId}</td>}
              <td className="live-table-title">
                <span className="live-table-title-line">
                  <span className="color-dot" style={{ background: ticket.category.color }} title={ticket.category.name} aria-hidden="true" />
                  <a href={`/tickets/${ticket._id}`} title={ticket.title} onClick={(event) => (event.preventDefault(), onOpen(ticket))}>
                    {ticket.title}
                  </a>
                  <UnreadBadge count={ticket.unreadCount} />
                  {ticket.team && (
                    <span className="live-table-team" title={`Team: ${ticket.team.name}`}>
                      {ticket.team.name}
                    </span>
                  )}
                </span>
              </td>
              {shows('priority') && (
                <td>
                  <PriorityBadge priority={ticket.priority} />
                </td>
              )}
              {shows('status') && (
                <td>
                  <StatusSelect ticket={ticket} onChange={(status) => onStatus(ticket, status)} />
                </td>
              )}
              {shows('customer') && <td className="live-table-person">{fullName(ticket.customer)}</td>}
              {shows('assignee') && (
                <td className="live-table-person">
                  {ticket.assignedAgent ? ticket.assignedAgent.username : needsAssignment(ticket) ? <NeedsAssignment /> : '—'}
                </td>
              )}
              {shows('waiting') && (
                <td>
                  <WaitingSince ticket={ticket} />
                </td>
              )}
              {shows('sla') && (
                <td>
                  <SlaChip sla={sla.byTicket.get(ticket._id)} now={sla.now} />
                </td>
              )}
              {shows('rating') && (
                <td>
                  <RatingCell rating={ratings.get(ticket._id)} />
                </td>
              )}
              <td>
                {ticket.assignedAgent?._id !== myId && (
                  <button type="button" className="button button-primary button-small" onClick={() => onAssign(ticket)}>
                    Assign to Me<span className="visually-hidden"> (ticket #{ticket.ticketId})</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Merging two rows ticked in the table (docs/tickets.md, merging): the same confirmation as from a
 * ticket, where the agent picks the one that continues. Explained, not offered, unless exactly two
 * are ticked, and for an agent unless both are of one customer (the server refuses the rest too).
 */
export function MergeSelected({
  tickets,
  role,
  merging,
  onMerging,
  onMerged,
}: {
  tickets: TicketListItem[];
  role: string;
  merging: boolean;
  onMerging: (open: boolean) => void;
  onMerged: () => void;
}) {
  const pair = tickets.length === 2 ? ([tickets[0]!, tickets[1]!] as const) : null;
  const why = !pair
    ? `Tick two tickets to merge them (${tickets.length} ticked)`
    : role !== 'admin' && pair[0].customer._id !== pair[1].customer._id
      ? DIFFERENT_CUSTOMERS_MESSAGE
      : null;
  return (
    <div className="merge-selected" role="group" aria-label="Selected tickets">
      <button type="button" className="button button-secondary button-small" disabled={why !== null} onClick={() => onMerging(true)}>
        Merge
      </button>
      <span className="muted small">{why ?? `#${pair![0].ticketId} and #${pair![1].ticketId}: choose which continues`}</span>
      {merging && pair && (
        <Modal title="Merge tickets" onClose={() => onMerging(false)}>
          <MergeConfirm tickets={pair} choose onClose={() => onMerging(false)} onMerged={onMerged} />
        </Modal>
      )}
    </div>
  );
}

/** How many are ticked, and the step from "this page" to "every ticket the view matches". */
function SelectionLine({
  ticked,
  shown,
  total,
  allMatching,
  onAllMatching,
  onClear,
}: {
  ticked: number;
  shown: number;
  total: number;
  allMatching: boolean;
  onAllMatching: (all: boolean) => void;
  onClear: () => void;
}) {
  return (
    <p className="bulk-count">
      <strong>{allMatching ? `All ${total} matching tickets are selected.` : `${ticked} ${ticked === 1 ? 'ticket' : 'tickets'} selected.`}</strong>{' '}
      {!allMatching && ticked === shown && total > shown && (
        <button type="button" className="button button-link" onClick={() => onAllMatching(true)}>
          Select all {total} matching
        </button>
      )}{' '}
      <button type="button" className="button button-link" onClick={onClear}>
        Clear selection
      </button>
    </p>
  );
}

export function LiveTicketCard({
  ticket,
  myId,
  sla,
  now,
  onOpen,
  onAssign,
  onStatus,
}: {
  ticket: TicketListItem;
  myId: string;
  /** The ticket's service levels, and the server's time now (the chip ticks with it). */
  sla?: TicketSla;
  now?: number;
  onOpen: () => void;
  onAssign: () => void;
  onStatus: (status: string) => void;
}) {
  const others = useOthersOn(ticket._id, myId, true);
  const unassigned = needsAssignment(ticket);
  return (
    <article
      className={`live-card ${unassigned ? 'needs-attention' : `priority-card-${PRIORITY_COLOR[ticket.priority]}`}`}
      onClick={(event) => !fromControl(event) && onOpen()}
      // Keyboard (issue 41): a card is a stop of its own, and Enter opens it as a click does.
      tabIndex={0}
      onKeyDown={(event) => event.key === 'Enter' && event.target === event.currentTarget && onOpen()}
      aria-label={`Ticket #${ticket.ticketId}: ${ticket.title}`}
    >
      <header className="live-card-head">
        <span className="ticket-number">#{ticket.ticketId}</span>
        <UnreadBadge count={ticket.unreadCount} />
        <PriorityBadge priority={ticket.priority} />
        {unassigned && <NeedsAssignment />}
        <PresenceMarker viewers={others} />
        {sla && <SlaChip sla={sla} now={now ?? Date.now()} />}
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
        {ticket.team && (
          <div>
            <dt>Team</dt>
            <dd>{ticket.team.name}</dd>
          </div>
        )}
        {ticket.tags.length > 0 && (
          <div>
            <dt>Tags</dt>
            <dd>
              {ticket.tags.map((tag) => (
                <span key={tag} className="badge">
                  {tag}
                </span>
              ))}
            </dd>
          </div>
        )}
        <div>
          <dt>Last customer message</dt>
          <dd>
            {ticket.lastCustomerMessageAt ? (
              <time dateTime={ticket.lastCustomerMessageAt} title={formatDateTime(ticket.lastCustomerMessageAt)}>
                {timeAgo(ticket.lastCustomerMessageAt)}
              </time>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Waiting for us</dt>
          <dd>
            <WaitingSince ticket={ticket} long />
          </dd>
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
  // The page opens on the open work (issue 50): finished tickets are one click away under All.
  const filterKey: FilterKey = FILTERS.some((filter) => filter.key === params.get('filter')) ? (params.get('filter') as FilterKey) : DEFAULT_FILTER;
  // docs/views.md: the defaults, then the saved views the server lets this user see, each with its live count.
  const views = useViewsQuery().data?.views ?? [];
  const counts = useViewCountsQuery().data?.counts ?? {};
  const saved = views.find((candidate) => !candidate.isDefault && candidate._id === params.get('view')) ?? null;
  const [editing, setEditing] = useState<SavedView | 'new' | null>(null);
  // docs/teams.md: every ticket, "My teams" (`mine`) or one team's, with whichever view above.
  const team = params.get('team') ?? saved?.filters.team ?? '';
  const tag = params.get('tag') ?? saved?.filters.tag ?? '';
  const [typedTag, setTypedTag] = useState(tag);
  const teams = useTeamsQuery().data?.teams ?? [];
  // The sort is in the address too (`?sort=`), so a reload keeps it; a saved view brings its own when chosen.
  const sortInAddress = SORTS.find((option) => option.key === params.get('sort'))?.key as TicketListArgs['sort'] | undefined;
  const [sort, setSort] = useState<TicketListArgs['sort']>(sortInAddress ?? 'latest');
  const chooseSort = (next: TicketListArgs['sort']) => {
    setSort(next);
    const rest = Object.fromEntries([...params.entries()].filter(([name]) => name !== 'sort'));
    setParams({ ...rest, ...(next && next !== 'latest' ? { sort: next } : {}) }, { replace: true });
  };
  const [columns, setColumns] = useState<readonly ViewColumn[]>(ALL_COLUMNS);
  // A saved view brings its sort and columns when chosen (or changed); the toolbar may change them after.
  const appliedView = saved ? `${saved._id}@${saved.updatedAt}` : null;
  useEffect(() => {
    if (!saved) return;
    if (!sortInAddress) setSort(saved.sort);
    setColumns(saved.columns);
    setTypedTag(params.get('tag') ?? saved.filters.tag ?? '');
  }, [appliedView]);
  const [limit, setLimit] = useState(PAGE);
  const [search, setSearch] = useState('');
  const q = useDeferredValue(search.trim());
  const [notices, setNotices] = useState(replyNoticesPending);
  const [view, setView] = useState<View>(storedView);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  /** "Select all N matching": the bulk change takes the view's filters rather than the ticked rows. */
  const [allMatching, setAllMatching] = useState(false);
  const [anchor, setAnchor] = useState<string | null>(null);
  const [bulkDone, setBulkDone] = useState<BulkChange | null>(null);
  const [merging, setMerging] = useState(false);
  const chooseView = (next: View) => {
    setView(next);
    try {
      localStorage.setItem(VIEW_KEY, next);
    } catch {
      // private mode: the choice lasts this visit only
    }
  };
  const filterArgs = saved ? argsOf(saved.filters) : FILTERS.find((candidate) => candidate.key === filterKey)!.args;
  // Lists picked or ordered by due times follow the clock, not only the pushes: they are fetched again every half minute.
  const byClock = 'sla' in filterArgs || sort === 'due';
  const [exportFailure, setExportFailure] = useState<string | null>(null);
  const listArgs = { ...filterArgs, ...(q ? { q } : {}), ...(team ? { team } : {}), ...(tag ? { tag } : {}) };
  const list = useTicketsQuery({ ...listArgs, sort, limit }, { pollingInterval: byClock ? 30_000 : 0 });
  const shown = list.data?.tickets;
  // Another view is other tickets: what was ticked in the last one is let go.
  const viewKey = JSON.stringify(listArgs);
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
  }, [viewKey]);
  const sla = useSlaOf(view === 'cards' ? (shown ?? []) : []);
  useEffect(() => {
    if (shown) rememberTicketOrder(shown.map((ticket) => ticket._id));
  }, [shown]);
  // j and k move through the tickets (cards, or the table's title links); Enter opens the focused one.
  const move = (step: 1 | -1) => {
    const stops = [...document.querySelectorAll<HTMLElement>('.live-card, .live-table-title a')];
    const at = stops.findIndex((stop) => stop === document.activeElement);
    stops[at === -1 ? (step === 1 ? 0 : stops.length - 1) : Math.min(stops.length - 1, Math.max(0, at + step))]?.focus();
  };
  useShortcuts({ j: () => move(1), k: () => move(-1) });
  const stats = useStatsQuery();
  const actions = useTicketActions();
  const navigate = useNavigate();

  /** A default view by its key, a saved one by its id (`?view=`); the team and tag picked stay unless a saved view brings its own. */
  const choose = (key: string, teamKey = team, tagKey = tag) => {
    setLimit(PAGE);
    const isSaved = !FILTERS.some((option) => option.key === key);
    const kept = { ...(teamKey ? { team: teamKey } : {}), ...(tagKey ? { tag: tagKey } : {}) };
    if (isSaved) return setParams({ view: key, ...(teamKey !== team || tagKey !== tag ? kept : {}) });
    setParams({ ...(key === DEFAULT_FILTER ? {} : { filter: key }), ...kept, ...(sort && sort !== 'latest' ? { sort } : {}) });
  };
  const activeKey = saved ? saved._id : filterKey;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Live Tickets</h1>
          <p className="muted">Every ticket as it happens</p>
        </div>
        <div className="page-header-actions">
          {notices && (
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => {
                askForReplyNotices();
                setNotices(false);
              }}
            >
              <Icon name="alert" size={14} /> Notify me of replies
            </button>
          )}
          <input
            type="search"
            className="search-input"
            data-search
            aria-label="Search tickets"
            placeholder="Search tickets ( / )"
            value={search}
            maxLength={200}
            onChange={(event) => {
              setLimit(PAGE);
              setSearch(event.target.value);
            }}
          />
          <button
            type="button"
            className="button button-ghost button-small"
            title="The tickets of this view as CSV, with their team and tags"
            onClick={() =>
              downloadWithToken(`/api/tickets/export.csv?${new URLSearchParams(filtersOf(listArgs) as Record<string, string>)}`, 'tickets.csv').catch(
                (failure: Error) => setExportFailure(failure.message),
              )
            }
          >
            Export CSV
          </button>
        </div>
      </header>
      {exportFailure && <Banner kind="error">{exportFailure}</Banner>}
      <div className="stat-grid stat-grid-3">
        <StatCard label="Open" value={stats.data ? openTickets(stats.data) : '–'} hint={OPEN_HINT} icon="alert" tone="danger" />
        <StatCard label="Unassigned" value={stats.data?.unassigned ?? '–'} hint="Open tickets nobody is assigned to" icon="user" tone="warning" />
        <StatCard label="In Progress" value={stats.data?.inProgress ?? '–'} hint={IN_PROGRESS_HINT} icon="clock" tone="primary" />
      </div>
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Filter tickets">
          {(views.length > 0 ? views : FILTERS.map((option) => ({ _id: option.key, name: option.label, isDefault: true, scope: 'everyone' }))).map((option) => (
            <button
              key={option._id}
              type="button"
              className={option._id === activeKey ? 'active' : ''}
              aria-pressed={option._id === activeKey}
              title={
                option.isDefault
                  ? undefined
                  : option.scope === 'personal'
                    ? 'Only you see this view'
                    : option.scope === 'team'
                      ? 'Shared with a team'
                      : 'Shared with everyone'
              }
              // A default view keeps the Team and Tag picked in the toolbar, not those a saved view brought.
              onClick={() => choose(option._id, option.isDefault ? (params.get('team') ?? '') : '', option.isDefault ? (params.get('tag') ?? '') : '')}
            >
              {option.name}
              {counts[option._id] !== undefined && <span className="view-count">{counts[option._id]}</span>}
            </button>
          ))}
        </div>
        <div className="view-actions">
          <button type="button" className="button button-secondary button-small" onClick={() => setEditing('new')}>
            Save view
          </button>
          {saved && (
            <button type="button" className="button button-ghost button-small" onClick={() => setEditing(saved)}>
              Edit view<span className="visually-hidden"> {saved.name}</span>
            </button>
          )}
        </div>
        <div className="toolbar-end">
          <label className="sort-control">
            <span>Team</span>
            <select value={team} onChange={(e) => choose(activeKey, e.target.value)} aria-label="Filter by team">
              <option value="">All Teams</option>
              <option value="mine">My Teams</option>
              {teams.map((option) => (
                <option key={option._id} value={option._id}>
                  {option.name}
                </option>
              ))}
            </select>
          </label>
          <form
            className="sort-control"
            onSubmit={(event) => {
              event.preventDefault();
              choose(activeKey, team, typedTag.trim().toLowerCase());
            }}
          >
            <span>Tag</span>
            <input
              type="search"
              aria-label="Filter by tag"
              placeholder="Any tag"
              value={typedTag}
              maxLength={30}
              onChange={(e) => {
                setTypedTag(e.target.value);
                if (e.target.value === '') choose(activeKey, team, '');
              }}
            />
          </form>
          <div className="segmented" role="group" aria-label="Show tickets as">
            {(['cards', 'table'] as const).map((option) => (
              <button key={option} type="button" className={option === view ? 'active' : ''} aria-pressed={option === view} onClick={() => chooseView(option)}>
                <Icon name={option === 'cards' ? 'dashboard' : 'live'} size={14} /> {option === 'cards' ? 'Cards' : 'Table'}
              </button>
            ))}
          </div>
          {view === 'table' && (
            <details className="columns-picker">
              <summary>Columns</summary>
              {ALL_COLUMNS.map((column) => (
                <label key={column}>
                  <input
                    type="checkbox"
                    checked={columns.includes(column)}
                    onChange={(event) =>
                      setColumns((shown) =>
                        event.target.checked ? ALL_COLUMNS.filter((c) => c === column || shown.includes(c)) : shown.filter((c) => c !== column),
                      )
                    }
                  />{' '}
                  {COLUMN_LABELS[column]}
                </label>
              ))}
            </details>
          )}
          <label className="sort-control">
            <span>Sort</span>
            <select value={sort} onChange={(e) => chooseSort(e.target.value as TicketListArgs['sort'])} aria-label="Sort tickets">
              {SORTS.map((option) => (
                <option key={option.key} value={option.key}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {editing && (
        <SaveViewDialog
          editing={editing === 'new' ? null : editing}
          current={{
            filters: filtersOf({ ...filterArgs, ...(team ? { team } : {}), ...(tag ? { tag } : {}), ...(q ? { q } : {}) }),
            sort: sort ?? 'latest',
            columns: [...columns],
          }}
          teams={me.role === 'admin' ? teams : teams.filter((option) => option.members.some((member) => member._id === me._id))}
          isAdmin={me.role === 'admin'}
          onClose={() => setEditing(null)}
          onSaved={(savedView) => {
            setEditing(null);
            if (savedView) choose(savedView._id, '', '');
            else choose(DEFAULT_FILTER, '', '');
          }}
        />
      )}
      {actions.takeOverDialog}
      {view === 'table' && list.data && (
        <MergeSelected
          tickets={list.data.tickets.filter((ticket) => selected.has(ticket._id))}
          role={me.role}
          merging={merging}
          onMerging={setMerging}
          onMerged={() => setSelected(new Set())}
        />
      )}
      {view === 'table' && list.data && selected.size > 0 && (
        <div className="bulk-selection">
          <SelectionLine
            ticked={selected.size}
            shown={list.data.tickets.length}
            total={list.data.pagination.total}
            allMatching={allMatching}
            onAllMatching={setAllMatching}
            onClear={() => {
              setSelected(new Set());
              setAllMatching(false);
            }}
          />
          <BulkBar
            target={allMatching ? { filter: filtersOf(listArgs), total: list.data.pagination.total } : { tickets: [...selected] }}
            count={allMatching ? list.data.pagination.total : selected.size}
            onDone={(bulk) => {
              setBulkDone(bulk);
              setSelected(new Set(bulk.tickets.filter((ticket) => ticket.outcome === 'failed').map((ticket) => ticket._id)));
              setAllMatching(false);
            }}
          />
        </div>
      )}
      {bulkDone && <BulkResult bulk={bulkDone} onClose={() => setBulkDone(null)} />}
      {list.error && <Banner kind="error">{errorMessage(list.error, 'Failed to load tickets')}</Banner>}
      {list.isLoading ? (
        <LoadingScreen text="Loading tickets..." />
      ) : list.data && list.data.tickets.length > 0 ? (
        <>
          {view === 'table' ? (
            <LiveTicketsTable
              tickets={list.data.tickets}
              columns={columns}
              myId={me._id}
              onOpen={(ticket) => void navigate(`/tickets/${ticket._id}`)}
              onAssign={(ticket) => void actions.assignToMe(ticket)}
              onStatus={(ticket, status) => void actions.changeStatus(ticket, status)}
              selected={selected}
              onSelect={(ticket, ticked, range) => {
                const ids = list.data!.tickets.map((row) => row._id);
                const [from, to] = [ids.indexOf(anchor ?? ''), ids.indexOf(ticket._id)];
                const chosen = range && from !== -1 ? ids.slice(Math.min(from, to), Math.max(from, to) + 1) : [ticket._id];
                setAnchor(ticket._id);
                setAllMatching(false);
                setSelected((before) => {
                  const after = new Set(before);
                  for (const id of chosen) {
                    if (ticked) after.add(id);
                    else after.delete(id);
                  }
                  return after;
                });
              }}
              onSelectAll={(ticked) => {
                setAllMatching(false);
                setSelected(new Set(ticked ? list.data!.tickets.map((ticket) => ticket._id) : []));
              }}
            />
          ) : (
            <div className="live-grid">
              {list.data.tickets.map((ticket) => (
                <LiveTicketCard
                  key={ticket._id}
                  ticket={ticket}
                  myId={me._id}
                  sla={sla.byTicket.get(ticket._id)}
                  now={sla.now}
                  onOpen={() => void navigate(`/tickets/${ticket._id}`)}
                  onAssign={() => void actions.assignToMe(ticket)}
                  onStatus={(status) => void actions.changeStatus(ticket, status)}
                />
              ))}
            </div>
          )}
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
