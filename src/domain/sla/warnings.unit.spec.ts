import { DeciderSpecification } from '../../../test/support/decider';
import type { DomainEvent } from '../shared/decider';
import type { AppliedPolicy } from './clock';
import { type RaiseSlaWarning, type SlaWarningEvent, evolve, slaWarningDecider } from './warnings';

type Given = DomainEvent & { metadata?: { occurredAt: string } };
const given = DeciderSpecification.for({ decide: slaWarningDecider.decide, evolve, initialState: slaWarningDecider.initialState });

const T = 't1';
const OPENED_AT = '2026-01-19T09:00:00.000Z';
const POLICY: AppliedPolicy = {
  policyId: 'fast',
  policyName: 'Fast',
  version: 1,
  calendarName: null,
  hours: null,
  targets: { firstResponse: 10, nextResponse: null, resolution: null },
  pauseStatuses: ['pending_customer'],
  warnPercent: 50,
};
const at = (minutes: number) => new Date(Date.parse(OPENED_AT) + minutes * 60_000);
const recorded = (type: string, data: object, minutes = 0): Given => ({
  type,
  data: { ticketId: T, ...data },
  metadata: { occurredAt: at(minutes).toISOString() },
});
const opened = [recorded('TicketOpened', {}), recorded('SlaPolicyApplied', { policy: POLICY })];
const raise = (warning: 'warning' | 'breach', minutes: number): RaiseSlaWarning => ({
  type: 'RaiseSlaWarning',
  target: 'firstResponse',
  episode: 1,
  warning,
  now: at(minutes),
});
const raised = (kind: 'warning' | 'breach', agentId: string | null = null): SlaWarningEvent => ({
  type: 'SlaWarningRaised',
  data: { ticketId: T, target: 'firstResponse', episode: 1, kind, dueAt: at(10).toISOString(), agentId },
});

describe('SLA warnings', () => {
  describe('when a timer fires', () => {
    it('raises the warning at the share and the breach at the due time, naming the assignee', () => {
      given(opened)
        .when(raise('warning', 5))
        .then([raised('warning')]);
      given([...opened, recorded('AgentAssignedToTicket', { agentId: 'alice' }, 1)])
        .when(raise('breach', 10))
        .then([raised('breach', 'alice')]);
    });
    it('raises nothing early, nothing twice, and nothing for a met, paused or deleted target', () => {
      given(opened).when(raise('warning', 4)).then([]);
      given(opened).when(raise('breach', 9)).then([]);
      given([...opened, { type: 'SlaWarningRaised', data: raised('breach').data }])
        .when(raise('breach', 11))
        .then([]);
      given([...opened, recorded('MessagePosted', { senderRole: 'agent', isInternal: false }, 3)])
        .when(raise('breach', 11))
        .then([]);
      given([...opened, recorded('TicketStatusChanged', { from: 'open', to: 'pending_customer' }, 3)])
        .when(raise('breach', 11))
        .then([]);
      given([...opened, recorded('TicketDeleted', {}, 3)])
        .when(raise('breach', 11))
        .then([]);
    });
    it('raises no warning once the due time has passed: the breach alone, as a timer late past both fires both', () => {
      given(opened).when(raise('warning', 10)).then([]);
      given(opened)
        .when(raise('warning', 9))
        .then([raised('warning')]);
      given(opened)
        .when(raise('breach', 25))
        .then([raised('breach')]);
    });
    it('counts from where a split ticket’s customer began waiting, not from the split', () => {
      // Opened by a split 8 minutes after the customer's unanswered message: 2 minutes are left.
      const split = [recorded('TicketOpened', {}, 8), recorded('SlaPolicyApplied', { policy: POLICY, startsAt: OPENED_AT }, 8)];
      given(split)
        .when(raise('breach', 10))
        .then([raised('breach')]);
      given(split).when(raise('warning', 10)).then([]);
      given(split).when(raise('breach', 9)).then([]);
    });
  });
});
