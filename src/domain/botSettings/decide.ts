import type { Decider } from '../shared/decider';
import { type BotMessages, type BotSettingsEvent, type BotSettingsState, DEFAULT_BOT_MESSAGES, evolve, initialState } from './botSettings';

export type BotSettingsCommand =
  | { type: 'UpdateBotMessages'; changes: Partial<BotMessages> }
  | { type: 'ResetBotMessages' }
  | { type: 'RecordBotCommandsSync'; commands: Array<{ command: string; description: string }> };

export function decide(command: BotSettingsCommand, state: BotSettingsState): BotSettingsEvent[] {
  switch (command.type) {
    case 'UpdateBotMessages': {
      const changes: Partial<BotMessages> = {};
      const previous: Partial<BotMessages> = {};
      for (const [key, value] of Object.entries(command.changes) as Array<[keyof BotMessages, string | undefined]>) {
        if (value === undefined || value === state.messages[key]) continue;
        changes[key] = value;
        previous[key] = state.messages[key];
      }
      return Object.keys(changes).length === 0 ? [] : [{ type: 'BotMessagesUpdated', data: { changes, previous } }];
    }
    case 'ResetBotMessages': {
      const unchanged = (Object.keys(DEFAULT_BOT_MESSAGES) as Array<keyof BotMessages>).every((key) => state.messages[key] === DEFAULT_BOT_MESSAGES[key]);
      return unchanged ? [] : [{ type: 'BotMessagesReset', data: { previous: state.messages } }];
    }
    case 'RecordBotCommandsSync':
      return [{ type: 'BotCommandsSynced', data: { commands: command.commands } }];
  }
}

export const botSettingsDecider: Decider<BotSettingsCommand, BotSettingsEvent, BotSettingsState> = { decide, evolve, initialState };
