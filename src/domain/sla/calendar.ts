/**
 * Business-time arithmetic over a calendar: a time zone, a weekly schedule and holidays. Pure: the
 * wall-clock rules come from Intl (the runtime's time-zone database), never from a table of our own,
 * so a daylight-saving change makes the business day it falls on an hour longer or shorter, exactly
 * as the clocks on the wall say.
 */

/** `HH:MM` on a 24-hour clock; `24:00` is the end of the day. */
type WallTime = string;

/** One stretch of business hours on a weekday; an `end` at or before the `start` runs overnight into the next day. */
interface Interval {
  start: WallTime;
  end: WallTime;
}

interface Holiday {
  /** The local date `YYYY-MM-DD`: intervals that start on it do not count. */
  date: string;
  name: string;
}

export interface Calendar {
  /** An IANA time zone such as `Europe/Berlin`. */
  timeZone: string;
  /** Seven lists of intervals, Sunday first (as `Date.getUTCDay` counts). */
  week: Interval[][];
  holidays: Holiday[];
}

/** `null` counts around the clock. */
export type Hours = Calendar | null;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** How far ahead a due time is looked for: a calendar with hardly any hours yields no due time rather than a long loop. */
const HORIZON_DAYS = 800;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** Whether the runtime knows this IANA time zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at this instant, in ms (Berlin in summer: +2 h). */
export function zoneOffset(timeZone: string, at: number): number {
  const parts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatter(timeZone).formatToParts(new Date(at))) if (part.type in parts) parts[part.type as keyof typeof parts] = Number(part.value);
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The local calendar day of an instant, as days since 1970-01-01. */
const localDay = (timeZone: string, at: number) => Math.floor((at + zoneOffset(timeZone, at)) / DAY_MS);

const minutesOf = (time: WallTime) => {
  const [hours = 0, minutes = 0] = time.split(':').map(Number);
  return hours * 60 + minutes;
};

/**
 * The instant at which the wall clocks of the zone show this local day and minute. In the hour a
 * spring change skips, the clocks jump forward with it (02:30 on the March day in Berlin is 03:30);
 * in the hour an autumn change repeats, the first of the two is meant.
 */
export function zonedInstant(timeZone: string, day: number, minute: number): number {
  const wall = day * DAY_MS + minute * MINUTE_MS;
  // Offsets change at most once or twice a year: those of the day before and after bracket any change.
  const before = wall - zoneOffset(timeZone, wall - DAY_MS);
  const after = wall - zoneOffset(timeZone, wall + DAY_MS);
  const shows = (instant: number) => instant + zoneOffset(timeZone, instant) === wall;
  const valid = [before, after].filter(shows).sort((a, b) => a - b);
  return valid[0] ?? before;
}

const isoDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The business intervals (instants, ms) of the local days from `fromDay` on, in order. */
function* businessIntervals(calendar: Calendar, fromDay: number): Generator<[number, number]> {
  const holidays = new Set(calendar.holidays.map((holiday) => holiday.date));
  for (let day = fromDay; day < fromDay + HORIZON_DAYS; day += 1) {
    if (holidays.has(isoDate(day))) continue;
    const weekday = new Date(day * DAY_MS).getUTCDay();
    const intervals = [...(calendar.week[weekday] ?? [])].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
    for (const { start, end } of intervals) {
      const from = minutesOf(start);
      const to = minutesOf(end) <= from ? minutesOf(end) + 24 * 60 : minutesOf(end);
      yield [zonedInstant(calendar.timeZone, day, from), zonedInstant(calendar.timeZone, day + Math.floor(to / (24 * 60)), to % (24 * 60))];
    }
  }
}

/** Intervals that may contain instants from `at` on: an overnight interval of the day before reaches into today. */
const intervalsFrom = (calendar: Calendar, at: number) => businessIntervals(calendar, localDay(calendar.timeZone, at) - 1);

/** The business time between two instants (0 when `to` is not after `from`). */
export function elapsedBusiness(hours: Hours, from: number, to: number): number {
  if (to <= from) return 0;
  if (hours === null) return to - from;
  let total = 0;
  for (const [start, end] of intervalsFrom(hours, from)) {
    if (start >= to) break;
    total += Math.max(0, Math.min(end, to) - Math.max(start, from));
  }
  return total;
}

/**
 * The instant at which `duration` of business time has passed since `from`; null when the calendar
 * has no such time within its horizon (about two years).
 */
export function addBusiness(hours: Hours, from: number, duration: number): number | null {
  if (hours === null) return from + duration;
  let left = duration;
  for (const [start, end] of intervalsFrom(hours, from)) {
    if (end <= from) continue;
    const begin = Math.max(start, from);
    if (left <= end - begin) return begin + left;
    left -= end - begin;
  }
  return null;
}
