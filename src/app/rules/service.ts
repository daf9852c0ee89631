import { ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import type { RuleAction, RuleChanges, RuleCondition, RuleInput } from '#contract/rules';
import { OPEN_STATUSES } from '#contract/tickets';
import { type RuleCommand, ruleDecider } from '../../domain/rule/decide';
import { type RuleDetails, ruleStream } from '../../domain/rule/rule';
import { holds } from '../../domain/rule/run';
import { SLA_SETTINGS_STREAM, slaSettingsDecider } from '../../domain/sla/settings';
import { type CommandContext, foldStream, handleCommand } from '../../platform/commands';
import { CATEGORIES } from '../../projections/categories';
import { RULE_FIRINGS, RULES, type RuleFiringView, type RuleView } from '../../projections/rules';
import { TEAMS, type TeamView } from '../../projections/teams';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { businessHours, factsOfView, orderedRules } from './engine';
import { waitsOfRule } from './time';
import { isTimeRule } from '../../domain/rule/time';

/** Rules as data (docs/automation.md): admin-only, each a versioned stream, listed from the `rules` read model. */

const ruleActor = (context: CommandContext) => ({ userId: context.actor.userId, role: context.actor.role as 'admin' });

const run = (deps: AppDeps, ruleId: string, command: RuleCommand, context: CommandContext) =>
  handleCommand(deps.events, ruleStream(ruleId), ruleDecider, command, context);

/** The decider refuses non-admins too; this answers 403 before anything is looked up for them. */
function adminOnly(context: CommandContext): void {
  if (context.actor.role !== 'admin') throw new ForbiddenError('Only admins can manage rules');
}

async function settled(deps: AppDeps, ruleId: string, position: number): Promise<RuleView> {
  await readYourWrites(deps, position);
  const found = await deps.readStore.collection<RuleView>(RULES).findOne({ _id: ruleId });
  if (!found) throw new NotFoundError('Rule');
  return found;
}

/**
 * The teams, agents, categories, customers and calendars a rule names must exist (400 naming the
 * path), so a rule never silently does nothing because of a typo in an id. `prefix` places the
 * paths inside an import's list.
 */
async function checkReferences(deps: AppDeps, rule: { conditions?: RuleCondition[]; actions?: RuleAction[] }, prefix: string[] = []): Promise<void> {
  const issues: Array<{ path: string; message: string }> = [];
  const path = (...parts: Array<string | number>) => [...prefix, ...parts].join('.');
  const teams = new Map((await deps.readStore.collection<TeamView>(TEAMS).find({})).map((team) => [team._id, team]));
  const activeTeam = (id: string) => teams.get(id)?.archived === false;
  const staff = async (id: string) => {
    const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: id });
    return user !== null && user.isActive && user.role !== 'customer';
  };
  const { state } = await foldStream(deps.events, SLA_SETTINGS_STREAM, slaSettingsDecider);
  for (const [index, condition] of (rule.conditions ?? []).entries()) {
    if (condition.field === 'hours' && condition.calendarId !== undefined && !state.settings.calendars.some((c) => c.id === condition.calendarId))
      issues.push({ path: path('conditions', index, 'calendarId'), message: 'Please choose one of the SLA calendars' });
    if (condition.field === 'team')
      for (const [v, value] of condition.values.entries())
        if (value !== 'none' && !teams.has(value)) issues.push({ path: path('conditions', index, 'values', v), message: 'Please choose a team' });
    if (condition.field === 'category')
      for (const [v, value] of condition.values.entries())
        if (!(await deps.readStore.collection(CATEGORIES).findOne({ _id: value })))
          issues.push({ path: path('conditions', index, 'values', v), message: 'Please choose a category' });
    if (condition.field === 'assignee')
      for (const [v, value] of condition.values.entries())
        if (value !== 'none' && !(await staff(value)))
          issues.push({ path: path('conditions', index, 'values', v), message: 'Please choose an active agent or admin' });
    if (condition.field === 'customer')
      for (const [v, value] of condition.values.entries())
        if ((await deps.readStore.collection<UserView>(USERS).findOne({ _id: value }))?.role !== 'customer')
          issues.push({ path: path('conditions', index, 'values', v), message: 'Please choose a customer' });
  }
  for (const [index, action] of (rule.actions ?? []).entries()) {
    if ((action.type === 'team' || action.type === 'notify_team') && !activeTeam(action.teamId))
      issues.push({ path: path('actions', index, 'teamId'), message: 'Please choose an active team' });
    if ((action.type === 'assign' || action.type === 'notify_agent') && !(await staff(action.agentId)))
      issues.push({ path: path('actions', index, 'agentId'), message: 'Please choose an active agent or admin' });
  }
  if (issues.length > 0) throw new ValidationError(issues[0]!.message, issues);
}

const nextOrder = async (deps: AppDeps) => ((await orderedRules(deps)).at(-1)?.order ?? 0) + 1;

