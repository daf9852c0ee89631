import { type Calendar, addBusiness, elapsedBusiness, isTimeZone, zonedInstant, zoneOffset } from './calendar';

const HOUR = 3600_000;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const nineToFive = [{ start: '09:00', end: '17:00' }];
/** Monday to Friday, 9 to 5, in Berlin. */
const BERLIN_OFFICE: Calendar = { timeZone: 'Europe/Berlin', week: [[], nineToFive, nineToFive, nineToFive, nineToFive, nineToFive, []], holidays: [] };
/** Every night from 22:00 to 06:00 the next morning, in Berlin. */
const BERLIN_NIGHTS: Calendar = { timeZone: 'Europe/Berlin', week: Array.from({ length: 7 }, () => [{ start: '22:00', end: '06:00' }]), holidays: [] };
const BERLIN_ALL_DAY: Calendar = { timeZone: 'Europe/Berlin', week: Array.from({ length: 7 }, () => [{ start: '00:00', end: '24:00' }]), holidays: [] };

describe('Business calendar', () => {
  describe('time zones', () => {
    it('reads offsets from the runtime, summer and winter alike', () => {
      expect(zoneOffset('Europe/Berlin', at('2026-01-15T12:00:00Z'))).toBe(HOUR);
      expect(zoneOffset('Europe/Berlin', at('2026-07-15T12:00:00Z'))).toBe(2 * HOUR);
      expect(zoneOffset('America/New_York', at('2026-07-15T12:00:00Z'))).toBe(-4 * HOUR);
      expect(isTimeZone('Europe/Berlin')).toBe(true);
      expect(isTimeZone('Mars/Olympus')).toBe(false);
    });
    it('maps wall times to instants around both changes, skipping forward in the gap and taking the first of a repeated hour', () => {
      const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / (24 * HOUR);
      expect(iso(zonedInstant('Europe/Berlin', day('2026-03-29'), 60))).toBe('2026-03-29T00:00:00.000Z');
      expect(iso(zonedInstant('Europe/Berlin', day('2026-03-29'), 150))).toBe('2026-03-29T01:30:00.000Z');
      expect(iso(zonedInstant('Europe/Berlin', day('2026-03-29'), 180))).toBe('2026-03-29T01:00:00.000Z');
      expect(iso(zonedInstant('Europe/Berlin', day('2026-10-25'), 150))).toBe('2026-10-25T00:30:00.000Z');
      expect(iso(zonedInstant('Europe/Berlin', day('2026-10-25'), 240))).toBe('2026-10-25T03:00:00.000Z');
    });
  });

  describe('around the clock', () => {
    it('adds and measures plain durations', () => {
      expect(iso(addBusiness(null, at('2026-03-28T23:00:00Z'), 5 * HOUR))).toBe('2026-03-29T04:00:00.000Z');
      expect(elapsedBusiness(null, at('2026-03-28T23:00:00Z'), at('2026-03-29T04:00:00Z'))).toBe(5 * HOUR);
    });
  });

  describe('weekly hours', () => {
    it('counts only the hours within the schedule, over a weekend', () => {
      // Friday 16:00 in Berlin (15:00Z) plus 2 business hours: 1 on Friday, 1 on Monday from 9:00.
      expect(iso(addBusiness(BERLIN_OFFICE, at('2026-01-16T15:00:00Z'), 2 * HOUR))).toBe('2026-01-19T09:00:00.000Z');
      expect(elapsedBusiness(BERLIN_OFFICE, at('2026-01-16T15:00:00Z'), at('2026-01-19T09:00:00Z'))).toBe(2 * HOUR);
    });
    it('starts the clock at the next opening when started outside the hours', () => {
      expect(iso(addBusiness(BERLIN_OFFICE, at('2026-01-17T10:00:00Z'), 30 * 60_000))).toBe('2026-01-19T08:30:00.000Z');
      expect(iso(addBusiness(BERLIN_OFFICE, at('2026-01-17T10:00:00Z'), 0))).toBe('2026-01-19T08:00:00.000Z');
    });
    it('takes several intervals a day', () => {
      const split: Calendar = {
        ...BERLIN_OFFICE,
        week: BERLIN_OFFICE.week.map((day) =>
          day.length
            ? [
                { start: '13:00', end: '17:00' },
                { start: '08:00', end: '12:00' },
              ]
            : [],
        ),
      };
      // Monday 11:00 (10:00Z) + 2 h: 12:00 closes, 13:00 reopens, due 14:00 Berlin.
      expect(iso(addBusiness(split, at('2026-01-19T10:00:00Z'), 2 * HOUR))).toBe('2026-01-19T13:00:00.000Z');
    });
  });

  describe('daylight-saving changes (Europe/Berlin)', () => {
    it('moves a due time across the March change by wall-clock hours', () => {
      // Friday 27 March 16:00 CET (15:00Z) + 2 h: Monday 30 March 10:00 CEST, which is 08:00Z.
      expect(iso(addBusiness(BERLIN_OFFICE, at('2026-03-27T15:00:00Z'), 2 * HOUR))).toBe('2026-03-30T08:00:00.000Z');
    });
    it('counts the night of the March change as 7 hours and the October one as 9', () => {
      expect(elapsedBusiness(BERLIN_NIGHTS, at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z'))).toBe(7 * HOUR);
      expect(elapsedBusiness(BERLIN_NIGHTS, at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z'))).toBe(9 * HOUR);
    });
    it('makes the days of the changes 23 and 25 hours long', () => {
      expect(elapsedBusiness(BERLIN_ALL_DAY, at('2026-03-28T23:00:00Z'), at('2026-03-29T22:00:00Z'))).toBe(23 * HOUR);
      expect(elapsedBusiness(BERLIN_ALL_DAY, at('2026-10-24T22:00:00Z'), at('2026-10-25T23:00:00Z'))).toBe(25 * HOUR);
    });
  });

  describe('overnight intervals', () => {
    it('carries a due time from the evening into the next morning', () => {
      // Wednesday 14 January, 23:00 Berlin (22:00Z) + 5 h: due 04:00 Thursday Berlin.
      expect(iso(addBusiness(BERLIN_NIGHTS, at('2026-01-14T22:00:00Z'), 5 * HOUR))).toBe('2026-01-15T03:00:00.000Z');
      // Started at 03:00 Berlin, inside the night that began the evening before: 3 h left of it, then the next at 22:00.
      expect(iso(addBusiness(BERLIN_NIGHTS, at('2026-01-15T02:00:00Z'), 4 * HOUR))).toBe('2026-01-15T22:00:00.000Z');
    });
  });

  describe('holidays', () => {
    it('skips the business hours of a holiday', () => {
      const christmas: Calendar = {
        ...BERLIN_OFFICE,
        holidays: [
          { date: '2026-12-24', name: 'Christmas Eve' },
          { date: '2026-12-25', name: 'Christmas Day' },
        ],
      };
      // Wednesday 23 December 16:00 CET + 2 h: Thursday and Friday are holidays, the weekend closed: Monday 10:00 CET.
      expect(iso(addBusiness(christmas, at('2026-12-23T15:00:00Z'), 2 * HOUR))).toBe('2026-12-28T09:00:00.000Z');
      expect(iso(addBusiness(BERLIN_OFFICE, at('2026-12-23T15:00:00Z'), 2 * HOUR))).toBe('2026-12-24T09:00:00.000Z');
      expect(elapsedBusiness(christmas, at('2026-12-23T00:00:00Z'), at('2026-12-29T00:00:00Z'))).toBe(16 * HOUR);
    });
    it('answers no due time for a calendar without hours', () => {
      expect(addBusiness({ ...BERLIN_OFFICE, week: [[], [], [], [], [], [], []] }, at('2026-01-16T15:00:00Z'), HOUR)).toBeNull();
    });
  });
});
