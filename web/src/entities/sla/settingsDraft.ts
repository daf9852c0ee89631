import { SLA_TARGETS, type SlaSettings, type SlaTarget, slaSettingsSchema } from '#contract/sla';
import { PRIORITIES, type Priority } from '#contract/tickets';
import { type FieldErrors, checkWith } from '../../lib/validation';

export type SlaCalendar = SlaSettings['calendars'][number];
export type SlaPolicy = SlaSettings['policies'][number];

/** The weekdays as the form lists them, Monday first, with their index in a calendar's week (Sunday first). */
export const WEEKDAYS: ReadonlyArray<{ index: number; name: string }> = [
  { index: 1, name: 'Monday' },
  { index: 2, name: 'Tuesday' },
  { index: 3, name: 'Wednesday' },
  { index: 4, name: 'Thursday' },
  { index: 5, name: 'Friday' },
  { index: 6, name: 'Saturday' },
  { index: 0, name: 'Sunday' },
];

export const PRIORITY_WORDS: Record<Priority, string> = { low: 'Low', medium: 'Medium', high: 'High', urgent: 'Urgent' };

let nextKey = 1;
/** A stable React key for a row the admin adds or removes. */
export const rowKey = () => nextKey++;

interface IntervalDraft {
  key: number;
  start: string;
  end: string;
}
interface HolidayDraft {
  key: number;
  date: string;
  name: string;
}

export interface CalendarDraft {
  name: string;
  timeZone: string;
  isDefault: boolean;
  /** Sunday first, as the document. */
  week: IntervalDraft[][];
  holidays: HolidayDraft[];
}

/**
 * A time input cannot show `24:00`, and an end of `00:00` means the same (an end at or before the start
 * runs into the next day, docs/sla.md): the form shows midnight as 00:00 and sends it as 24:00.
 */
const shownEnd = (end: string) => (end === '24:00' ? '00:00' : end);
const sentEnd = (end: string) => (end === '00:00' ? '24:00' : end);

export const calendarDraft = (calendar: SlaCalendar | null, isDefault: boolean, timeZone: string): CalendarDraft =>
  calendar
    ? {
        name: calendar.name,
        timeZone: calendar.timeZone,
        isDefault,
        week: calendar.week.map((day) => day.map(({ start, end }) => ({ key: rowKey(), start, end: shownEnd(end) }))),
        holidays: calendar.holidays.map(({ date, name }) => ({ key: rowKey(), date, name })),
      }
    : { name: '', timeZone, isDefault, week: Array.from({ length: 7 }, () => []), holidays: [] };

export const calendarOf = (draft: CalendarDraft, id: string): SlaCalendar => ({
  id,
  name: draft.name,
  timeZone: draft.timeZone,
  week: draft.week.map((day) => day.map(({ start, end }) => ({ start, end: sentEnd(end) }))),
  holidays: draft.holidays.map(({ date, name }) => ({ date, name })),
});

/** A target typed as hours and minutes; both blank leaves the target out. */
interface TargetDraft {
  hours: string;
  minutes: string;
}

export interface PolicyDraft {
  name: string;
  /** '' for every category without a policy of its own. */
  categoryId: string;
  /** '' for around the clock. */
  calendarId: string;
  targets: Record<Priority, Record<SlaTarget, TargetDraft>>;
}

const targetDraft = (minutes: number | null): TargetDraft =>
  minutes === null ? { hours: '', minutes: '' } : { hours: String(Math.floor(minutes / 60)), minutes: String(minutes % 60) };

/** Blank boxes count 0; anything else that is not a number stays NaN, so the schema names the problem. */
export function targetMinutes({ hours, minutes }: TargetDraft): number | null {
  if (hours.trim() === '' && minutes.trim() === '') return null;
  const number = (text: string) => (text.trim() === '' ? 0 : Number(text));
  return number(hours) * 60 + number(minutes);
}

const byPriority = <T>(make: (priority: Priority) => T) => Object.fromEntries(PRIORITIES.map((priority) => [priority, make(priority)])) as Record<Priority, T>;
const byTarget = <T>(make: (target: SlaTarget) => T) => Object.fromEntries(SLA_TARGETS.map((target) => [target, make(target)])) as Record<SlaTarget, T>;

