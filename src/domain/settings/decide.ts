import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { type SystemSettingsEvent, type SystemSettingsState, evolve, initialState } from './settings';
import type { SystemSettings } from '#contract/settings';

export type SystemSettingsCommand = { type: 'UpdateSystemSettings'; changes: Partial<SystemSettings> };

/** Records only the settings that change, each with its earlier value; nothing when nothing changes. */
export function decide(command: SystemSettingsCommand, state: SystemSettingsState): SystemSettingsEvent[] {
  const changed = changedFields(state, command.changes);
  return changed ? [{ type: 'SystemSettingsUpdated', data: changed }] : [];
}

export const systemSettingsDecider: Decider<SystemSettingsCommand, SystemSettingsEvent, SystemSettingsState> = { decide, evolve, initialState };
