import { z } from 'zod';
import { PRIORITIES, type Priority, TICKET_STATUSES, type TicketStatus } from './tickets';
import { singleLine } from './text';

/** The three service-level targets (docs/sla.md). */
export const SLA_TARGETS = ['firstResponse', 'nextResponse', 'resolution'] as const;
export type SlaTarget = (typeof SLA_TARGETS)[number];
export const SLA_TARGET_WORDS: Record<SlaTarget, string> = { firstResponse: 'First response', nextResponse: 'Next response', resolution: 'Resolution' };

interface SlaInterval {
  start: string;
  end: string;
}

interface SlaCalendar {
  id: string;
  name: string;
  timeZone: string;
  /** Seven lists of intervals, Sunday first; an end at or before the start runs overnight. */
  week: SlaInterval[][];
  holidays: { date: string; name: string }[];
}

/** Minutes per target; null leaves the target out. */
export type SlaTargets = Record<SlaTarget, number | null>;

interface SlaPolicy {
  id: string;
  name: string;
  /** The category this policy is for; null for every category without a policy of its own. */
  categoryId: string | null;
  /** The calendar whose business hours count; null counts around the clock. */
  calendarId: string | null;
  targets: Record<Priority, SlaTargets>;
}

export interface SlaSettings {
  calendars: SlaCalendar[];
  defaultCalendarId: string | null;
  policies: SlaPolicy[];
  /** The statuses in which every running clock of a ticket stands still. */
  pauseStatuses: TicketStatus[];
  /** The share of a target (percent) at which the warning goes out. */
  warnPercent: number;
}

export const DEFAULT_SLA_SETTINGS: SlaSettings = { calendars: [], defaultCalendarId: null, policies: [], pauseStatuses: ['pending_customer'], warnPercent: 80 };

const WALL_TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const id = z.string({ message: 'id must be text' }).regex(/^[A-Za-z0-9_-]{1,40}$/, 'An id is 1 to 40 letters, digits, - or _');
const name = singleLine(z.string({ message: 'name must be text' }), 'A name')
  .min(1, 'A name cannot be empty')
  .max(100, 'A name must be at most 100 characters');

const isTimeZone = (timeZone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
};

const interval = z.strictObject(
  {
    start: z.string().regex(WALL_TIME, 'A start is HH:MM, from 00:00 to 23:59'),
    end: z.string().regex(WALL_TIME, 'An end is HH:MM, from 00:00 to 24:00'),
  },
  { message: 'An interval is { start, end }' },
);

const calendarSchema = z.strictObject({
  id,
  name,
  timeZone: z.string({ message: 'timeZone must be text' }).refine(isTimeZone, 'Unknown time zone: use an IANA name such as Europe/Berlin'),
  week: z
    .array(z.array(interval).max(10, 'At most 10 intervals a day'), { message: 'week must be seven lists of intervals' })
    .length(7, 'week must have seven days, Sunday first'),
  holidays: z
    .array(
      z.strictObject({
        date: z
          .string()
          .regex(DATE, 'A holiday date is YYYY-MM-DD')
          .refine((date) => !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date), 'Not a real date'),
        name,
      }),
    )
    .max(500, 'At most 500 holidays'),
});

const minutes = z
  .number({ message: 'A target is a number of minutes or null' })
  .int('A target is whole minutes')
  .min(1, 'A target is at least 1 minute')
  .max(365 * 24 * 60, 'A target is at most a year')
  .nullable();
const targets = z.strictObject({ firstResponse: minutes, nextResponse: minutes, resolution: minutes });

const policySchema = z.strictObject({
  id,
  name,
  categoryId: z.string().min(1).nullable(),
  calendarId: id.nullable(),
  targets: z.strictObject(Object.fromEntries(PRIORITIES.map((priority) => [priority, targets])) as Record<Priority, typeof targets>, {
    message: 'targets must give low, medium, high and urgent',
  }),
});

const PAUSABLE: TicketStatus[] = TICKET_STATUSES.filter((status) => status !== 'resolved' && status !== 'closed' && status !== 'open');