export async function createRule(deps: AppDeps, input: RuleInput, context: CommandContext, ruleId = deps.newId()): Promise<RuleView> {
  adminOnly(context);
  await checkReferences(deps, input);
  const details: RuleDetails = { ...input, order: await nextOrder(deps) };
  const result = await run(deps, ruleId, { type: 'CreateRule', ruleId, actor: ruleActor(context), details }, context);
  return settled(deps, ruleId, result.position);
}

export async function updateRule(deps: AppDeps, ruleId: string, changes: RuleChanges, context: CommandContext): Promise<RuleView> {
  adminOnly(context);
  await checkReferences(deps, changes);
  const result = await run(deps, ruleId, { type: 'UpdateRule', ruleId, actor: ruleActor(context), changes }, context);
  return settled(deps, ruleId, result.position);
}

export async function deleteRule(deps: AppDeps, ruleId: string, context: CommandContext): Promise<void> {
  adminOnly(context);
  const result = await run(deps, ruleId, { type: 'DeleteRule', ruleId, actor: ruleActor(context) }, context);
  await readYourWrites(deps, result.position);
}

/** Every rule, named once, in the new order: each rule whose place changes gets a `RuleUpdated` with its next version. */
export async function reorderRules(deps: AppDeps, ids: string[], context: CommandContext): Promise<RuleView[]> {
  adminOnly(context);
  const current = await orderedRules(deps);
  const known = new Set(current.map((rule) => rule._id));
  if (new Set(ids).size !== ids.length || ids.length !== known.size || ids.some((id) => !known.has(id)))
    throw new ValidationError('ids must name every rule exactly once, in the new order', [
      { path: 'ids', message: 'ids must name every rule exactly once, in the new order' },
    ]);
  let position = 0;
  for (const [index, ruleId] of ids.entries()) {
    const result = await run(deps, ruleId, { type: 'UpdateRule', ruleId, actor: ruleActor(context), changes: { order: index + 1 } }, context);
    position = Math.max(position, result.position);
  }
  await readYourWrites(deps, position);
  return orderedRules(deps);
}

/** The rules as an import takes them back: their details, in order, without ids, versions or counts. */
export async function exportRules(deps: AppDeps, context: CommandContext): Promise<{ rules: RuleInput[] }> {
  adminOnly(context);
  return {
    rules: (await orderedRules(deps)).map(({ name, enabled, trigger, conditions, actions }) => ({ name, enabled, trigger, conditions, actions })),
  };
}

/** Each imported rule becomes a new rule (version 1) after the existing ones; all are checked before any is written. */
export async function importRules(deps: AppDeps, rules: RuleInput[], context: CommandContext): Promise<RuleView[]> {
  adminOnly(context);
  for (const [index, rule] of rules.entries()) await checkReferences(deps, rule, ['rules', String(index)]);
  const created: RuleView[] = [];
  for (const rule of rules) created.push(await createRule(deps, rule, context));
  return created;
}

const DRY_RUN_LIMIT = 1000;

const listed = (ticket: TicketView) => ({ _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title, status: ticket.status, priority: ticket.priority });

/**
 * An event rule: the open tickets whose fields meet its conditions now, what its actions would touch
 * if its event happened to each of them. The event itself is not checked: a dry run asks "which
 * tickets", not "when". A time rule: the tickets in a wait it has not run for, `due` (its time has
 * passed: it runs on them now) or `waiting` until `dueAt`. Nothing is recorded.
 */
export async function dryRunRule(deps: AppDeps, ruleId: string, context: CommandContext) {
  adminOnly(context);
  const rule = await deps.readStore.collection<RuleView>(RULES).findOne({ _id: ruleId });
  if (!rule) throw new NotFoundError('Rule');
  if (isTimeRule(rule)) {
    const waits = await waitsOfRule(deps, rule, DRY_RUN_LIMIT);
    const now = deps.clock().getTime();
    return {
      checked: waits.length,
      tickets: waits.map(({ ticket, wait, dueAt }) => ({
        ...listed(ticket),
        wait: { since: new Date(wait.since).toISOString(), dueAt: new Date(dueAt).toISOString(), state: dueAt <= now ? 'due' : 'waiting' },
      })),
    };
  }
  const withinHours = await businessHours(deps, deps.clock());
  const open = await deps.readStore
    .collection<TicketView>(TICKETS)
    .find({ status: { $in: [...OPEN_STATUSES] }, mergedInto: null }, { sort: { ticketId: -1 }, limit: DRY_RUN_LIMIT });
  const touched = open.filter((ticket) => rule.conditions.every((condition) => holds(condition, factsOfView(ticket), withinHours)));
  return {
    checked: open.length,
    tickets: touched.map(listed),
  };
}

/** How often a rule fired and on which tickets, latest first. */
export async function ruleFirings(deps: AppDeps, ruleId: string, context: CommandContext) {
  adminOnly(context);
  const rule = await deps.readStore.collection<RuleView>(RULES).findOne({ _id: ruleId });
  if (!rule) throw new NotFoundError('Rule');
  const firings = await deps.readStore.collection<RuleFiringView>(RULE_FIRINGS).find({ ruleId }, { sort: { at: -1 }, limit: 50 });
  return { fired: rule.fired, firings: firings.map(({ _id, ...firing }) => ({ eventId: _id, ...firing })) };
}