export const policyDraft = (policy: SlaPolicy | null, calendarId: string | null): PolicyDraft => ({
  name: policy?.name ?? '',
  categoryId: policy ? (policy.categoryId ?? '') : '',
  calendarId: (policy ? policy.calendarId : calendarId) ?? '',
  targets: byPriority((priority) => byTarget((target) => targetDraft(policy ? policy.targets[priority][target] : null))),
});

export const policyOf = (draft: PolicyDraft, id: string): SlaPolicy => ({
  id,
  name: draft.name,
  categoryId: draft.categoryId || null,
  calendarId: draft.calendarId || null,
  targets: byPriority((priority) => byTarget((target) => targetMinutes(draft.targets[priority][target]))),
});

/** A new record's id from its name, unlike every id already taken (ids are what the document links by). */
export function newId(name: string, taken: string[], fallback: string): string {
  const base =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || fallback;
  let id = base;
  for (let n = 2; taken.includes(id); n += 1) id = `${base}-${n}`;
  return id;
}

/**
 * The document with one calendar added (index null) or replaced. It becomes the default when the admin
 * says so or when it is the only one; the default stays one until another is made the default.
 */
export function withCalendar(settings: SlaSettings, index: number | null, calendar: SlaCalendar, isDefault: boolean): SlaSettings {
  const calendars = index === null ? [...settings.calendars, calendar] : settings.calendars.map((old, at) => (at === index ? calendar : old));
  const defaultCalendarId = isDefault || calendars.length === 1 ? calendar.id : settings.defaultCalendarId;
  return { ...settings, calendars, defaultCalendarId };
}

/** The document without a calendar; the default passes to the first one left. Refused (by the form) while a policy counts in it. */
export function withoutCalendar(settings: SlaSettings, id: string): SlaSettings {
  const calendars = settings.calendars.filter((calendar) => calendar.id !== id);
  const defaultCalendarId = settings.defaultCalendarId === id ? (calendars[0]?.id ?? null) : settings.defaultCalendarId;
  return { ...settings, calendars, defaultCalendarId };
}

export const withPolicy = (settings: SlaSettings, index: number | null, policy: SlaPolicy): SlaSettings => ({
  ...settings,
  policies: index === null ? [...settings.policies, policy] : settings.policies.map((old, at) => (at === index ? policy : old)),
});

export const withoutPolicy = (settings: SlaSettings, id: string): SlaSettings => ({
  ...settings,
  policies: settings.policies.filter((policy) => policy.id !== id),
});

/**
 * The server's own schema run over the whole document as it would be saved, its messages split into
 * those of one record (`calendars.2.week.1.0.end` becomes `week.1.0.end`) and the rest (`_form`).
 */
export function recordErrors(document: SlaSettings, prefix: string): FieldErrors {
  const checked = checkWith(slaSettingsSchema, document);
  if (checked.ok) return {};
  const errors: FieldErrors = {};
  for (const [path, message] of Object.entries(checked.errors)) {
    const key = path === prefix ? '_record' : path.startsWith(`${prefix}.`) ? path.slice(prefix.length + 1) : '_form';
    errors[key] ??= message;
  }
  return errors;
}

/** "Mon–Fri 09:00–17:00"-like summaries are long; the weekly hours say enough in a table. */
export function weeklyHours(calendar: SlaCalendar): string {
  const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3));
  const total = calendar.week.flat().reduce((sum, { start, end }) => {
    const from = minutesOf(start);
    const to = minutesOf(end) <= from ? minutesOf(end) + 24 * 60 : minutesOf(end);
    return sum + to - from;
  }, 0);
  const days = calendar.week.filter((day) => day.length > 0).length;
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  return `${hours} h${minutes ? ` ${minutes} m` : ''} a week on ${days} ${days === 1 ? 'day' : 'days'}`;
}

/** "1 h 30 m", "45 m", "2 h"; "–" for a target left out. */
export function targetText(minutes: number | null): string {
  if (minutes === null) return '–';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return [hours ? `${hours} h` : '', rest ? `${rest} m` : ''].filter(Boolean).join(' ');
}

/** The IANA zones this browser knows, with UTC, and the zone a stored calendar names even if unknown here. */
export function timeZones(current: string): string[] {
  const zones = new Set(Intl.supportedValuesOf('timeZone'));
  zones.add('UTC');
  if (current) zones.add(current);
  return [...zones].sort();
}
