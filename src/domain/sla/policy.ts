import type { SlaSettings } from '#contract/sla';
import type { Priority } from '#contract/tickets';
import type { AppliedPolicy } from './clock';

/**
 * The policy a ticket of this category and priority follows under these settings: the category's
 * own policy, else the one for every category; null when neither exists.
 */
export function choosePolicy(settings: SlaSettings, version: number, categoryId: string, priority: Priority): AppliedPolicy | null {
  const policy =
    settings.policies.find((candidate) => candidate.categoryId === categoryId) ?? settings.policies.find((candidate) => candidate.categoryId === null);
  if (!policy) return null;
  const calendar = policy.calendarId === null ? null : (settings.calendars.find((candidate) => candidate.id === policy.calendarId) ?? null);
  return {
    policyId: policy.id,
    policyName: policy.name,
    version,
    calendarName: calendar?.name ?? null,
    hours: calendar ? { timeZone: calendar.timeZone, week: calendar.week, holidays: calendar.holidays } : null,
    targets: policy.targets[priority],
    pauseStatuses: settings.pauseStatuses,
    warnPercent: settings.warnPercent,
  };
}
