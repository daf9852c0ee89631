import { type CannedState, cannedStream } from '../../domain/canned/canned';
import { readYourWrites } from '../commands';
import { type CannedCommand, cannedDecider } from '../../domain/canned/decide';
import type { CannedChanges, CannedInput } from '#contract/canned';
import { NotFoundError, ValidationError } from '#contract/errors';
import type { Role } from '#contract/users';
import { type CommandContext, type Fence, handleCommand, loadState } from '../../platform/commands';
import { CANNED, type CannedView } from '../../projections/canned';
import { CATEGORIES } from '../../projections/categories';
import type { AppDeps } from '../deps';
import { type Claim, type Owners, release, withClaims } from '../reservations';

/** Canned-message commands; each answers once the read models include it (read-your-writes). */

const shortcodeClaim = (shortcode: string): Claim => ({
  kind: 'shortcode',
  value: shortcode,
  conflictMessage: `A canned message with the shortcode #${shortcode} already exists`,
  conflictCode: 'SHORTCODE_TAKEN',
});

const loadCanned = (deps: AppDeps, id: string) => loadState(deps.events, cannedStream(id), cannedDecider);

/** A message holds the shortcode it has; deleting it lets the shortcode go. */
const cannedOwners: Owners<CannedState> = {
  stream: cannedStream,
  decider: cannedDecider,
  holds: (state, { value }) => state.status === 'active' && state.shortcode.toLowerCase() === value.toLowerCase(),
  gone: (state) => state.status === 'deleted',
};

const run = (deps: AppDeps, id: string, command: CannedCommand, context: CommandContext, fences: Fence[] = []) =>
  handleCommand(deps.events, cannedStream(id), cannedDecider, command, context, { fences });

async function settled(deps: AppDeps, id: string, position: number): Promise<CannedView> {
  await readYourWrites(deps, position);
  const found = await deps.readStore.collection<CannedView>(CANNED).findOne({ _id: id });
  if (!found) throw new NotFoundError('Canned message');
  return found;
}

async function checkCategory(deps: AppDeps, categoryId: string | null | undefined): Promise<void> {
  if (!categoryId) return;
  if (!(await deps.readStore.collection(CATEGORIES).findOne({ _id: categoryId }))) {
    throw new ValidationError('The chosen category does not exist', [{ path: 'category', message: 'The chosen category does not exist' }]);
  }
}

/** Creates a message after claiming its shortcode, so two messages can never share one. */
export async function createCanned(deps: AppDeps, { category, ...input }: CannedInput, context: CommandContext, cannedId = deps.newId()): Promise<CannedView> {
  await checkCategory(deps, category);
  const result = await withClaims(deps, cannedId, [shortcodeClaim(input.shortcode)], context, cannedOwners, (fences) =>
    run(
      deps,
      cannedId,
      { type: 'CreateCannedMessage', cannedId, createdBy: context.actor.userId, details: { ...input, categoryId: category } },
      context,
      fences,
    ),
  );
  return settled(deps, cannedId, result.position);
}

/** Changes a message; a new shortcode is claimed first and the old one released after. */
export async function updateCanned(deps: AppDeps, cannedId: string, { category, ...changes }: CannedChanges, context: CommandContext): Promise<CannedView> {
  await checkCategory(deps, category);
  const { state } = await loadCanned(deps, cannedId);
  if (state.status !== 'active') throw new NotFoundError('Canned message');
  const moving = changes.shortcode !== undefined && changes.shortcode !== state.shortcode;
  const claims = moving ? [shortcodeClaim(changes.shortcode!)] : [];
  const result = await withClaims(deps, cannedId, claims, context, cannedOwners, (fences) =>
    run(
      deps,
      cannedId,
      { type: 'UpdateCannedMessage', cannedId, changes: { ...changes, ...(category !== undefined ? { categoryId: category } : {}) } },
      context,
      fences,
    ),
  );
  if (moving) await release(deps, cannedId, shortcodeClaim(state.shortcode), context);
  return settled(deps, cannedId, result.position);
}

export async function useCanned(deps: AppDeps, cannedId: string, context: CommandContext): Promise<CannedView> {
  const result = await run(deps, cannedId, { type: 'UseCannedMessage', cannedId, usedBy: context.actor.userId }, context);
  return settled(deps, cannedId, result.position);
}

/** Deletes a message and lets its shortcode go. */
export async function deleteCanned(deps: AppDeps, cannedId: string, context: CommandContext): Promise<void> {
  const result = await run(deps, cannedId, { type: 'DeleteCannedMessage', cannedId, actorRole: context.actor.role as Role }, context);
  for (const event of result.events) {
    if (event.type === 'CannedMessageDeleted') await release(deps, cannedId, shortcodeClaim(event.data.shortcode), context);
  }
  await readYourWrites(deps, result.position);
}
