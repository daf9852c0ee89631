import { renderMacroText } from '#contract/macros';
import { RULE_CHAIN_MAX_DEPTH, RULE_EVENT_WORDS, type RuleAction, type RuleCondition } from '#contract/rules';
import { STATUS_WORDS, isOpenStatus } from '#contract/tickets';
import { elapsedBusiness } from '../../domain/sla/calendar';
import { SLA_SETTINGS_STREAM, slaSettingsDecider } from '../../domain/sla/settings';
import { type RuleFacts, type RuleRunState, type RuleStep, type WithinHours, factsOf, holds, ruleEventOf, ruleRunDecider } from '../../domain/rule/run';
import { type RuleNotice, type RuleRef, type TicketEvent, type TicketState, ticketStream } from '../../domain/ticket/ticket';
import type { TicketActor } from '../../domain/ticket/decide';
import { type CommandContext, foldStream, handleCommand } from '../../platform/commands';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import { CATEGORIES } from '../../projections/categories';
import { RULES, type RuleView } from '../../projections/rules';
import { TEAMS, type TeamView } from '../../projections/teams';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { loadSystemSettings } from '../../projections/settings';
import type { AppDeps } from '../deps';
import { policyForNewTicket } from '../sla/service';
import { releaseOpenTicket } from '../tickets/service';
import { isTimeRule } from '../../domain/rule/time';

/**
 * The rules engine (docs/automation.md): on each ticket event a trigger listens to, the enabled
 * rules run in their order, each decided on the ticket's stream as it then stands and appended with
 * the claim of its run (src/domain/rule/run.ts), so a rule runs once per triggering event however
 * often and wherever this is called. Its changes carry the rule as actor.
 */

/** The actor of the ticket commands a rule runs: admin's powers, as the admin who built the rule meant. */
export const RULE_ACTOR: TicketActor = { userId: 'system', role: 'admin' };

