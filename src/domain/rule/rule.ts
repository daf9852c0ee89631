import type { DomainEvent } from '../shared/decider';
import type { RuleAction, RuleCondition, RuleTrigger } from '#contract/rules';

export const ruleStream = (ruleId: string) => `rule-${ruleId}`;

export interface RuleDetails {
  name: string;
  enabled: boolean;
  trigger: RuleTrigger;
  /** All must hold. */
  conditions: RuleCondition[];
  actions: RuleAction[];
  /** Rules run in ascending order on each event (docs/automation.md). */
  order: number;
}

/** Every change names the version it makes, so a rule's changes on tickets say which version acted. */
export type RuleEvent =
  | DomainEvent<'RuleCreated', { ruleId: string; version: 1 } & RuleDetails>
  | DomainEvent<'RuleUpdated', { ruleId: string; version: number; changes: Partial<RuleDetails>; previous: Partial<RuleDetails> }>
  | DomainEvent<'RuleDeleted', { ruleId: string; name: string; version: number }>;

export type LiveRule = { status: 'active'; ruleId: string; version: number } & RuleDetails;
export type RuleState = { status: 'none' } | LiveRule | { status: 'deleted'; ruleId: string };

export const initialState: RuleState = { status: 'none' };

export function evolve(state: RuleState, event: RuleEvent): RuleState {
  switch (event.type) {
    case 'RuleCreated': {
      const { ruleId, version, name, enabled, trigger, conditions, actions, order } = event.data;
      return { status: 'active', ruleId, version, name, enabled, trigger, conditions, actions, order };
    }
    case 'RuleUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes, version: event.data.version } : state;
    case 'RuleDeleted':
      return { status: 'deleted', ruleId: event.data.ruleId };
  }
}
