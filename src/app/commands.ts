import type { Decider, DomainEvent } from '../domain/shared/decider';
import { type CommandContext, type CommandResult, handleCommand } from '../platform/commands';
import type { AppDeps } from './deps';

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
  await deps.projections.waitFor(result.position);
  return result;
}