const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`.trim();

/** The rules in the order they run; the read model is what the engine reads, once it includes the triggering event. */
export const orderedRules = (deps: AppDeps, filter: Record<string, unknown> = {}) =>
  deps.readStore.collection<RuleView>(RULES).find(filter, { sort: { order: 1 } });

/**
 * The enabled rules in order, kept per app (one process may run several in tests) from one read of the
 * read model until a rule event passes the reactor (`forgetEnabledRules`), so a ticket event costs no
 * read of them (on MongoDB a round trip each). The reactor goes through the log in order, so every
 * ticket event after a rule's change finds the cache emptied by it.
 */
const enabledRules = new WeakMap<AppDeps, Promise<RuleView[]>>();

/** The enabled time rules, from the same kept list. */
export const enabledTimeRules = async (deps: AppDeps) => (await enabledRulesOf(deps)).filter(isTimeRule);

export function forgetEnabledRules(deps: AppDeps): void {
  enabledRules.delete(deps);
}

function enabledRulesOf(deps: AppDeps): Promise<RuleView[]> {
  let rules = enabledRules.get(deps);
  if (!rules) {
    rules = orderedRules(deps, { enabled: true });
    enabledRules.set(deps, rules);
    // A read that failed is tried again by the next event, not kept.
    rules.catch(() => enabledRules.delete(deps));
  }
  return rules;
}

/** Whether now is within the business hours of an SLA calendar; with no calendar the desk works around the clock. */
export async function businessHours(deps: AppDeps, now: Date): Promise<WithinHours> {
  const { state } = await foldStream(deps.events, SLA_SETTINGS_STREAM, slaSettingsDecider);
  const { calendars, defaultCalendarId } = state.settings;
  return (calendarId) => {
    const calendar = calendars.find((one) => one.id === (calendarId ?? defaultCalendarId));
    return !calendar || elapsedBusiness(calendar, now.getTime(), now.getTime() + 60_000) > 0;
  };
}

/** What a rule's conditions read of a ticket, from the tickets read model (dry runs, the tickets a time rule may be waiting on). */
export const factsOfView = (ticket: TicketView): RuleFacts => ({
  status: ticket.status,
  priority: ticket.priority,
  team: ticket.team?._id ?? 'none',
  assignee: ticket.assignedAgent?._id ?? 'none',
  category: ticket.category._id,
  channel: ticket.platform,
  customer: ticket.customer._id,
  tags: ticket.tags,
});

const QUOTE = (text: string) => `"${text}"`;

/** A condition in words, names joined from the read models: "priority is urgent", "team is not "Billing"". */
async function conditionLabel(deps: AppDeps, condition: RuleCondition): Promise<string> {
  if (condition.field === 'hours') return `now is ${condition.op === 'within' ? 'within' : 'outside'} business hours`;
  if (condition.field === 'tags') return `the ticket ${condition.op === 'has_any' ? 'has' : 'has none of'} the tags ${condition.values.join(', ')}`;
  const names = await Promise.all(
    condition.values.map(async (value) => {
      if (condition.field === 'status') return STATUS_WORDS[value as keyof typeof STATUS_WORDS] ?? value;
      if (condition.field === 'team') {
        if (value === 'none') return 'no team';
        const team = await deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: value });
        return QUOTE(team?.name ?? value);
      }
      if (condition.field === 'category') {
        const category = await deps.readStore.collection<{ _id: string; name: string }>(CATEGORIES).findOne({ _id: value });
        return QUOTE(category?.name ?? value);
      }
      if (condition.field === 'assignee') {
        if (value === 'none') return 'nobody';
        const agent = await deps.readStore.collection<UserView>(USERS).findOne({ _id: value });
        return agent ? fullName(agent) : value;
      }
      if (condition.field === 'customer') {
        const customer = await deps.readStore.collection<UserView>(USERS).findOne({ _id: value });
        return customer ? fullName(customer) : value;
      }
      return value;
    }),
  );
  return `${condition.field} ${condition.op === 'is' ? 'is' : 'is not'} ${names.join(' or ')}`;
}

interface Prepared {
  steps: RuleStep[];
  notify: RuleNotice[];
}

/** Each of a rule's conditions with its words. */
export const labelled = (deps: AppDeps, conditions: readonly RuleCondition[]) =>
  Promise.all(conditions.map(async (condition) => ({ condition, label: await conditionLabel(deps, condition) })));

/** The rule's actions as ticket commands and staff notices, texts rendered for this ticket. */
export async function prepare(
  deps: AppDeps,
  rule: Pick<RuleView, '_id' | 'actions'>,
  ticket: TicketView,
  state: RuleRunState,
  context: CommandContext,
): Promise<Prepared> {
  const ticketId = ticket._id;
  const values = {
    'customer.name': fullName(ticket.customer),
    'customer.firstName': ticket.customer.firstName,
    'ticket.number': String(ticket.ticketId),
    'ticket.title': ticket.title,
    'agent.name': '',
    'agent.firstName': '',
  };
  // The customer reads a rule's message as the desk's, not an internal rule's name nor "Unknown user".
  const senderName = (await loadSystemSettings(deps.readStore)).systemName;
  const post = (index: number, content: string, isInternal: boolean): RuleStep['command'] => ({
    type: 'PostMessage',
    ticketId,
    // The same id each try of this run: a run decided again after a lost race posts it once.
    messageId: `${rule._id}-${context.causationId}-${index}`,
    actor: RULE_ACTOR,
    content: renderMacroText(content, values),
    isInternal,
    attachments: [],
    platform: 'web',
    now: context.now,
    senderName,
  });
  const teamOf = (teamId: string) => deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: teamId });
  const steps: RuleStep[] = [];
  const notify: RuleNotice[] = [];
  for (const [index, action] of rule.actions.entries()) {
    const step = await stepOf(action, index);
    if (step) steps.push(step);
  }
  return { steps, notify };

  async function stepOf(action: RuleAction, index: number): Promise<RuleStep | null> {
    switch (action.type) {
      case 'status':
        return {
          label: `set the status to ${STATUS_WORDS[action.status]}`,
          command: { type: 'ChangeTicketStatus', ticketId, actor: RULE_ACTOR, status: action.status },
        };
      case 'priority': {
        const categoryId = state.ticket.kind === 'live' ? state.ticket.categoryId : '';
        const sla = { policy: await policyForNewTicket(deps, categoryId, action.priority), categoryId, priority: action.priority };
        return {
          label: `set the priority to ${action.priority}`,
          command: { type: 'ChangeTicketPriority', ticketId, actor: RULE_ACTOR, priority: action.priority, sla },
        };
      }
      case 'assign': {
        const agent = await deps.readStore.collection<UserView>(USERS).findOne({ _id: action.agentId });
        const lookup = agent ? { userId: agent._id, role: agent.role, isActive: agent.isActive } : null;
        return {
          label: `assign the ticket to ${agent ? fullName(agent) : 'an unknown user'}`,
          command: { type: 'AssignTicket', ticketId, actor: RULE_ACTOR, agent: lookup },
        };
      }
      case 'team': {
        const team = await teamOf(action.teamId);
        return {
          label: `put the ticket with the team ${QUOTE(team?.name ?? action.teamId)}`,
          command: {
            type: 'ChangeTicketTeam',
            ticketId,
            actor: RULE_ACTOR,
            teamId: action.teamId,
            team: team ? { teamId: team._id, name: team.name, archived: team.archived } : null,
          },
        };
      }
      case 'tag':
      case 'untag':
        return {
          label: `${action.type === 'tag' ? 'add' : 'remove'} the tag ${QUOTE(action.tag)}`,
          command: { type: 'TagTicket', ticketId, actor: RULE_ACTOR, tag: action.tag, tagged: action.type === 'tag' },
        };
      case 'note':
        return { label: 'add an internal note', command: post(index, action.text, true) };
      case 'notify_customer':
        return { label: 'message the customer', command: post(index, action.text, false) };
      case 'notify_team': {
        const team = await teamOf(action.teamId);
        if (team && !team.archived) notify.push({ to: 'team', teamId: team._id, teamName: team.name, text: renderMacroText(action.text, values) });
        return null;
      }
      case 'notify_agent':
        notify.push({ to: 'agent', agentId: action.agentId, text: renderMacroText(action.text, values) });
        return null;
    }
  }
}

export const ruleRef = (rule: Pick<RuleView, '_id' | 'name' | 'version'>): RuleRef => ({ id: rule._id, name: rule.name, version: rule.version });

/** A rule that resolved or closed the ticket lets its customer's open-ticket claim go, as a status change by a person does. */
export async function releaseIfEnded(deps: AppDeps, before: TicketState, after: TicketState, context: CommandContext): Promise<void> {
  if (before.kind === 'live' && after.kind === 'live' && isOpenStatus(before.status) && !isOpenStatus(after.status))
    await releaseOpenTicket(deps, after.customerId, after.ticketId, context);
}

/**
 * Runs the enabled rules listening to this event on its ticket, in order, each on the ticket as the
 * rules before it left it. An event a rule made does not run that rule again, and carries its depth:
 * past RULE_CHAIN_MAX_DEPTH the rules that would run are named in `RuleChainStopped` instead.
 */
export async function runRules(deps: AppDeps, recorded: RecordedEvent): Promise<void> {
  const kind = ruleEventOf(recordedAs<TicketEvent>(recorded));
  if (!kind || !recorded.streamId.startsWith('ticket-')) return;
  const cause = recorded.metadata.rule;
  const depth = (cause?.depth ?? 0) + 1;
  const rules = (await enabledRulesOf(deps)).filter((rule) => rule._id !== cause?.id && rule.trigger.kind === 'event' && rule.trigger.events.includes(kind));
  if (rules.length === 0) return;
  const ticketId = String(recorded.data.ticketId);
  const now = deps.clock();
  const withinHours = await businessHours(deps, now);
  const trigger = { eventId: recorded.id, position: recorded.position, event: kind };
  const base: CommandContext = { actor: { userId: 'system', role: 'system', platform: 'system' }, now, causationId: recorded.id };
  const stream = ticketStream(ticketId);
  if (depth > RULE_CHAIN_MAX_DEPTH) {
    const { state } = await foldStream(deps.events, stream, ruleRunDecider);
    if (state.ticket.kind !== 'live') return;
    const facts = factsOf(state.ticket, state.platform);
    const would = rules.filter((rule) => rule.conditions.every((condition) => holds(condition, facts, withinHours)));
    if (would.length > 0) await handleCommand(deps.events, stream, ruleRunDecider, { type: 'StopRuleChain', trigger, depth, rules: would.map(ruleRef) }, base);
    return;
  }
  for (const rule of rules) {
    const ticket = await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: ticketId });
    const { state } = await foldStream(deps.events, stream, ruleRunDecider);
    if (!ticket || state.ticket.kind !== 'live') return;
    const conditions = await labelled(deps, rule.conditions);
    const eventLabel = RULE_EVENT_WORDS[kind];
    const context: CommandContext = { ...base, rule: { ...ruleRef(rule), matched: [eventLabel, ...conditions.map(({ label }) => label)], depth } };
    const { steps, notify } = await prepare(deps, rule, ticket, state, context);
    const result = await handleCommand(
      deps.events,
      stream,
      ruleRunDecider,
      { type: 'RunRule', actor: RULE_ACTOR, rule: ruleRef(rule), trigger, depth, eventLabel, conditions, withinHours, steps, notify },
      context,
    );
    await releaseIfEnded(deps, state.ticket, result.state.ticket, base);
  }
}
