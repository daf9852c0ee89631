import type { DomainEvent } from '../shared/decider';
import { BOT_VARIABLES, type BotMessages, DEFAULT_BOT_MESSAGES } from '#contract/botSettings';

export const BOT_SETTINGS_STREAM = 'settings-bot';

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
  const fill = (text: string) =>
    text.replace(/(#?)\{(\w+)\}/g, (_whole, hash: string, name: string) => {
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
  return text !== ''
    ? text
    : fill(template)
        .replace(/[ \t]+/g, ' ')
        .trim();
}
