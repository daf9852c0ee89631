import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '#contract/errors';
import { DEFAULT_VIEWS, VIEWS_PER_SCOPE, type ViewScope } from '#contract/views';
import { type LiveView, type ViewActor, type ViewDetails, type ViewEvent, type ViewState, evolve, initialState, seesView } from './view';

/**
 * `teamExists`: whether the team the view would be shared with is a live team (looked up by the
 * handler); `scopeCount`: how many views the target scope already holds.
 */
interface Lookups {
  teamExists: boolean;
  scopeCount: number;
}

export type ViewCommand =
  | ({ type: 'CreateView'; viewId: string; actor: ViewActor; details: ViewDetails } & Lookups)
  | ({ type: 'UpdateView'; viewId: string; actor: ViewActor; changes: Partial<ViewDetails> } & Lookups)
  | { type: 'DeleteView'; viewId: string; actor: ViewActor };

/** Anyone on staff keeps personal views; a team's members (or an admin) share with the team; only admins share with everyone. */
function refuseScope(scope: ViewScope, teamId: string | null, actor: ViewActor, ownerId = actor.userId): void {
  if (scope === 'personal' && ownerId !== actor.userId) throw new ForbiddenError("Only a view's owner can make it personal");
  if (scope === 'everyone' && actor.role !== 'admin') throw new ForbiddenError('Only admins can share views with everyone');
  if (scope === 'team' && actor.role !== 'admin' && !actor.teamIds.includes(teamId!))
    throw new ForbiddenError('Only members of the team (or admins) can share views with it');
}

function checkTarget(details: ViewDetails, lookups: Lookups): void {
  if (details.scope === 'team' && !lookups.teamExists) throw new UnprocessableError('The team does not exist or was deleted', 'UNKNOWN_TEAM');
  if (details.scope === 'everyone' && DEFAULT_VIEWS.some((view) => view.label.toLowerCase() === details.name.toLowerCase()))
    throw new ConflictError(`"${details.name}" is the name of a default view`, 'VIEW_NAME_TAKEN');
}

function checkRoom(lookups: Lookups): void {
  if (lookups.scopeCount >= VIEWS_PER_SCOPE) throw new UnprocessableError(`A scope holds at most ${VIEWS_PER_SCOPE} views; delete one first`, 'VIEW_LIMIT');
}

/** Unseen views do not exist for the actor (404); seen ones may be changed by whoever may share in their scope. */
function editable(state: ViewState, actor: ViewActor): LiveView {
  if (state.status !== 'active' || !seesView(state, actor)) throw new NotFoundError('View');
  refuseScope(state.scope, state.teamId, actor, state.ownerId);
  return state;
}

export function decide(command: ViewCommand, state: ViewState): ViewEvent[] {
  switch (command.type) {
    case 'CreateView': {
      if (state.status !== 'none') throw new ConflictError('View already exists', 'VIEW_EXISTS');
      const { details, actor } = command;
      refuseScope(details.scope, details.teamId, actor);
      checkTarget(details, command);
      checkRoom(command);
      return [{ type: 'ViewCreated', data: { viewId: command.viewId, ownerId: actor.userId, ...details } }];
    }
    case 'UpdateView': {
      const { status: _status, viewId, ownerId, ...current } = editable(state, command.actor);
      const changed = changedFields<ViewDetails>(current, command.changes);
      if (!changed) return [];
      const next = { ...current, ...changed.changes };
      const moving = next.scope !== current.scope || next.teamId !== current.teamId;
      if (moving) refuseScope(next.scope, next.teamId, command.actor, ownerId);
      if (moving || changed.changes.name !== undefined) checkTarget(next, command);
      if (moving) checkRoom(command);
      return [{ type: 'ViewUpdated', data: { viewId, ...changed } }];
    }
    case 'DeleteView': {
      const { viewId, name, scope, teamId } = editable(state, command.actor);
      return [{ type: 'ViewDeleted', data: { viewId, name, scope, teamId } }];
    }
  }
}

export const viewDecider: Decider<ViewCommand, ViewEvent, ViewState> = { decide, evolve, initialState };
