import { z } from 'zod';
import { reportQuerySchema } from '#contract/satisfaction';
import { SLA_TARGETS, slaSettingsSchema } from '#contract/sla';
import { TICKET_STATUSES, ticketIdsQuery } from '#contract/tickets';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

const Target = z.strictObject({
  target: z.enum(SLA_TARGETS),
  episode: z.number(),
  state: z.enum(['running', 'paused', 'met', 'breached']),
  startedAt: z.string(),
  targetMinutes: z.number(),
  dueAt: z.string().nullable(),
  remainingMs: z.number().nullable(),
  completedAt: z.string().nullable(),
  breachedAt: z.string().nullable(),
});

const TicketSla = z.strictObject({
  policyId: z.string(),
  policyName: z.string(),
  version: z.number(),
  calendarName: z.string().nullable(),
  paused: z.boolean(),
  nextDueAt: z.string().nullable(),
  targets: z.array(Target),
});

const Interval = z.strictObject({ start: z.string(), end: z.string() });
const Minutes = z.number().nullable();
const Targets = z.strictObject({ firstResponse: Minutes, nextResponse: Minutes, resolution: Minutes });
const Settings = z.strictObject({
  settings: z.strictObject({
    calendars: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        timeZone: z.string(),
        week: z.array(z.array(Interval)),
        holidays: z.array(z.strictObject({ date: z.string(), name: z.string() })),
      }),
    ),
    defaultCalendarId: z.string().nullable(),
    policies: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        categoryId: z.string().nullable(),
        calendarId: z.string().nullable(),
        targets: z.strictObject({ low: Targets, medium: Targets, high: Targets, urgent: Targets }),
      }),
    ),
    pauseStatuses: z.array(z.enum(TICKET_STATUSES)),
    warnPercent: z.number(),
    version: z.number(),
    updatedAt: z.string().nullable(),
    updatedBy: z.string().nullable(),
  }),
});

const Group = z.strictObject({
  id: z.string().nullable(),
  name: z.string(),
  targets: z.array(z.strictObject({ target: z.enum(SLA_TARGETS), met: z.number(), breached: z.number(), attainment: z.number().nullable() })),
});
const Report = z.strictObject({
  report: z.strictObject({
    from: z.string(),
    to: z.string(),
    total: Group,
    byCategory: z.array(Group),
    byAgent: z.array(Group),
    byTeam: z.array(Group),
    breaches: z.array(
      z.strictObject({
        ticketId: z.string(),
        number: z.number(),
        title: z.string(),
        target: z.enum(SLA_TARGETS),
        episode: z.number(),
        dueAt: z.string(),
        completedAt: z.string().nullable(),
        agentName: z.string().nullable(),
      }),
    ),
  }),
});

export function describeSla(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/sla/settings',
    token: scope('admin'),
    summary: 'The service-level calendars and policies, with their version',
    access: ['admin'],
    responses: { 200: { description: '{ settings }', schema: Settings } },
  });
  docs.route({
    method: 'put',
    path: '/sla/settings',
    token: scope('admin'),
    summary: 'Replace the calendars and policies: a new version, which tickets opened from now on follow (docs/sla.md)',
    access: ['admin'],
    body: slaSettingsSchema,
    responses: { 200: { description: '{ settings } after the change', schema: Settings } },
  });
  docs.route({
    method: 'get',
    path: '/sla/tickets',
    token: scope('admin'),
    summary: 'The service levels of each of these tickets that follows a policy (Live Tickets chips): `tickets` is a comma-separated list of ids',
    access: ['agent', 'admin'],
    query: ticketIdsQuery,
    responses: {
      200: {
        description: "{ now (the server's clock), tickets }",
        schema: z.strictObject({ now: z.string(), tickets: z.array(z.strictObject({ ticketId: z.string(), sla: TicketSla })) }),
      },
    },
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/sla',
    token: scope('tickets:read'),
    summary: "A ticket's service levels now: the policy and version it follows, and each target's due time and state (null when it follows none)",
    access: ['agent', 'admin'],
    responses: { 200: { description: '{ now, sla }', schema: z.strictObject({ now: z.string(), sla: TicketSla.nullable() }) } },
  });
  docs.route({
    method: 'get',
    path: '/sla/report',
    token: scope('admin'),
    summary: 'Attainment (% met) per target of the episodes decided in a period (default the last 30 days), by category and agent, with the breaches',
    access: ['agent', 'admin'],
    query: reportQuerySchema,
    responses: { 200: { description: '{ report }', schema: Report } },
  });
  docs.route({
    method: 'get',
    path: '/sla/report.csv',
    token: scope('admin'),
    summary: 'The attainment table of a period as CSV',
    access: ['agent', 'admin'],
    query: reportQuerySchema,
    responses: { 200: { description: 'CSV, one line per group and target', schema: z.string(), contentType: 'text/csv' } },
  });
}
