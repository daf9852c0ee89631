import type { Decider } from '../shared/decider';
import { type SystemSettings, type SystemSettingsEvent, type SystemSettingsState, evolve, initialState } from './settings';

export type SystemSettingsCommand = { type: 'UpdateSystemSettings'; changes: Partial<SystemSettings> };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Records only the settings that change, each with its earlier value; nothing when nothing changes. */
export function decide(command: SystemSettingsCommand, state: SystemSettingsState): SystemSettingsEvent[] {
  const changes: Partial<SystemSettings> = {};
  const previous: Partial<SystemSettings> = {};
  for (const [key, value] of Object.entries(command.changes) as Array<[keyof SystemSettings, unknown]>) {
    if (value === undefined || same(value, state[key])) continue;
    Object.assign(changes, { [key]: value });
    Object.assign(previous, { [key]: state[key] });
  }
  return Object.keys(changes).length === 0 ? [] : [{ type: 'SystemSettingsUpdated', data: { changes, previous } }];
}

export const systemSettingsDecider: Decider<SystemSettingsCommand, SystemSettingsEvent, SystemSettingsState> = { decide, evolve, initialState };
