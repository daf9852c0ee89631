import { changedFields } from '../shared/changes';
import type { Decider, DomainEvent } from '../shared/decider';
import { DEFAULT_SATISFACTION_SETTINGS, type SatisfactionSettings } from '#contract/satisfaction';

/** Every change to the survey's settings, with who made it and the earlier values. */
export const SATISFACTION_SETTINGS_STREAM = 'settings-satisfaction';

export type SatisfactionSettingsEvent = DomainEvent<
  'SatisfactionSettingsUpdated',
  { changes: Partial<SatisfactionSettings>; previous: Partial<SatisfactionSettings> }
>;

export type SatisfactionSettingsCommand = { type: 'UpdateSatisfactionSettings'; changes: Partial<SatisfactionSettings> };

const evolve = (state: SatisfactionSettings, event: SatisfactionSettingsEvent): SatisfactionSettings => ({ ...state, ...event.data.changes });

/** Records only the settings that change; the input was validated against the contract schema. */
function decide(command: SatisfactionSettingsCommand, state: SatisfactionSettings): SatisfactionSettingsEvent[] {
  const changed = changedFields(state, command.changes);
  return changed ? [{ type: 'SatisfactionSettingsUpdated', data: changed }] : [];
}

export const satisfactionSettingsDecider: Decider<SatisfactionSettingsCommand, SatisfactionSettingsEvent, SatisfactionSettings> = {
  decide,
  evolve,
  initialState: DEFAULT_SATISFACTION_SETTINGS,
};
