import { type RuleCondition, type RuleDuration, ruleDurationWords } from '#contract/rules';
import { ruleDecider } from '../../domain/rule/decide';
import { ruleStream } from '../../domain/rule/rule';
import { holds } from '../../domain/rule/run';
import { type PlacedTicketEvent, type RuleWait, currentWait, decideTimeRule, dueAt, isTimeRule, ranFor } from '../../domain/rule/time';
import { CLAIM_WITHDRAWN } from '../../domain/reservation/reservation';
import { type TicketEvent, evolve as evolveTicket, ticketStream } from '../../domain/ticket/ticket';
import { type CommandContext, foldStream, metadataOf } from '../../platform/commands';
import { isWrongExpectedVersion, recordedAs } from '../../platform/eventstore/port';
import type { RuleView } from '../../projections/rules';
import { TICKETS, type TicketView } from '../../projections/tickets';
import type { AppDeps } from '../deps';
import type { PlannedJob } from '../jobs/planned';
import { RULE_ACTOR, factsOfView, labelled, prepare, releaseIfEnded, ruleRef } from './engine';

/**
 * Time rules (docs/automation.md): a delayed job per (rule, version, ticket, the event that started
 * the wait) in the durable queue; when due, the run is decided on the ticket's events as read and
 * appended expecting that revision, and its `RuleFired` is the claim that the rule ran for that wait.
 * Timers are only reminders: a late, doubled or stale one decides again on the stream and finds
 * nothing to do, and one lost is planned again from the log at the next start.
 */

export const RULE_TIMER_QUEUE = 'rule-timers';

export interface RuleTimerJob {
  ruleId: string;
  version: number;
  ticketId: string;
  /** The log position of the event that started the wait. */
  position: number;
  /** When the wait is due (ms): the job waits for it in hops of at most SLA_TIMER_MAX_DELAY_MS, as the SLA timers do. */
  at: number;
  hop: number;
}

/** A time rule as its timers read it. */
export type TimeRule = Pick<RuleView, '_id' | 'name' | 'version' | 'conditions' | 'actions'> & { trigger: { kind: 'time'; after: RuleDuration } };

/** Derived from what the timer is for: a replay, a re-arm or a second process adds nothing twice. */
const timerId = (job: RuleTimerJob) => `rule-time:${job.ruleId}:${job.version}:${job.ticketId}:${job.position}:${job.hop}`;

function timer(deps: AppDeps, rule: TimeRule, ticketId: string, wait: RuleWait, hop = 0): PlannedJob {
  const at = dueAt(wait, rule.trigger.after);
  const data: RuleTimerJob = { ruleId: rule._id, version: rule.version, ticketId, position: wait.position, at, hop };
  const delayMs = Math.max(0, Math.min(at - deps.clock().getTime(), deps.config.SLA_TIMER_MAX_DELAY_MS));
  return { queue: RULE_TIMER_QUEUE, name: 'time-rule', data, options: { jobId: timerId(data), delayMs, backoffMs: 5000 } };
}

async function placedEvents(deps: AppDeps, ticketId: string): Promise<{ events: PlacedTicketEvent[]; revision: number | null }> {
  const recorded = await deps.events.readStream(ticketStream(ticketId));
  const events = recorded
    .filter((event) => event.type !== CLAIM_WITHDRAWN)
    .map((event) => ({ id: event.id, position: event.position, occurredAt: event.metadata.occurredAt, event: recordedAs<TicketEvent>(event) }));
  return { events, revision: recorded.at(-1)?.revision ?? null };
}

/** The wait a ticket is in for a rule that has not yet run for it, or null. */
function openWait(rule: TimeRule, events: readonly PlacedTicketEvent[]): RuleWait | null {
  const { state, wait } = currentWait(rule.conditions, events);
  return wait && !ranFor(state, rule._id, wait) ? wait : null;
}

/** The timers of one ticket: one per time rule it is waiting for (on each event that may start or end a wait). */
export async function timersOfTicket(deps: AppDeps, ticketId: string, rules: readonly TimeRule[]): Promise<PlannedJob[]> {
  if (rules.length === 0) return [];
  const { events } = await placedEvents(deps, ticketId);
  return rules.flatMap((rule) => {
    const wait = openWait(rule, events);
    return wait ? [timer(deps, rule, ticketId, wait)] : [];
  });
}