export const slaSettingsSchema = z
  .strictObject({
    calendars: z.array(calendarSchema).max(50, 'At most 50 calendars'),
    defaultCalendarId: id.nullable(),
    policies: z.array(policySchema).max(200, 'At most 200 policies'),
    pauseStatuses: z.array(z.enum(PAUSABLE as [TicketStatus, ...TicketStatus[]], { message: 'Only in progress or pending customer can pause the clock' })),
    warnPercent: z
      .number({ message: 'warnPercent must be a number' })
      .int('warnPercent is whole percent')
      .min(1, 'warnPercent is at least 1')
      .max(99, 'warnPercent is at most 99'),
  })
  .superRefine((settings, ctx) => {
    const calendars = new Set<string>();
    settings.calendars.forEach((calendar, index) => {
      if (calendars.has(calendar.id)) ctx.addIssue({ code: 'custom', path: ['calendars', index, 'id'], message: `Two calendars have the id ${calendar.id}` });
      calendars.add(calendar.id);
      if (calendar.week.every((day) => day.length === 0))
        ctx.addIssue({ code: 'custom', path: ['calendars', index, 'week'], message: 'A calendar needs business hours on at least one day' });
      const dates = new Set<string>();
      calendar.holidays.forEach((holiday, h) => {
        if (dates.has(holiday.date))
          ctx.addIssue({ code: 'custom', path: ['calendars', index, 'holidays', h, 'date'], message: `${holiday.date} is listed twice` });
        dates.add(holiday.date);
      });
    });
    if (settings.defaultCalendarId !== null && !calendars.has(settings.defaultCalendarId))
      ctx.addIssue({ code: 'custom', path: ['defaultCalendarId'], message: 'The default calendar must be one of the calendars' });
    if (settings.calendars.length > 0 && settings.defaultCalendarId === null)
      ctx.addIssue({ code: 'custom', path: ['defaultCalendarId'], message: 'Choose one of the calendars as the default' });
    const policies = new Set<string>();
    const categories = new Set<string | null>();
    settings.policies.forEach((policy, index) => {
      if (policies.has(policy.id)) ctx.addIssue({ code: 'custom', path: ['policies', index, 'id'], message: `Two policies have the id ${policy.id}` });
      policies.add(policy.id);
      if (categories.has(policy.categoryId))
        ctx.addIssue({ code: 'custom', path: ['policies', index, 'categoryId'], message: 'Only one policy per category, and one for every other category' });
      categories.add(policy.categoryId);
      if (policy.calendarId !== null && !calendars.has(policy.calendarId))
        ctx.addIssue({ code: 'custom', path: ['policies', index, 'calendarId'], message: `No calendar ${policy.calendarId}` });
      if (Object.values(policy.targets).every((targets) => SLA_TARGETS.every((target) => targets[target] === null)))
        ctx.addIssue({ code: 'custom', path: ['policies', index, 'targets'], message: `The policy ${policy.name} has no target` });
    });
  });

/** A target of a ticket as the API shows it, computed for the moment asked about. */
export interface SlaTargetView {
  target: SlaTarget;
  episode: number;
  state: 'running' | 'paused' | 'met' | 'breached';
  startedAt: string;
  targetMinutes: number;
  dueAt: string | null;
  /** While running: ms until due (negative once breached); while paused: business ms left. */
  remainingMs: number | null;
  completedAt: string | null;
  breachedAt: string | null;
}

export interface TicketSla {
  policyId: string;
  policyName: string;
  /** The SLA settings version the ticket follows (the settings stream's event number, from 1). */
  version: number;
  calendarName: string | null;
  paused: boolean;
  /** The earliest due time of a running target that is not met yet. */
  nextDueAt: string | null;
  targets: SlaTargetView[];
}

export type SlaFilter = 'breached' | 'due_soon';

interface SlaAttainment {
  target: SlaTarget;
  met: number;
  breached: number;
  /** Percent met among the decided episodes (one decimal); null when none was decided. */
  attainment: number | null;
}

export interface SlaGroup {
  id: string | null;
  name: string;
  targets: SlaAttainment[];
}

export interface SlaBreach {
  ticketId: string;
  number: number;
  title: string;
  target: SlaTarget;
  episode: number;
  dueAt: string;
  completedAt: string | null;
  agentName: string | null;
}

/** Attainment of the targets decided in a period: met when done in time, breached at the moment the due time passed. */
export interface SlaReport {
  from: string;
  to: string;
  total: SlaGroup;
  byCategory: SlaGroup[];
  byAgent: SlaGroup[];
  /** By the ticket's team when the episode was decided ('No team' for none, docs/teams.md). */
  byTeam: SlaGroup[];
  breaches: SlaBreach[];
}

/** The live push `sla_warning` (staff): a target reached its warning share or its due time. */
export interface SlaWarningPush {
  ticketId: string;
  number: number;
  title: string;
  target: SlaTarget;
  episode: number;
  kind: 'warning' | 'breach';
  dueAt: string;
  /** The assignee when it was raised; null: every agent is told. */
  agentId: string | null;
  position: number;
}
