import { NotFoundError } from '#contract/errors';
import type { ViewChanges, ViewInput } from '#contract/views';
import { type ViewCommand, viewDecider } from '../../domain/view/decide';
import { type ViewActor, type ViewDetails, type ViewState, scopeKey, viewStream } from '../../domain/view/view';
import { type CommandContext, type Fence, handleCommand, loadState } from '../../platform/commands';
import { TEAMS, type TeamView } from '../../projections/teams';
import { teamIdsOf } from '../../projections/teams';
import { VIEWS, type ViewView } from '../../projections/views';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { type Claim, type Owners, release, withClaims } from '../reservations';

/** Saved views (docs/views.md): each a stream of its own; its name claimed within its scope, so no scope holds two alike. */

const nameClaim = (key: string, name: string): Claim => ({
  kind: 'view-name',
  value: `${key}:${name.toLowerCase()}`,
  conflictMessage: `A view named "${name}" already exists there`,
  conflictCode: 'VIEW_NAME_TAKEN',
});

const claimOf = (view: Pick<ViewDetails, 'scope' | 'teamId' | 'name'> & { ownerId: string }) => nameClaim(scopeKey(view), view.name);

const viewOwners: Owners<ViewState> = {
  stream: viewStream,
  decider: viewDecider,
  holds: (state, { value }) => state.status === 'active' && claimOf(state).value === value.toLowerCase(),
  gone: (state) => state.status === 'deleted',
};

/** The caller as views see them: with the teams they are in now. */
export async function viewActor(deps: AppDeps, context: Pick<CommandContext, 'actor'>): Promise<ViewActor> {
  const { userId, role } = context.actor;
  return { userId, role, teamIds: await teamIdsOf(deps.readStore, userId) };
}

async function lookups(deps: AppDeps, target: Pick<ViewDetails, 'scope' | 'teamId'>, ownerId: string) {
  const teamExists = target.teamId !== null && (await deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: target.teamId, archived: false })) !== null;
  const inScope =
    target.scope === 'everyone' ? { scope: 'everyone' } : target.scope === 'team' ? { scope: 'team', teamId: target.teamId } : { scope: 'personal', ownerId };
  return { teamExists, scopeCount: await deps.readStore.collection<ViewView>(VIEWS).count(inScope) };
}

const run = (deps: AppDeps, viewId: string, command: ViewCommand, context: CommandContext, fences: Fence[] = []) =>
  handleCommand(deps.events, viewStream(viewId), viewDecider, command, context, { fences });

async function settled(deps: AppDeps, viewId: string, position: number): Promise<ViewView> {
  await readYourWrites(deps, position);
  const found = await deps.readStore.collection<ViewView>(VIEWS).findOne({ _id: viewId });
  if (!found) throw new NotFoundError('View');
  return found;
}

export async function createView(deps: AppDeps, { teamId, ...input }: ViewInput, context: CommandContext, viewId = deps.newId()): Promise<ViewView> {
  const actor = await viewActor(deps, context);
  const details: ViewDetails = { ...input, teamId: teamId ?? null };
  const found = await lookups(deps, details, actor.userId);
  const claim = claimOf({ ...details, ownerId: actor.userId });
  const result = await withClaims(deps, viewId, [claim], context, viewOwners, (fences) =>
    run(deps, viewId, { type: 'CreateView', viewId, actor, details, ...found }, context, fences),
  );
  return settled(deps, viewId, result.position);
}

/** Renaming or moving a view claims its new name in its new scope first, and lets the old one go after. */
export async function updateView(deps: AppDeps, viewId: string, changes: ViewChanges, context: CommandContext): Promise<ViewView> {
  const actor = await viewActor(deps, context);
  const { state } = await loadState(deps.events, viewStream(viewId), viewDecider);
  if (state.status !== 'active') throw new NotFoundError('View');
  const next = { ...state, ...changes, teamId: changes.scope === undefined ? state.teamId : (changes.teamId ?? null) };
  const [before, after] = [claimOf(state), claimOf(next)];
  const moving = before.value !== after.value;
  const found = await lookups(deps, next, state.ownerId);
  const command: ViewCommand = { type: 'UpdateView', viewId, actor, changes: { ...changes, ...(changes.scope ? { teamId: next.teamId } : {}) }, ...found };
  const result = await withClaims(deps, viewId, moving ? [after] : [], context, viewOwners, (fences) => run(deps, viewId, command, context, fences));
  if (moving) await release(deps, viewId, before, context);
  return settled(deps, viewId, result.position);
}

export async function deleteView(deps: AppDeps, viewId: string, context: CommandContext): Promise<void> {
  const actor = await viewActor(deps, context);
  const { state } = await loadState(deps.events, viewStream(viewId), viewDecider);
  const result = await run(deps, viewId, { type: 'DeleteView', viewId, actor }, context);
  if (state.status === 'active') await release(deps, viewId, claimOf(state), context);
  await readYourWrites(deps, result.position);
}
