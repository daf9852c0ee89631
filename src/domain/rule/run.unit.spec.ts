import { DeciderSpecification } from '../../../test/support/decider';
import type { TicketEvent } from '../ticket/ticket';
import { type RuleRunCommand, decide, evolve, initialState } from './run';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const OPENED: TicketEvent = {
  type: 'TicketOpened',
  data: {
    ticketId: 't1',
    number: 1001,
    title: 'Charged twice',
    description: 'x',
    categoryId: 'billing',
    priority: 'urgent',
    customerId: 'c1',
    customFieldValues: [],
    platform: 'telegram',
  },
};
const ACTOR = { userId: 'system', role: 'admin' as const };
const RULE = { id: 'r1', name: 'Route urgent billing', version: 3 };
const TRIGGER = { eventId: 'e1', position: 10, event: 'ticket_created' as const };
const TEAM = { teamId: 'team-1', name: 'Billing', archived: false };
const ROUTE_STEP = {
  label: 'put the ticket with the team "Billing"',
  command: { type: 'ChangeTicketTeam' as const, ticketId: 't1', actor: ACTOR, teamId: 'team-1', team: TEAM },
};

const run = (overrides: Partial<Extract<RuleRunCommand, { type: 'RunRule' }>> = {}): RuleRunCommand => ({
  type: 'RunRule',
  actor: ACTOR,
  rule: RULE,
  trigger: TRIGGER,
  depth: 1,
  eventLabel: 'a ticket is created',
  conditions: [
    { condition: { field: 'priority', op: 'is', values: ['urgent'] }, label: 'priority is urgent' },
    { condition: { field: 'channel', op: 'is', values: ['telegram'] }, label: 'channel is telegram' },
  ],
  withinHours: () => true,
  steps: [ROUTE_STEP],
  notify: [],
  ...overrides,
});

const fired = (skipped: Array<{ label: string; reason: string }> = []): TicketEvent => ({
  type: 'RuleFired',
  data: {
    ticketId: 't1',
    number: 1001,
    rule: RULE,
    trigger: TRIGGER,
    depth: 1,
    matched: ['a ticket is created', 'priority is urgent', 'channel is telegram'],
    skipped,
    notify: [],
  },
});
const ROUTED: TicketEvent = {
  type: 'TicketTeamChanged',
  data: { ticketId: 't1', teamId: 'team-1', teamName: 'Billing', previousTeamId: null, previousTeamName: null },
};

describe('A rule run on a ticket', () => {
  it('when its conditions hold, then it records that it fired and makes its changes', () => given([OPENED]).when(run()).then([fired(), ROUTED]));

  it('when a condition does not hold, then nothing is recorded', () =>
    given([OPENED])
      .when(run({ withinHours: () => false, conditions: [{ condition: { field: 'hours', op: 'within' }, label: 'now is within business hours' }] }))
      .then([]));

  it('when it already ran for this triggering event or a later one, then it runs no more (the claim)', () => {
    given([OPENED, fired(), ROUTED]).when(run()).then([]);
    given([OPENED, fired(), ROUTED])
      .when(run({ trigger: { ...TRIGGER, eventId: 'e0', position: 9 } }))
      .then([]);
  });

  it('when an action is refused, then it is skipped with its reason and the others still run', () =>
    given([OPENED])
      .when(
        run({
          steps: [
            { label: 'set the status to Open', command: { type: 'ChangeTicketStatus', ticketId: 't1', actor: ACTOR, status: 'open' } },
            { label: 'assign the ticket to an unknown user', command: { type: 'AssignTicket', ticketId: 't1', actor: ACTOR, agent: null } },
            ROUTE_STEP,
          ],
        }),
      )
      .then([fired([{ label: 'assign the ticket to an unknown user', reason: 'Tickets can only be assigned to an active agent or admin' }]), ROUTED]));

  it('when a chain is stopped, then it is recorded once per triggering event', () => {
    const stop: RuleRunCommand = { type: 'StopRuleChain', trigger: TRIGGER, depth: 6, rules: [RULE] };
    const stopped: TicketEvent = { type: 'RuleChainStopped', data: { ticketId: 't1', trigger: TRIGGER, depth: 6, rules: [RULE] } };
    given([OPENED]).when(stop).then([stopped]);
    given([OPENED, stopped]).when(stop).then([]);
  });
});
