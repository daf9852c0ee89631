import { DeciderSpecification } from '../../../test/support/decider';
import { NotFoundError, ValidationError } from '#contract/errors';
import { type TeamEvent, evolve, initialState } from './team';
import { type MemberLookup, decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const AGENT: MemberLookup = { userId: 'u1', role: 'agent', isActive: true };
const CREATED: TeamEvent = { type: 'TeamCreated', data: { teamId: 't1', name: 'Billing' } };
const JOINED: TeamEvent = { type: 'TeamMemberAdded', data: { teamId: 't1', userId: 'u1' } };
const ARCHIVED: TeamEvent = { type: 'TeamArchived', data: { teamId: 't1', name: 'Billing' } };

describe('Team', () => {
  describe('when created', () => {
    it('records the team and each member once', () => {
      given([])
        .when({ type: 'CreateTeam', teamId: 't1', name: 'Billing', members: [AGENT, AGENT] })
        .then([CREATED, JOINED]);
    });

    it('refuses a customer, a deactivated account or an unknown user as a member', () => {
      for (const member of [{ ...AGENT, role: 'customer' as const }, { ...AGENT, isActive: false }, null])
        given([])
          .when({ type: 'CreateTeam', teamId: 't1', name: 'Billing', members: [member] })
          .thenThrows(ValidationError, 'Only active agents and admins can be team members');
    });
  });

  describe('when renamed', () => {
    it('records the name it replaced, and nothing for the same name', () => {
      given([CREATED])
        .when({ type: 'RenameTeam', teamId: 't1', name: 'Invoices' })
        .then([{ type: 'TeamRenamed', data: { teamId: 't1', name: 'Invoices', previous: 'Billing' } }]);
      given([CREATED]).when({ type: 'RenameTeam', teamId: 't1', name: 'Billing' }).then([]);
    });
  });

  describe('when members change', () => {
    it('adds a member once and removes only a member', () => {
      given([CREATED, JOINED]).when({ type: 'AddTeamMember', teamId: 't1', member: AGENT }).then([]);
      given([CREATED, JOINED])
        .when({ type: 'RemoveTeamMember', teamId: 't1', userId: 'u1' })
        .then([{ type: 'TeamMemberRemoved', data: { teamId: 't1', userId: 'u1' } }]);
      given([CREATED]).when({ type: 'RemoveTeamMember', teamId: 't1', userId: 'u1' }).thenThrows(NotFoundError, 'Team member not found');
    });
  });

  describe('when archived', () => {
    it('is archived once, and then takes no change', () => {
      given([CREATED]).when({ type: 'ArchiveTeam', teamId: 't1' }).then([ARCHIVED]);
      given([CREATED, ARCHIVED]).when({ type: 'ArchiveTeam', teamId: 't1' }).thenThrows(NotFoundError, 'Team not found');
      given([CREATED, ARCHIVED]).when({ type: 'AddTeamMember', teamId: 't1', member: AGENT }).thenThrows(NotFoundError);
    });
  });

  describe('when its assignment is chosen', () => {
    it('records the setting with the one it replaced, and nothing for the same again', () => {
      given([CREATED])
        .when({ type: 'SetTeamAssignment', teamId: 't1', assignment: { mode: 'round-robin', cap: 5 } })
        .then([{ type: 'TeamAssignmentSet', data: { teamId: 't1', mode: 'round-robin', cap: 5, previous: { mode: 'manual', cap: null } } }]);
      given([CREATED])
        .when({ type: 'SetTeamAssignment', teamId: 't1', assignment: { mode: 'manual', cap: null } })
        .then([]);
      given([CREATED, ARCHIVED])
        .when({ type: 'SetTeamAssignment', teamId: 't1', assignment: { mode: 'manual', cap: null } })
        .thenThrows(NotFoundError);
    });
  });
});
