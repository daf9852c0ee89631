import { Map as ImmutableMap } from 'immutable';
import type { Decider } from '../shared/decider';
import { DomainError } from '#contract/errors';
import type { RuleCondition, RuleEvent as RuleEventKind } from '#contract/rules';
import { type Platform, type Priority, type TicketStatus, isOpenStatus } from '#contract/tickets';
import { type TicketActor, type TicketCommand, decide as decideTicket } from '../ticket/decide';
import {
  type LiveTicket,
  type RuleNotice,
  type RuleRef,
  type RuleTriggerRef,
  type TicketEvent,
  type TicketState,
  evolve as evolveTicket,
  initialState as initialTicket,
} from '../ticket/ticket';

/**
 * A rule run on a ticket (docs/automation.md), decided on the ticket's own stream: the rule's
 * conditions are checked against the ticket the events are appended to, and the claim that a rule
 * runs once per triggering event is in that stream too, so a second try (a restart replaying the
 * log, another process reacting to the same event) decides again on a stream that already holds
 * the run and appends nothing.
 */

/** The key under which a stopped chain is claimed, beside the rules' ids. */
const CHAIN = '';

export interface RuleRunState {
  ticket: TicketState;
  /** The channel the ticket came in through. */
  platform: Platform | null;
  /** Per rule, the log position of the last triggering event it ran for on this ticket. */
  runs: ImmutableMap<string, number>;
}

export const initialState: RuleRunState = { ticket: initialTicket, platform: null, runs: ImmutableMap() };

export function evolve(state: RuleRunState, event: TicketEvent): RuleRunState {
  const ticket = evolveTicket(state.ticket, event);
  switch (event.type) {
    case 'TicketOpened':
      return { ...state, ticket, platform: event.data.platform };
    case 'RuleFired':
      return { ...state, ticket, runs: state.runs.set(event.data.rule.id, event.data.trigger.position) };
    case 'RuleChainStopped':
      return { ...state, ticket, runs: state.runs.set(CHAIN, event.data.trigger.position) };
    default:
      return { ...state, ticket };
  }
}

/** One of a rule's actions on the ticket: its words (for the history when refused) and the ticket command it runs. */
export interface RuleStep {
  label: string;
  command: Extract<TicketCommand, { type: 'PostMessage' | 'ChangeTicketStatus' | 'ChangeTicketPriority' | 'AssignTicket' | 'ChangeTicketTeam' | 'TagTicket' }>;
}

/** Whether the ticket is within business hours now, of a calendar (the default one when none is named). */
export type WithinHours = (calendarId: string | undefined) => boolean;

export type RuleRunCommand =
  | {
      type: 'RunRule';
      actor: TicketActor;
      rule: RuleRef;
      trigger: RuleTriggerRef;
      depth: number;
      /** The trigger's event in words, first of what matched. */
      eventLabel: string;
      conditions: Array<{ condition: RuleCondition; label: string }>;
      withinHours: WithinHours;
      steps: RuleStep[];
      notify: RuleNotice[];
    }
  | { type: 'StopRuleChain'; trigger: RuleTriggerRef; depth: number; rules: RuleRef[] };

/** What a rule's conditions read of a ticket: from its stream when a rule runs, from the read model in a dry run. */
export interface RuleFacts {
  status: TicketStatus;
  priority: Priority;
  /** `none` when the ticket is with no team. */
  team: string;
  /** `none` while nobody is assigned. */
  assignee: string;
  category: string;
  channel: Platform;
  customer: string;
  tags: readonly string[];
}

export const factsOf = (ticket: LiveTicket, platform: Platform | null): RuleFacts => ({
  status: ticket.status,
  priority: ticket.priority,
  team: ticket.team?.teamId ?? 'none',
  assignee: ticket.assignedAgentId ?? 'none',
  category: ticket.categoryId,
  channel: platform ?? 'web',
  customer: ticket.customerId,
  tags: ticket.tags,
});

