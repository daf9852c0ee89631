import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import type { CommandContext } from '../../platform/commands';
import { tagUses, tagsProjection } from '../../projections/tags';
import { TICKETS, type TicketView, ticketsProjection } from '../../projections/tickets';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { actorOf, runTicketCommand } from '../tickets/service';

/** Tickets changed at once, as a bulk change does (docs/bulk.md): room left for everyone else's appends. */
const CONCURRENCY = 8;
/** Tickets read from the read model per round. */
const ROUND = 500;

export interface TagChange {
  from: string;
  to: string;
  merged: boolean;
  /** Tickets whose tag changed. */
  tickets: number;
}

/**
 * An admin renames a tag (`merged` false: `to` must not be in use) or merges it into another in use
 * (docs/teams.md): every ticket carrying `from` gets its own `TicketTagRenamed` with the admin as
 * actor, decided on its stream, so its history, time travel and rebuilds read the change as any other.
 * Rounds go on until the read model shows no ticket with `from` (one tagged meanwhile is taken too).
 */
export async function renameTag(deps: AppDeps, from: string, to: string, merged: boolean, context: CommandContext): Promise<TagChange> {
  const path = merged ? 'into' : 'to';
  if (from === to) throw new ValidationError('Choose a different tag', [{ path, message: 'Choose a different tag' }]);
  if ((await tagUses(deps.readStore, from)) === 0) throw new NotFoundError('Tag');
  const inUse = (await tagUses(deps.readStore, to)) > 0;
  if (!merged && inUse) throw new ConflictError(`The tag "${to}" is in use: merge into it instead`, 'TAG_EXISTS');
  if (merged && !inUse) throw new ValidationError('Merge into a tag in use', [{ path, message: 'Merge into a tag in use' }]);
  const actor = actorOf(context);
  let changed = 0;
  let position = 0;
  for (;;) {
    const carrying = await deps.readStore.collection<TicketView>(TICKETS).find({ tags: from }, { limit: ROUND, sort: { _id: 1 } });
    let applied = 0;
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < carrying.length; index = next++) {
        const ticketId = carrying[index]!._id;
        const result = await runTicketCommand(deps, ticketId, { type: 'RenameTicketTag', ticketId, actor, from, to, merged }, context);
        if (result.events.length > 0) applied += 1;
        position = Math.max(position, result.position);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, carrying.length) }, worker));
    changed += applied;
    if (applied === 0) break;
    await readYourWrites(deps, position, [ticketsProjection.name, tagsProjection.name]);
  }
  await readYourWrites(deps, position, [ticketsProjection.name, tagsProjection.name]);
  return { from, to, merged, tickets: changed };
}
