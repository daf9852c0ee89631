import { changedFields } from '../shared/changes';
import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '#contract/errors';
import { unknownVariables } from '#contract/macros';
import { RULE_VARIABLES } from '#contract/rules';
import type { Role } from '#contract/users';
import { type LiveRule, type RuleDetails, type RuleEvent, type RuleState, evolve, initialState } from './rule';

interface RuleActor {
  userId: string;
  role: Role | 'system';
}

export type RuleCommand =
  | { type: 'CreateRule'; ruleId: string; actor: RuleActor; details: RuleDetails }
  | { type: 'UpdateRule'; ruleId: string; actor: RuleActor; changes: Partial<RuleDetails> }
  | { type: 'DeleteRule'; ruleId: string; actor: RuleActor };

/** Rules act on every ticket of the desk: only admins make or change them, whoever calls. */
function refuseNonAdmin(actor: RuleActor): void {
  if (actor.role !== 'admin') throw new ForbiddenError('Only admins can manage rules');
}

/** A rule's notes and notices may use only the variables of `RULE_VARIABLES`: 422 naming the others, rather than a customer reading `{{typo}}`. */
function checkVariables(details: RuleDetails): void {
  const texts = details.actions.flatMap((action) => ('text' in action ? [action.text] : []));
  const unknown = [...new Set(texts.flatMap((text) => unknownVariables(text, RULE_VARIABLES)))];
  if (unknown.length === 0) return;
  const error = new UnprocessableError(
    `Unknown ${unknown.length === 1 ? 'variable' : 'variables'} ${unknown.map((name) => `{{${name}}}`).join(', ')}; a rule may use ${RULE_VARIABLES.map((name) => `{{${name}}}`).join(', ')}`,
    'UNKNOWN_VARIABLES',
  );
  Object.assign(error.extra, { variables: unknown });
  throw error;
}

/**
 * A time rule's wait starts at the event that made its conditions hold; whether now is within
 * business hours changes with no event, so it cannot start or end a wait (docs/automation.md).
 */
function checkTimeConditions(details: RuleDetails): void {
  if (details.trigger.kind !== 'time') return;
  const index = details.conditions.findIndex((condition) => condition.field === 'hours');
  if (index < 0) return;
  const message = 'A time rule cannot use the business-hours condition: its wait counts around the clock';
  throw new ValidationError(message, [{ path: `conditions.${index}`, message }]);
}

function live(state: RuleState): LiveRule {
  if (state.status !== 'active') throw new NotFoundError('Rule');
  return state;
}

export function decide(command: RuleCommand, state: RuleState): RuleEvent[] {
  refuseNonAdmin(command.actor);
  switch (command.type) {
    case 'CreateRule':
      if (state.status !== 'none') throw new ConflictError('Rule already exists', 'RULE_EXISTS');
      checkVariables(command.details);
      checkTimeConditions(command.details);
      return [{ type: 'RuleCreated', data: { ruleId: command.ruleId, version: 1, ...command.details } }];
    case 'UpdateRule': {
      const { status: _status, ruleId, version, ...current } = live(state);
      const changed = changedFields<RuleDetails>(current, command.changes);
      if (!changed) return [];
      checkVariables({ ...current, ...changed.changes });
      checkTimeConditions({ ...current, ...changed.changes });
      return [{ type: 'RuleUpdated', data: { ruleId, version: version + 1, ...changed } }];
    }
    case 'DeleteRule': {
      const current = live(state);
      return [{ type: 'RuleDeleted', data: { ruleId: current.ruleId, name: current.name, version: current.version } }];
    }
  }
}

export const ruleDecider: Decider<RuleCommand, RuleEvent, RuleState> = { decide, evolve, initialState };
