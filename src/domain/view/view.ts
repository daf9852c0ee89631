import type { DomainEvent } from '../shared/decider';
import type { ViewColumn, ViewFilters, ViewScope, ViewSort } from '#contract/views';

export const viewStream = (viewId: string) => `view-${viewId}`;

export interface ViewDetails {
  name: string;
  scope: ViewScope;
  /** The team a team view is shared with; null for the other scopes. */
  teamId: string | null;
  filters: ViewFilters;
  sort: ViewSort;
  columns: ViewColumn[];
}

export type ViewEvent =
  | DomainEvent<'ViewCreated', { viewId: string; ownerId: string } & ViewDetails>
  | DomainEvent<'ViewUpdated', { viewId: string; changes: Partial<ViewDetails>; previous: Partial<ViewDetails> }>
  | DomainEvent<'ViewDeleted', { viewId: string; name: string; scope: ViewScope; teamId: string | null }>;

export type LiveView = { status: 'active'; viewId: string; ownerId: string } & ViewDetails;
export type ViewState = { status: 'none' } | LiveView | { status: 'deleted'; viewId: string };

export const initialState: ViewState = { status: 'none' };

export function evolve(state: ViewState, event: ViewEvent): ViewState {
  switch (event.type) {
    case 'ViewCreated': {
      const { viewId, ownerId, name, scope, teamId, filters, sort, columns } = event.data;
      return { status: 'active', viewId, ownerId, name, scope, teamId, filters, sort, columns };
    }
    case 'ViewUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes } : state;
    case 'ViewDeleted':
      return { status: 'deleted', viewId: event.data.viewId };
  }
}

/** Who looks at views: their id, role and the teams they are in now. */
export interface ViewActor {
  userId: string;
  role: string;
  teamIds: readonly string[];
}

/** A personal view is its owner's; a team view its members' (and the admins', who look after every team); everyone's is everyone's. */
export const seesView = (view: Pick<LiveView, 'scope' | 'teamId' | 'ownerId'>, actor: ViewActor): boolean =>
  view.scope === 'everyone' || (view.scope === 'personal' ? view.ownerId === actor.userId : actor.role === 'admin' || actor.teamIds.includes(view.teamId!));

/** The key names are unique under: one owner's personal views, one team's, or everyone's. */
export const scopeKey = (view: Pick<LiveView, 'scope' | 'teamId' | 'ownerId'>) =>
  view.scope === 'everyone' ? 'everyone' : view.scope === 'team' ? `team:${view.teamId}` : `personal:${view.ownerId}`;
