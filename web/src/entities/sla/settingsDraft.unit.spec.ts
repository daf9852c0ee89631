import { DEFAULT_SLA_SETTINGS, type SlaSettings } from '#contract/sla';
import {
  calendarDraft,
  calendarOf,
  newId,
  policyDraft,
  policyOf,
  recordErrors,
  targetMinutes,
  weeklyHours,
  withCalendar,
  withoutCalendar,
} from './settingsDraft';

const OFFICE = {
  id: 'office',
  name: 'Office',
  timeZone: 'Europe/Berlin',
  week: [
    [],
    [
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '24:00' },
    ],
    [],
    [],
    [],
    [],
    [],
  ],
  holidays: [{ date: '2026-12-25', name: 'Christmas Day' }],
};
const SETTINGS: SlaSettings = { ...DEFAULT_SLA_SETTINGS, calendars: [OFFICE], defaultCalendarId: 'office' };

describe('SLA settings form drafts', () => {
  it('when a calendar ends a day at 24:00, then the time input shows 00:00 and the same document is sent back', () => {
    const draft = calendarDraft(OFFICE, true, 'UTC');
    expect(draft.week[1]!.map(({ start, end }) => [start, end])).toEqual([
      ['09:00', '12:00'],
      ['13:00', '00:00'],
    ]);
    expect(calendarOf(draft, 'office')).toEqual(OFFICE);
    expect(weeklyHours(OFFICE)).toBe('14 h a week on 1 day');
  });

  it('when targets are typed as hours and minutes, then blank boxes leave a target out and anything else is whole minutes or fails the schema', () => {
    expect(targetMinutes({ hours: '', minutes: '' })).toBeNull();
    expect(targetMinutes({ hours: '1', minutes: '' })).toBe(60);
    expect(targetMinutes({ hours: '', minutes: '45' })).toBe(45);
    expect(targetMinutes({ hours: 'x', minutes: '5' })).toBeNaN();
    const draft = policyDraft(null, 'office');
    draft.name = 'Standard';
    draft.targets.urgent.firstResponse = { hours: '1', minutes: '30' };
    draft.targets.low.resolution = { hours: '0', minutes: '0' };
    const policy = policyOf(draft, 'standard');
    expect(policy).toMatchObject({ calendarId: 'office', categoryId: null });
    expect(policy.targets.urgent).toEqual({ firstResponse: 90, nextResponse: null, resolution: null });
    expect(policyDraft(policy, null).targets.urgent.firstResponse).toEqual({ hours: '1', minutes: '30' });
    expect(recordErrors({ ...SETTINGS, policies: [policy] }, 'policies.0')).toEqual({ 'targets.low.resolution': 'A target is at least 1 minute' });
  });

  it('when a record breaks the schema, then its messages are the server schema own, keyed by the field within the record', () => {
    const draft = calendarDraft(OFFICE, true, 'UTC');
    draft.week[2] = [{ key: 1, start: '09:00', end: '' }];
    draft.name = '';
    expect(recordErrors(withCalendar(SETTINGS, 0, calendarOf(draft, 'office'), true), 'calendars.0')).toEqual({
      name: 'A name cannot be empty',
      'week.2.0.end': 'An end is HH:MM, from 00:00 to 24:00',
    });
    const empty = policyOf(policyDraft(null, null), 'empty');
    expect(recordErrors({ ...SETTINGS, policies: [{ ...empty, name: 'Empty' }] }, 'policies.0')).toEqual({ targets: 'The policy Empty has no target' });
  });

  it('when calendars are added and removed, then the first is the default, a new id never repeats one, and the default passes on', () => {
    const first = withCalendar(DEFAULT_SLA_SETTINGS, null, OFFICE, false);
    expect(first.defaultCalendarId).toBe('office');
    const id = newId('Office', ['office', 'office-2'], 'calendar');
    expect(id).toBe('office-3');
    expect(newId('  ***  ', [], 'calendar')).toBe('calendar');
    const second = withCalendar(first, null, { ...OFFICE, id, name: 'Office' }, false);
    expect(second.defaultCalendarId).toBe('office');
    expect(withCalendar(second, 1, second.calendars[1]!, true).defaultCalendarId).toBe(id);
    expect(withoutCalendar(second, 'office')).toMatchObject({ defaultCalendarId: id, calendars: [{ id }] });
  });
});
