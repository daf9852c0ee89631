import type { Decider, DomainEvent } from '../domain/shared/decider';
import { type CommandContext, type CommandResult, handleCommand } from '../platform/commands';
import { PendingViewError } from '#contract/errors';
import type { AppDeps } from './deps';

/**
 * Read-your-writes: waits until the read models (all, or those named) include `position`. When they
 * do not within the wait (a lease failover, a projection behind), the caller gets 202 with the
 * position (PendingViewError), never a stale view or a 404 for what it just wrote.
 */
export async function readYourWrites(deps: Pick<AppDeps, 'projections'>, position: number, names?: readonly string[]): Promise<void> {
  if (!(await deps.projections.waitFor(position, undefined, names))) throw new PendingViewError(position);
}

/**
 * Runs one command on its stream and answers once the caller's read models include its events
 * (read-your-writes), so what was just done can be read back by the routes and the bot alike.
 */
export async function runCommand<Command, Event extends DomainEvent, State>(
  deps: Pick<AppDeps, 'events' | 'projections'>,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
): Promise<CommandResult<State, Event>> {
  const result = await handleCommand(deps.events, streamId, decider, command, context);
  await readYourWrites(deps, result.position);
  return result;
}
