import type { DomainEvent } from '../shared/decider';
import type { BotCommandFields } from '#contract/botCommands';

export const botCommandStream = (commandId: string) => `botcommand-${commandId}`;

/** The commands every bot has; their names and handlers are locked and they can never be deleted. */
export const SYSTEM_COMMANDS: Array<BotCommandFields & { commandId: string }> = [
  {
    commandId: 'system-start',
    command: 'start',
    description: 'Start the bot and see what it can do',
    handler: 'start',
    response: null,
    order: 0,
    isActive: true,
  },
  { commandId: 'system-help', command: 'help', description: 'Show help and the available commands', handler: 'help', response: null, order: 1, isActive: true },
  { commandId: 'system-ticket', command: 'ticket', description: 'Create a new support ticket', handler: 'ticket', response: null, order: 2, isActive: true },
  { commandId: 'system-mytickets', command: 'mytickets', description: 'List your tickets', handler: 'mytickets', response: null, order: 3, isActive: true },
  { commandId: 'system-cancel', command: 'cancel', description: 'Cancel the current action', handler: 'cancel', response: null, order: 4, isActive: true },
  {
    commandId: 'system-search',
    command: 'search',
    description: 'Search your tickets: /search words',
    handler: 'search',
    response: null,
    order: 5,
    isActive: true,
  },
];

export type BotCommandEvent =
  | DomainEvent<'BotCommandCreated', { commandId: string; isSystem: boolean } & BotCommandFields>
  | DomainEvent<'BotCommandUpdated', { commandId: string; changes: Partial<BotCommandFields>; previous: Partial<BotCommandFields> }>
  | DomainEvent<'BotCommandDeleted', { commandId: string; command: string }>;

export type BotCommandState = { status: 'none' } | ({ status: 'existing'; commandId: string; isSystem: boolean } & BotCommandFields) | { status: 'deleted' };

export const initialState: BotCommandState = { status: 'none' };

export function evolve(state: BotCommandState, event: BotCommandEvent): BotCommandState {
  switch (event.type) {
    case 'BotCommandCreated':
      return { status: 'existing', ...event.data };
    case 'BotCommandUpdated':
      return state.status === 'existing' ? { ...state, ...event.data.changes } : state;
    case 'BotCommandDeleted':
      return { status: 'deleted' };
  }
}