/** The tickets whose fields meet the conditions now, narrowed in the query by a `status is` condition (the usual case). */
async function candidates(deps: AppDeps, conditions: readonly RuleCondition[], limit?: number): Promise<TicketView[]> {
  const status = conditions.find((condition) => condition.field === 'status' && condition.op === 'is');
  const filter = { mergedInto: null, ...(status && 'values' in status ? { status: { $in: status.values } } : {}) };
  const found = await deps.readStore.collection<TicketView>(TICKETS).find(filter, { sort: { ticketId: -1 }, ...(limit ? { limit } : {}) });
  return found.filter((ticket) => conditions.every((condition) => holds(condition, factsOfView(ticket), () => true)));
}

/** The tickets waiting for a time rule now, with when each wait is due. */
export async function waitsOfRule(deps: AppDeps, rule: TimeRule, limit?: number): Promise<Array<{ ticket: TicketView; wait: RuleWait; dueAt: number }>> {
  const waits = [];
  for (const ticket of await candidates(deps, rule.conditions, limit)) {
    const wait = openWait(rule, (await placedEvents(deps, ticket._id)).events);
    if (wait) waits.push({ ticket, wait, dueAt: dueAt(wait, rule.trigger.after) });
  }
  return waits;
}

/** Every ticket's timer for one time rule: when it is created or changed, and at each start (a queue that lost them re-arms). */
export async function timersOfRule(deps: AppDeps, rule: TimeRule): Promise<PlannedJob[]> {
  return (await waitsOfRule(deps, rule)).map(({ ticket, wait }) => timer(deps, rule, ticket._id, wait));
}

/** The rule as its own stream has it now, if it is an enabled time rule: a switched-off, deleted or changed-kind rule's timers do nothing. */
async function liveTimeRule(deps: AppDeps, ruleId: string): Promise<TimeRule | null> {
  const { state } = await foldStream(deps.events, ruleStream(ruleId), ruleDecider);
  if (state.status !== 'active' || !state.enabled) return null;
  const rule = { ...state, _id: state.ruleId };
  return isTimeRule(rule) ? rule : null;
}

const RETRIES = 5;

/**
 * A timer that is due runs its rule on the ticket if the ticket is still in a wait the rule has not
 * run for, and that wait is due now (a changed rule or a new wait plans its own timer instead). The
 * append expects the revision read: a person's change meanwhile, or another process running the
 * same wait, makes it decide again on the stream that now holds that change or that run.
 */
export async function fireRuleTimer(deps: AppDeps, job: RuleTimerJob): Promise<void> {
  const add = (planned: PlannedJob) => deps.queue.add(planned.queue, planned.name, planned.data, planned.options);
  const rule = await liveTimeRule(deps, job.ruleId);
  if (!rule) return;
  for (let attempt = 1; attempt <= RETRIES; attempt++) {
    const now = deps.clock();
    const { events, revision } = await placedEvents(deps, job.ticketId);
    const wait = openWait(rule, events);
    if (!wait) return;
    // Early (a clock set back, a hop of a long wait) or another wait or version: the timer for what is there now.
    if (now.getTime() < dueAt(wait, rule.trigger.after))
      return void (await add(timer(deps, rule, job.ticketId, wait, wait.position === job.position ? job.hop + 1 : 0)));
    const ticket = await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: job.ticketId });
    // The read model has not seen the ticket yet: the queue tries again.
    if (!ticket) throw new Error('The ticket is not in the read model yet');
    const conditions = await labelled(deps, rule.conditions);
    const eventLabel = `the ticket has matched for ${ruleDurationWords(rule.trigger.after)} (since ${new Date(wait.since).toISOString()})`;
    const context: CommandContext = {
      actor: { userId: 'system', role: 'system', platform: 'system' },
      now,
      causationId: wait.eventId,
      rule: { ...ruleRef(rule), matched: [eventLabel, ...conditions.map(({ label }) => label)], depth: 1 },
    };
    const { state } = currentWait(rule.conditions, events);
    const { steps, notify } = await prepare(deps, rule, ticket, state, context);
    const decided = decideTimeRule({ actor: RULE_ACTOR, rule: ruleRef(rule), eventLabel, conditions, steps, notify, after: rule.trigger.after, now }, events);
    if (decided.length === 0) return;
    try {
      const stream = ticketStream(job.ticketId);
      const toAppend = decided.map((event) => ({ type: event.type, data: event.data as Record<string, unknown>, metadata: metadataOf(context) }));
      await deps.events.append(stream, toAppend, revision ?? 'no_stream');
    } catch (error) {
      if (isWrongExpectedVersion(error)) continue;
      throw error;
    }
    await releaseIfEnded(deps, state.ticket, decided.reduce(evolveTicket, state.ticket), context);
    return;
  }
  throw new Error(`The ticket changed under ${RETRIES} tries of a time rule's run; the queue tries again`);
}
