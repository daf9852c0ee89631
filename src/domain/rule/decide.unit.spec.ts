import { DeciderSpecification } from '../../../test/support/decider';
import { ForbiddenError, NotFoundError, UnprocessableError } from '#contract/errors';
import { type RuleDetails, type RuleEvent, evolve, initialState } from './rule';
import { decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const ADMIN = { userId: 'admin-1', role: 'admin' as const };
const AGENT = { userId: 'agent-1', role: 'agent' as const };
const DETAILS: RuleDetails = {
  name: 'Route urgent billing',
  enabled: true,
  trigger: { kind: 'event', events: ['ticket_created'] },
  conditions: [{ field: 'priority', op: 'is', values: ['urgent'] }],
  actions: [{ type: 'team', teamId: 't1' }],
  order: 1,
};
const CREATED: RuleEvent = { type: 'RuleCreated', data: { ruleId: 'r1', version: 1, ...DETAILS } };

describe('Rule', () => {
  it('when an admin creates it, then it is version 1', () =>
    given([]).when({ type: 'CreateRule', ruleId: 'r1', actor: ADMIN, details: DETAILS }).then([CREATED]));

  it('when an agent creates or changes one, then it is forbidden', () => {
    given([]).when({ type: 'CreateRule', ruleId: 'r1', actor: AGENT, details: DETAILS }).thenThrows(ForbiddenError, 'Only admins can manage rules');
    given([CREATED])
      .when({ type: 'UpdateRule', ruleId: 'r1', actor: AGENT, changes: { enabled: false } })
      .thenThrows(ForbiddenError);
  });

  it('when switched off, then the change and the next version are recorded', () =>
    given([CREATED])
      .when({ type: 'UpdateRule', ruleId: 'r1', actor: ADMIN, changes: { enabled: false } })
      .then([{ type: 'RuleUpdated', data: { ruleId: 'r1', version: 2, changes: { enabled: false }, previous: { enabled: true } } }]));

  it('when nothing changes, then nothing is recorded', () =>
    given([CREATED])
      .when({ type: 'UpdateRule', ruleId: 'r1', actor: ADMIN, changes: { name: DETAILS.name } })
      .then([]));

  it('when a text names an agent variable, then it is refused with 422 naming it (a rule has no agent)', () =>
    given([CREATED])
      .when({ type: 'UpdateRule', ruleId: 'r1', actor: ADMIN, changes: { actions: [{ type: 'note', text: 'Hi {{agent.name}}, {{ticket.number}}' }] } })
      .thenThrows(UnprocessableError, /Unknown variable \{\{agent\.name\}\}/));

  it('when deleted, then its name and last version are kept, and it takes no more changes', () => {
    const deleted: RuleEvent = { type: 'RuleDeleted', data: { ruleId: 'r1', name: DETAILS.name, version: 1 } };
    given([CREATED]).when({ type: 'DeleteRule', ruleId: 'r1', actor: ADMIN }).then([deleted]);
    given([CREATED, deleted])
      .when({ type: 'UpdateRule', ruleId: 'r1', actor: ADMIN, changes: { enabled: false } })
      .thenThrows(NotFoundError);
  });
});
