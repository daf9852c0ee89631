import { changedFields } from '../shared/changes';
import { normalise } from '#contract/botCommands';
import { ConflictError, ForbiddenError, NotFoundError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { type BotCommandEvent, type BotCommandState, evolve, initialState } from './botCommand';
import type { BotCommandFields } from '#contract/botCommands';

export type BotCommandCommand =
  | { type: 'CreateBotCommand'; commandId: string; fields: BotCommandFields; isSystem: boolean }
  | { type: 'UpdateBotCommand'; commandId: string; changes: Partial<BotCommandFields> }
  | { type: 'DeleteBotCommand'; commandId: string };

const existing = (state: BotCommandState) => {
  if (state.status !== 'existing') throw new NotFoundError('Bot command');
  return state;
};

export function decide(command: BotCommandCommand, state: BotCommandState): BotCommandEvent[] {
  switch (command.type) {
    case 'CreateBotCommand': {
      if (state.status !== 'none') throw new ConflictError('Bot command already exists', 'BOT_COMMAND_EXISTS');
      return [{ type: 'BotCommandCreated', data: { commandId: command.commandId, isSystem: command.isSystem, ...normalise(command.fields) } }];
    }
    case 'UpdateBotCommand': {
      const current = existing(state);
      const { commandId: _id, isSystem, status: _status, ...fields } = current;
      if (isSystem && command.changes.command !== undefined && command.changes.command !== current.command) {
        throw new ForbiddenError('The name of a system command cannot be changed', 'SYSTEM_COMMAND_LOCKED');
      }
      if (isSystem && command.changes.handler !== undefined && command.changes.handler !== current.handler) {
        throw new ForbiddenError('The handler of a system command cannot be changed', 'SYSTEM_COMMAND_LOCKED');
      }
      const changed = changedFields<BotCommandFields>(fields, normalise({ ...fields, ...command.changes }));
      return changed ? [{ type: 'BotCommandUpdated', data: { commandId: command.commandId, ...changed } }] : [];
    }
    case 'DeleteBotCommand': {
      const current = existing(state);
      if (current.isSystem) throw new ForbiddenError('System commands cannot be deleted', 'SYSTEM_COMMAND_LOCKED');
      return [{ type: 'BotCommandDeleted', data: { commandId: command.commandId, command: current.command } }];
    }
  }
}

export const botCommandDecider: Decider<BotCommandCommand, BotCommandEvent, BotCommandState> = { decide, evolve, initialState };
