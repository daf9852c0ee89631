import type { DomainEvent } from '../shared/decider';

export const BOT_SETTINGS_STREAM = 'settings-bot';

export const BOT_MESSAGE_KEYS = [
  'welcomeMessage',
  'helpMessage',
  'ticketCreatedMessage',
  'ticketUpdatedMessage',
  'ticketClosedMessage',
  'agentAssignedMessage',
  'newMessageNotification',
  'cancelMessage',
  'invalidCommandMessage',
] as const;
export type BotMessageKey = (typeof BOT_MESSAGE_KEYS)[number];
export type BotMessages = Record<BotMessageKey, string>;

/** The variables a template may use (spec.md section 3), written as {name}. */
export const BOT_VARIABLES = ['ticketId', 'category', 'status', 'agentName', 'message'] as const;

export const DEFAULT_BOT_MESSAGES: BotMessages = {
  welcomeMessage:
    'Welcome to our support desk! 👋\nUse /ticket to open a support ticket, /mytickets to see your tickets, or /help for everything I can do.',
  helpMessage:
    'Here is what I can do:\n/ticket – open a new support ticket\n/mytickets – list your tickets\n/cancel – cancel what you are doing\nWhile a ticket is open, just write here and an agent will answer.',
  ticketCreatedMessage: 'Your ticket #{ticketId} in {category} has been created. An agent will reply here soon.',
  ticketUpdatedMessage: 'Ticket #{ticketId} is now {status}.',
  ticketClosedMessage: 'Ticket #{ticketId} has been closed. Thank you for contacting us! Use /ticket if you need anything else.',
  agentAssignedMessage: '{agentName} is now handling your ticket #{ticketId}.',
  newMessageNotification: 'New reply on ticket #{ticketId} from {agentName}:\n{message}',
  cancelMessage: 'Cancelled. Use /ticket whenever you want to open a ticket.',
  invalidCommandMessage: "Sorry, I don't know that command. Use /help to see what I can do.",
};

export type BotSettingsEvent =
  | DomainEvent<'BotMessagesUpdated', { changes: Partial<BotMessages>; previous: Partial<BotMessages> }>
  | DomainEvent<'BotMessagesReset', { previous: BotMessages }>
  | DomainEvent<'BotCommandsSynced', { commands: Array<{ command: string; description: string }> }>;

export type BotSettingsState = { messages: BotMessages };

export const initialState: BotSettingsState = { messages: DEFAULT_BOT_MESSAGES };

export function evolve(state: BotSettingsState, event: BotSettingsEvent): BotSettingsState {
  switch (event.type) {
    case 'BotMessagesUpdated':
      return { messages: { ...state.messages, ...event.data.changes } };
    case 'BotMessagesReset':
      return { messages: DEFAULT_BOT_MESSAGES };
    case 'BotCommandsSynced':
      return state;
  }
}

export type BotValues = Partial<Record<(typeof BOT_VARIABLES)[number], string | number | null>>;

/**
 * Fills a template's {variables}. A sentence whose variable has no value here (no open ticket, no agent
 * yet) is left out rather than shown with a hole ("handled by .") or raw braces; a line left empty by
 * that goes too. Should nothing be left, the variables are simply dropped.
 */
export function renderBotMessage(template: string, values: BotValues): string {
  const valueOf = (name: string) => {
    const value = (values as Record<string, string | number | null | undefined>)[name];
    return value === undefined || value === null || String(value).trim() === '' ? null : String(value);
  };
  const fill = (text: string) => text.replace(/(#?)\{(\w+)\}/g, (_whole, hash: string, name: string) => {
    const value = valueOf(name);
    return value === null ? '' : `${hash}${value}`;
  });
  const complete = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].every((match) => valueOf(match[1]!) !== null);
  const lines: string[] = [];
  for (const line of template.split('\n')) {
    if (complete(line)) {
      lines.push(fill(line));
      continue;
    }
    const kept = (line.match(/[^.!?]+(?:[.!?]+|$)\s*/g) ?? []).filter(complete).join('').trimEnd();
    if (kept.trim() !== '') lines.push(fill(kept));
  }
  const text = lines.join('\n').trim();
  return text !== '' ? text : fill(template).replace(/[ \t]+/g, ' ').trim();
}