/** Whether a condition holds on the ticket as it is. */
export function holds(condition: RuleCondition, facts: RuleFacts, withinHours: WithinHours): boolean {
  switch (condition.field) {
    case 'hours':
      return withinHours(condition.calendarId) === (condition.op === 'within');
    case 'tags': {
      const any = condition.values.some((tag) => facts.tags.includes(tag));
      return condition.op === 'has_any' ? any : !any;
    }
    default:
      return condition.values.includes(facts[condition.field]) === (condition.op === 'is');
  }
}

/** The kind of rule event a ticket event is, or null when no trigger listens to it. */
export function ruleEventOf(event: TicketEvent): RuleEventKind | null {
  switch (event.type) {
    case 'TicketOpened':
      return 'ticket_created';
    case 'MessagePosted':
      return event.data.senderRole === 'customer' && !event.data.isInternal ? 'customer_replied' : null;
    case 'TicketStatusChanged':
      return 'status_changed';
    case 'TicketPriorityChanged':
      return 'priority_changed';
    case 'TicketTagAdded':
      return 'tag_added';
    case 'SlaWarningRaised':
      return event.data.kind === 'breach' ? 'sla_breach' : 'sla_warning';
    case 'SatisfactionRated':
      return 'ticket_rated';
    default:
      return null;
  }
}

/** The ticket event types `ruleEventOf` reads. */
export const RULE_TRIGGER_TYPES = [
  'TicketOpened',
  'MessagePosted',
  'TicketStatusChanged',
  'TicketPriorityChanged',
  'TicketTagAdded',
  'SlaWarningRaised',
  'SatisfactionRated',
] as const;

/**
 * Runs what it can: an action the ticket refuses (an agent who left, a ticket that holds 20 tags) is
 * skipped and named in `RuleFired` with its reason, and the rest still run. A rule never reopens a
 * resolved or closed ticket: that takes the customer's open-ticket claim, which is a person's decision.
 */
function runRule(command: Extract<RuleRunCommand, { type: 'RunRule' }>, state: RuleRunState): TicketEvent[] {
  const { ticket } = state;
  if (ticket.kind !== 'live' || ticket.mergedInto) return [];
  if ((state.runs.get(command.rule.id) ?? -1) >= command.trigger.position) return [];
  const facts = factsOf(ticket, state.platform);
  if (!command.conditions.every(({ condition }) => holds(condition, facts, command.withinHours))) return [];
  const changes: TicketEvent[] = [];
  const skipped: Array<{ label: string; reason: string }> = [];
  let current: TicketState = ticket;
  for (const step of command.steps) {
    const { command: action } = step;
    if (action.type === 'ChangeTicketStatus' && current.kind === 'live' && !isOpenStatus(current.status) && isOpenStatus(action.status)) {
      skipped.push({ label: step.label, reason: 'a rule does not reopen a resolved or closed ticket' });
      continue;
    }
    try {
      const decided = decideTicket(action, current);
      changes.push(...decided);
      current = decided.reduce(evolveTicket, current);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      skipped.push({ label: step.label, reason: error.message });
    }
  }
  const fired: TicketEvent = {
    type: 'RuleFired',
    data: {
      ticketId: ticket.ticketId,
      number: ticket.number,
      rule: command.rule,
      trigger: command.trigger,
      depth: command.depth,
      matched: [command.eventLabel, ...command.conditions.map(({ label }) => label)],
      skipped,
      notify: command.notify,
    },
  };
  return [fired, ...changes];
}

export function decide(command: RuleRunCommand, state: RuleRunState): TicketEvent[] {
  switch (command.type) {
    case 'RunRule':
      return runRule(command, state);
    case 'StopRuleChain': {
      if (state.ticket.kind !== 'live' || (state.runs.get(CHAIN) ?? -1) >= command.trigger.position) return [];
      const { trigger, depth, rules } = command;
      return [{ type: 'RuleChainStopped', data: { ticketId: state.ticket.ticketId, trigger, depth, rules } }];
    }
  }
}

export const ruleRunDecider: Decider<RuleRunCommand, TicketEvent, RuleRunState> = { decide, evolve, initialState };
