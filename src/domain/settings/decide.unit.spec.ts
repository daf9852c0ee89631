import { DeciderSpecification } from '../../../test/support/decider';
import { decide } from './decide';
import { type SystemSettingsEvent, evolve, initialState, maskToken } from './settings';
import { DEFAULT_SYSTEM_SETTINGS } from '#contract/settings';

const given = DeciderSpecification.for({ decide, evolve, initialState });

describe('System settings', () => {
  describe('when nothing was ever changed', () => {
    it('then the state is the defaults of docs/product.md section 9', () => expect(initialState).toEqual(DEFAULT_SYSTEM_SETTINGS));

    it('then a change records only the fields that differ, with their earlier values', () =>
      given([])
        .when({ type: 'UpdateSystemSettings', changes: { maxFiles: 8, systemName: 'Customer Support System', corsOrigins: [] } })
        .then([{ type: 'SystemSettingsUpdated', data: { changes: { maxFiles: 8 }, previous: { maxFiles: 5 } } }]));

    it('then a change to nothing new records nothing', () =>
      given([])
        .when({ type: 'UpdateSystemSettings', changes: { maintenanceMode: false } })
        .then([]));
  });

  describe('when changed before', () => {
    const CHANGED: SystemSettingsEvent = {
      type: 'SystemSettingsUpdated',
      data: { changes: { corsOrigins: ['https://a.example.com'] }, previous: { corsOrigins: [] } },
    };

    it('then lists compare by value', () =>
      given([CHANGED])
        .when({ type: 'UpdateSystemSettings', changes: { corsOrigins: ['https://a.example.com'] } })
        .then([]));
  });

  describe('when a token is shown', () => {
    it('then only the bot id and the last four characters remain', () => {
      expect(maskToken('123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBe('123456:********WXYZ');
      expect(maskToken('')).toBe('');
    });
  });
});
