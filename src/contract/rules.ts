import { z } from 'zod';
import { MESSAGE_MAX, PRIORITIES, TICKET_STATUSES, tagSchema } from './tickets';
import { multiLine, singleLine } from './text';

/**
 * Rules (docs/automation.md): triggers an admin builds from conditions and actions, run by the desk on
 * ticket events, each change signed by the rule. Shared by the API and the web form.
 */

/** The ticket events a trigger listens to. */
export const RULE_EVENTS = [
  'ticket_created',
  'customer_replied',
  'status_changed',
  'priority_changed',
  'tag_added',
  'sla_warning',
  'sla_breach',
  'ticket_rated',
] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];

export const RULE_EVENT_WORDS: Record<RuleEvent, string> = {
  ticket_created: 'a ticket is created',
  customer_replied: 'the customer replies',
  status_changed: 'the status changes',
  priority_changed: 'the priority changes',
  tag_added: 'a tag is added',
  sla_warning: 'an SLA target is due soon',
  sla_breach: 'an SLA target is breached',
  ticket_rated: 'the customer rates the resolution',
};

/** How deep one event's chain of rules may go: a rule's change may fire other rules, up to this many in a row. */
export const RULE_CHAIN_MAX_DEPTH = 5;

/** Variables of a rule's texts (notes and notices): a rule has no agent applying it. */
export const RULE_VARIABLES = ['customer.name', 'customer.firstName', 'ticket.number', 'ticket.title'] as const;

const RULE_FIELDS = ['status', 'priority', 'team', 'assignee', 'category', 'channel', 'customer'] as const;
type RuleField = (typeof RULE_FIELDS)[number];
export const CHANNELS = ['web', 'telegram'] as const;

/**
 * One condition: every condition of a rule must hold. `team` takes team ids or `none`, `assignee` agent ids or `none`; `hours`
 * holds within (or outside) the business hours of an SLA calendar, the default one when none is named.
 */
export type RuleCondition =
  | { field: RuleField; op: 'is' | 'is_not'; values: string[] }
  | { field: 'tags'; op: 'has_any' | 'has_none'; values: string[] }
  | { field: 'hours'; op: 'within' | 'outside'; calendarId?: string };

/** What a rule does, in order: a macro's actions, plus the team, tags and notices. */
export type RuleAction =
  | { type: 'status'; status: (typeof TICKET_STATUSES)[number] }
  | { type: 'priority'; priority: (typeof PRIORITIES)[number] }
  | { type: 'assign'; agentId: string }
  | { type: 'team'; teamId: string }
  | { type: 'tag'; tag: string }
  | { type: 'untag'; tag: string }
  | { type: 'note'; text: string }
  | { type: 'notify_team'; teamId: string; text: string }
  | { type: 'notify_agent'; agentId: string; text: string }
  | { type: 'notify_customer'; text: string };

const RULE_ACTIONS_MAX = 10;
const RULE_CONDITIONS_MAX = 10;

const id = (what: string) =>
  z
    .string({ message: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(64, `${what} is too long`);
const text = (label: string) =>
  multiLine(z.string({ message: `${label} is required` }).trim(), label)
    .min(1, `${label} is required`)
    .max(MESSAGE_MAX, `${label} must be at most ${MESSAGE_MAX} characters`);

const VALUES_OF: Partial<Record<RuleField, readonly string[]>> = { status: TICKET_STATUSES, priority: PRIORITIES, channel: CHANNELS };

export const ruleConditionSchema = z.union(
  [
    z
      .strictObject({
        field: z.enum(RULE_FIELDS),
        op: z.enum(['is', 'is_not'], { message: "A field condition's op must be is or is_not" }),
        values: z.array(id('A value'), { message: 'Values must be a list' }).min(1, 'A condition needs at least one value').max(50, 'At most 50 values'),
      })
      .superRefine((value, ctx) => {
        const allowed = VALUES_OF[value.field];
        for (const [index, one] of value.values.entries())
          if (allowed && !allowed.includes(one))
            ctx.addIssue({ code: 'custom', path: ['values', index], message: `A ${value.field} condition takes ${allowed.join(', ')}` });
      }),
    z.strictObject({
      field: z.literal('tags'),
      op: z.enum(['has_any', 'has_none'], { message: "A tags condition's op must be has_any or has_none" }),
      values: z.array(tagSchema).min(1, 'A condition needs at least one value').max(20, 'At most 20 tags'),
    }),
    z.strictObject({
      field: z.literal('hours'),
      op: z.enum(['within', 'outside'], { message: "An hours condition's op must be within or outside" }),
      calendarId: id('Calendar').optional(),
    }),
  ],
  { message: `Each condition is on ${[...RULE_FIELDS, 'tags', 'hours'].join(', ')}` },
);

export const ruleActionSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('status'), status: z.enum(TICKET_STATUSES, { message: `Status must be one of ${TICKET_STATUSES.join(', ')}` }) }),
    z.strictObject({ type: z.literal('priority'), priority: z.enum(PRIORITIES, { message: 'Priority must be low, medium, high or urgent' }) }),
    z.strictObject({ type: z.literal('assign'), agentId: id('Agent') }),
    z.strictObject({ type: z.literal('team'), teamId: id('Team') }),
    z.strictObject({ type: z.literal('tag'), tag: tagSchema }),
    z.strictObject({ type: z.literal('untag'), tag: tagSchema }),
    z.strictObject({ type: z.literal('note'), text: text('Note text') }),
    z.strictObject({ type: z.literal('notify_team'), teamId: id('Team'), text: text('Notice text') }),
    z.strictObject({ type: z.literal('notify_agent'), agentId: id('Agent'), text: text('Notice text') }),
    z.strictObject({ type: z.literal('notify_customer'), text: text('Message text') }),
  ],
  { message: 'Each action must be status, priority, assign, team, tag, untag, note, notify_team, notify_agent or notify_customer' },
);

