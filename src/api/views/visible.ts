import { DEFAULT_VIEWS, VIEW_COLUMNS, type ViewFilters, viewListFilters } from '#contract/views';
import type { SavedView } from '#contract/responses';
import type { AppDeps } from '../../app/deps';
import type { ViewActor } from '../../domain/view/view';
import type { Filter } from '../../platform/readstore/port';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { VIEWS, type ViewView } from '../../projections/views';
import type { AuthUser } from '../http/auth';
import { listFilter } from '../tickets/listFilter';

/** The ten default views as saved views: shared with everyone, first, in their order (docs/views.md). */
const DEFAULT_SAVED_VIEWS: SavedView[] = DEFAULT_VIEWS.map((view) => ({
  _id: view.key,
  name: view.label,
  scope: 'everyone',
  teamId: null,
  filters: view.filters,
  sort: 'latest',
  columns: [...VIEW_COLUMNS],
  isDefault: true,
  ownerId: null,
  createdAt: null,
  updatedAt: null,
}));

export const isDefaultView = (viewId: string) => DEFAULT_VIEWS.some((view) => view.key === viewId);

export const toSaved = ({ _revision: _r, ...view }: ViewView): SavedView => ({ ...view, isDefault: false });

/** Which stored views an actor sees: everyone's, their teams' (every team's for an admin) and their own. */
const visibleTo = (actor: ViewActor): Filter => ({
  $or: [
    { scope: 'everyone' },
    { scope: 'personal', ownerId: actor.userId },
    actor.role === 'admin' ? { scope: 'team' } : { scope: 'team', teamId: { $in: [...actor.teamIds] } },
  ],
});

const SCOPE_ORDER = { everyone: 0, team: 1, personal: 2 } as const;

/** The views Live Tickets lists for the actor: the defaults, then everyone's, the teams' and their own, each by name. */
export async function visibleViews(deps: AppDeps, actor: ViewActor): Promise<SavedView[]> {
  const stored = await deps.readStore.collection<ViewView>(VIEWS).find(visibleTo(actor));
  stored.sort((a, b) => SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope] || a.name.localeCompare(b.name));
  return [...DEFAULT_SAVED_VIEWS, ...stored.map(toSaved)];
}

/** A count that depends on who asks: "me", "my teams", and words (which match notes only for those who see them). */
export const countsPerViewer = (filters: ViewFilters) => filters.assigned === 'me' || filters.team === 'mine' || filters.q !== undefined;

/** How many tickets the list would show the viewer under these filters: the list's own filter, counted on the tickets' indexes. */
export async function countView(deps: AppDeps, filters: ViewFilters, viewer: Pick<AuthUser, 'id' | 'role' | 'token'>): Promise<number> {
  const filter = await listFilter(deps, viewListFilters.parse(filters), viewer);
  return deps.readStore.collection<TicketView>(TICKETS).count(filter);
}
