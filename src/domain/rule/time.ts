import { type RuleCondition, type RuleDuration, type RuleTrigger, ruleDurationMs } from '#contract/rules';
import type { TicketEvent } from '../ticket/ticket';
import { type RuleRunCommand, type RuleRunState, decide as decideRun, evolve, factsOf, holds, initialState } from './run';

/**
 * Time rules (docs/automation.md): "tickets that have matched the conditions for a duration". The
 * wait is a pure function of the ticket's events: it starts at the event after which the conditions
 * have held ever since, and a later event that makes them fail ends it. The run is decided on the
 * events it is appended after, and its `RuleFired` names the wait's first event as its trigger, so
 * the claim "this rule ran for this wait" sits in the ticket's stream like a trigger's.
 */

/** A ticket event with where and when it was recorded. */
export interface PlacedTicketEvent {
  id: string;
  position: number;
  occurredAt: string;
  event: TicketEvent;
}

/** The event that started a ticket's current wait. */
export interface RuleWait {
  eventId: string;
  position: number;
  /** When the wait started (ms). */
  since: number;
}

/** A time rule has no hours condition (the decider refuses one), so no calendar is asked. */
const AROUND_THE_CLOCK = () => true;

/** The ticket folded for rule runs, and the wait for `conditions` it is in now (null: they do not hold). */
export function currentWait(conditions: readonly RuleCondition[], events: readonly PlacedTicketEvent[]): { state: RuleRunState; wait: RuleWait | null } {
  let state = initialState;
  let wait: RuleWait | null = null;
  for (const placed of events) {
    state = evolve(state, placed.event);
    const { ticket } = state;
    const matches =
      ticket.kind === 'live' && !ticket.mergedInto && conditions.every((condition) => holds(condition, factsOf(ticket, state.platform), AROUND_THE_CLOCK));
    if (!matches) wait = null;
    else wait ??= { eventId: placed.id, position: placed.position, since: Date.parse(placed.occurredAt) };
  }
  return { state, wait };
}

/** Whether the rule already ran for this wait: its claim, in the same stream. */
export const ranFor = (state: RuleRunState, ruleId: string, wait: RuleWait) => (state.runs.get(ruleId) ?? -1) >= wait.position;

export const isTimeRule = <R extends { trigger: RuleTrigger }>(rule: R): rule is R & { trigger: { kind: 'time'; after: RuleDuration } } =>
  rule.trigger.kind === 'time';

/** When a wait is due. */
export const dueAt = (wait: RuleWait, after: RuleDuration) => wait.since + ruleDurationMs(after);

export type RunTimeRule = Omit<Extract<RuleRunCommand, { type: 'RunRule' }>, 'type' | 'trigger' | 'depth' | 'withinHours'> & {
  after: RuleDuration;
  now: Date;
};

/**
 * Runs a time rule on the ticket whose events these are, if it is in a wait for the rule's
 * conditions that is due at `now` and that the rule has not run for: otherwise nothing. A wait that
 * ended (or ended and started again) before this decision is not the one any timer was for, so a
 * late or doubled timer finds nothing to do.
 */
export function decideTimeRule(command: RunTimeRule, events: readonly PlacedTicketEvent[]): TicketEvent[] {
  const { after, now, ...run } = command;
  const { state, wait } = currentWait(
    run.conditions.map(({ condition }) => condition),
    events,
  );
  if (!wait || now.getTime() < dueAt(wait, after)) return [];
  const trigger = { eventId: wait.eventId, position: wait.position, event: 'time' as const };
  return decideRun({ ...run, type: 'RunRule', trigger, depth: 1, withinHours: AROUND_THE_CLOCK }, state);
}