const name = singleLine(z.string({ message: 'Name is required' }).trim(), 'Name')
  .min(1, 'Name is required')
  .max(99, 'Name must be less than 100 characters');

/** The units a time rule's wait is given in; seconds serve short waits (and tests), days the usual ones. */
export const RULE_DURATION_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type RuleDurationUnit = (typeof RULE_DURATION_UNITS)[number];
export interface RuleDuration {
  amount: number;
  unit: RuleDurationUnit;
}
const UNIT_MS: Record<RuleDurationUnit, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };
export const ruleDurationMs = (duration: RuleDuration) => duration.amount * UNIT_MS[duration.unit];
/** "4 days", "1 hour". */
export const ruleDurationWords = ({ amount, unit }: RuleDuration) => `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
const RULE_WAIT_MAX_DAYS = 365;

/**
 * `event`: run when one of `events` happens on a ticket. `time`: run once a ticket has matched the
 * conditions for `after`, counted from the event that made it match (docs/automation.md).
 */
export const ruleTriggerSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('event'),
      events: z
        .array(z.enum(RULE_EVENTS, { message: `Each event must be one of ${RULE_EVENTS.join(', ')}` }), { message: 'Events must be a list' })
        .min(1, 'A trigger needs at least one event'),
    }),
    z.strictObject({
      kind: z.literal('time'),
      after: z
        .strictObject(
          {
            amount: z.number({ message: 'The wait must be a whole number' }).int('The wait must be a whole number').min(1, 'The wait must be at least 1'),
            unit: z.enum(RULE_DURATION_UNITS, { message: `The wait's unit must be one of ${RULE_DURATION_UNITS.join(', ')}` }),
          },
          { message: 'A time trigger needs its wait: {amount, unit}' },
        )
        .refine((after) => ruleDurationMs(after) <= RULE_WAIT_MAX_DAYS * UNIT_MS.days, `The wait must be at most ${RULE_WAIT_MAX_DAYS} days`),
    }),
  ],
  { message: 'Trigger kind must be event or time' },
);

const fields = {
  name,
  enabled: z.boolean({ message: 'Enabled must be true or false' }),
  trigger: ruleTriggerSchema,
  conditions: z
    .array(ruleConditionSchema, { message: 'Conditions must be a list' })
    .max(RULE_CONDITIONS_MAX, `A rule has at most ${RULE_CONDITIONS_MAX} conditions`),
  actions: z
    .array(ruleActionSchema, { message: 'Actions must be a list' })
    .min(1, 'A rule needs at least one action')
    .max(RULE_ACTIONS_MAX, `A rule has at most ${RULE_ACTIONS_MAX} actions`)
    .refine((list) => ['status', 'priority', 'assign', 'team'].every((type) => list.filter((a) => a.type === type).length <= 1), {
      message: 'A rule sets the status, the priority, the assignee and the team at most once each',
    }),
};

export const createRuleSchema = z.object({ ...fields, enabled: fields.enabled.default(true), conditions: fields.conditions.default([]) }).strict();
export const updateRuleSchema = z.object(fields).partial().strict();
export const reorderRulesSchema = z
  .object({ ids: z.array(id('A rule id'), { message: 'ids must be a list of rule ids' }).min(1, 'ids must name the rules in their new order') })
  .strict();
/** An export as it was downloaded (extra fields of each rule, such as its id and version, are ignored); each rule is created anew. */
export const importRulesSchema = z
  .object({
    rules: z.array(z.object(createRuleSchema.shape).strip(), { message: 'rules must be a list' }).min(1, 'rules is empty').max(100, 'At most 100 rules'),
  })
  .strip();

export type RuleInput = z.output<typeof createRuleSchema>;
export type RuleChanges = z.output<typeof updateRuleSchema>;
export type RuleTrigger = RuleInput['trigger'];
