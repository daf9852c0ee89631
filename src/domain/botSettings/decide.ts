import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { type BotSettingsEvent, type BotSettingsState, evolve, initialState } from './botSettings';
import { type BotMessages, DEFAULT_BOT_MESSAGES } from '#contract/botSettings';

export type BotSettingsCommand =
  | { type: 'UpdateBotMessages'; changes: Partial<BotMessages> }
  | { type: 'ResetBotMessages' }
  | { type: 'RecordBotCommandsSync'; commands: Array<{ command: string; description: string }> };

export function decide(command: BotSettingsCommand, state: BotSettingsState): BotSettingsEvent[] {
  switch (command.type) {
    case 'UpdateBotMessages': {
      const changed = changedFields(state.messages, command.changes);
      return changed ? [{ type: 'BotMessagesUpdated', data: changed }] : [];
    }
    case 'ResetBotMessages': {
      return changedFields(state.messages, DEFAULT_BOT_MESSAGES) ? [{ type: 'BotMessagesReset', data: { previous: state.messages } }] : [];
    }
    case 'RecordBotCommandsSync':
      return [{ type: 'BotCommandsSynced', data: { commands: command.commands } }];
  }
}

export const botSettingsDecider: Decider<BotSettingsCommand, BotSettingsEvent, BotSettingsState> = { decide, evolve, initialState };
