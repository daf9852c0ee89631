import type { Decider, DomainEvent } from '../shared/decider';
import { DEFAULT_SLA_SETTINGS, type SlaSettings } from '#contract/sla';

/** Every change of the calendars and policies, whole, with who made it and the version before: the versions tickets follow. */
export const SLA_SETTINGS_STREAM = 'settings-sla';

export type SlaSettingsEvent = DomainEvent<'SlaSettingsUpdated', { settings: SlaSettings; previous: SlaSettings; version: number }>;

export type SlaSettingsCommand = { type: 'UpdateSlaSettings'; settings: SlaSettings };

export interface SlaSettingsState {
  settings: SlaSettings;
  /** 0 before the first change; each change is the next version. */
  version: number;
}

const evolve = (_state: SlaSettingsState, event: SlaSettingsEvent): SlaSettingsState => ({ settings: event.data.settings, version: event.data.version });

/** A new version only when something changed; the input was validated against the contract schema (ids, references, ranges). */
function decide(command: SlaSettingsCommand, state: SlaSettingsState): SlaSettingsEvent[] {
  if (JSON.stringify(command.settings) === JSON.stringify(state.settings)) return [];
  return [{ type: 'SlaSettingsUpdated', data: { settings: command.settings, previous: state.settings, version: state.version + 1 } }];
}

export const slaSettingsDecider: Decider<SlaSettingsCommand, SlaSettingsEvent, SlaSettingsState> = {
  decide,
  evolve,
  initialState: { settings: DEFAULT_SLA_SETTINGS, version: 0 },
};
