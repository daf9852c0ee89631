import { categoryStream } from '../../domain/category/category';
import { categoryDecider } from '../../domain/category/decide';
import type { CategoryChanges, CategoryInput } from '#contract/categories';
import { NotFoundError, ValidationError } from '#contract/errors';
import { type CommandContext, handleCommand } from '../../platform/commands';
import { CATEGORIES } from '../../projections/categories';
import { TEAMS, type TeamView } from '../../projections/teams';
import { runCommand, readYourWrites } from '../commands';
import type { AppDeps } from '../deps';

/** Category commands (admins); each answers once the read models include it. */

const NO_TEAM = 'Please choose an active team';

/** A category routes its new tickets only to a team that exists and is not archived (docs/teams.md). */
async function checkRouteTeam(deps: AppDeps, routeTeamId: string | null | undefined): Promise<void> {
  if (!routeTeamId) return;
  const team = await deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: routeTeamId });
  if (!team || team.archived) throw new ValidationError(NO_TEAM, [{ path: 'routeTeamId', message: NO_TEAM }]);
}

export async function createCategory(deps: AppDeps, input: CategoryInput, context: CommandContext): Promise<string> {
  await checkRouteTeam(deps, input.routeTeamId);
  const categoryId = deps.newId();
  await runCommand(deps, categoryStream(categoryId), categoryDecider, { type: 'CreateCategory', categoryId, input }, context);
  return categoryId;
}

export async function updateCategory(deps: AppDeps, categoryId: string, changes: CategoryChanges, context: CommandContext): Promise<void> {
  await checkRouteTeam(deps, changes.routeTeamId);
  await runCommand(deps, categoryStream(categoryId), categoryDecider, { type: 'UpdateCategory', categoryId, changes }, context);
}

export async function deleteCategory(deps: AppDeps, categoryId: string, context: CommandContext): Promise<void> {
  await runCommand(deps, categoryStream(categoryId), categoryDecider, { type: 'DeleteCategory', categoryId }, context);
}

/** Gives each category its place (all must exist, or none moves); answers once the read models include every move. */
export async function reorderCategories(deps: AppDeps, orders: Array<{ id: string; order: number }>, context: CommandContext): Promise<void> {
  for (const { id } of orders) {
    if (!(await deps.readStore.collection(CATEGORIES).findOne({ _id: id }))) throw new NotFoundError('Category');
  }
  let position = 0;
  for (const { id, order } of orders) {
    const result = await handleCommand(deps.events, categoryStream(id), categoryDecider, { type: 'ReorderCategory', categoryId: id, order }, context);
    position = Math.max(position, result.position);
  }
  await readYourWrites(deps, position);
}
