import type { DomainEvent } from '../shared/decider';
import { DEFAULT_SYSTEM_SETTINGS, type SystemSettings } from '#contract/settings';

/** One stream holds every change to the system settings, with who made it and the earlier values. */
export const SYSTEM_SETTINGS_STREAM = 'settings-system';

export type SystemSettingsEvent = DomainEvent<'SystemSettingsUpdated', { changes: Partial<SystemSettings>; previous: Partial<SystemSettings> }>;

export type SystemSettingsState = SystemSettings;

export const initialState: SystemSettingsState = DEFAULT_SYSTEM_SETTINGS;

export const evolve = (state: SystemSettingsState, event: SystemSettingsEvent): SystemSettingsState => ({ ...state, ...event.data.changes });

/**
 * The token as responses show it: the bot id and the last four characters, enough to recognise it.
 * Sending this exact text back means "keep the stored token".
 */
export function maskToken(token: string): string {
  if (token === '') return '';
  const [botId = ''] = token.split(':', 1);
  return `${botId}:${'*'.repeat(8)}${token.slice(-4)}`;
}
