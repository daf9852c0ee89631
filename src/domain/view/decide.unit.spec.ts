import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '#contract/errors';
import { VIEWS_PER_SCOPE } from '#contract/views';
import { type ViewActor, type ViewDetails, type ViewEvent, evolve, initialState } from './view';
import { decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const ANA: ViewActor = { userId: 'ana', role: 'agent', teamIds: ['billing'] };
const BOB: ViewActor = { userId: 'bob', role: 'agent', teamIds: [] };
const ADMIN: ViewActor = { userId: 'root', role: 'admin', teamIds: [] };
const ROOM = { teamExists: true, scopeCount: 0 };
const TEAM_VIEW: ViewDetails = { name: 'Billing open', scope: 'team', teamId: 'billing', filters: { status: 'open' }, sort: 'latest', columns: ['number'] };
const CREATED: ViewEvent = { type: 'ViewCreated', data: { viewId: 'v1', ownerId: 'ana', ...TEAM_VIEW } };

describe('View', () => {
  describe('when created', () => {
    it('records the view with its owner for a member of its team', () => {
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: ANA, details: TEAM_VIEW, ...ROOM })
        .then([CREATED]);
    });

    it('refuses a team view to a non-member, an everyone view to an agent, and lets an admin share either', () => {
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: BOB, details: TEAM_VIEW, ...ROOM })
        .thenThrows(ForbiddenError, 'Only members of the team (or admins) can share views with it');
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: ANA, details: { ...TEAM_VIEW, scope: 'everyone', teamId: null }, ...ROOM })
        .thenThrows(ForbiddenError, 'Only admins can share views with everyone');
      expect(
        given([])
          .when({ type: 'CreateView', viewId: 'v1', actor: ADMIN, details: TEAM_VIEW, ...ROOM })
          .result(),
      ).toHaveLength(1);
    });

    it('refuses a deleted team, a default view name for everyone, and a full scope', () => {
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: ANA, details: TEAM_VIEW, teamExists: false, scopeCount: 0 })
        .thenThrowsCode(UnprocessableError, 'UNKNOWN_TEAM');
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: ADMIN, details: { ...TEAM_VIEW, name: 'my tickets', scope: 'everyone', teamId: null }, ...ROOM })
        .thenThrowsCode(ConflictError, 'VIEW_NAME_TAKEN');
      given([])
        .when({ type: 'CreateView', viewId: 'v1', actor: ANA, details: TEAM_VIEW, teamExists: true, scopeCount: VIEWS_PER_SCOPE })
        .thenThrowsCode(UnprocessableError, 'VIEW_LIMIT');
    });
  });

  describe('when changed', () => {
    it('records what changed with its earlier value, and nothing for the same values', () => {
      given([CREATED])
        .when({ type: 'UpdateView', viewId: 'v1', actor: ANA, changes: { name: 'Billing', sort: 'priority' }, ...ROOM })
        .then([
          { type: 'ViewUpdated', data: { viewId: 'v1', changes: { name: 'Billing', sort: 'priority' }, previous: { name: 'Billing open', sort: 'latest' } } },
        ]);
      given([CREATED])
        .when({ type: 'UpdateView', viewId: 'v1', actor: ANA, changes: { name: 'Billing open' }, ...ROOM })
        .then([]);
    });

    it('hides a team view from non-members and refuses making someone else’s view personal', () => {
      given([CREATED])
        .when({ type: 'UpdateView', viewId: 'v1', actor: BOB, changes: { name: 'Mine' }, ...ROOM })
        .thenThrows(NotFoundError, 'View not found');
      given([CREATED])
        .when({ type: 'UpdateView', viewId: 'v1', actor: ADMIN, changes: { scope: 'personal', teamId: null }, ...ROOM })
        .thenThrows(ForbiddenError, "Only a view's owner can make it personal");
    });
  });

  describe('when deleted', () => {
    it('records the name and scope it had, and then it is gone', () => {
      const deleted: ViewEvent = { type: 'ViewDeleted', data: { viewId: 'v1', name: 'Billing open', scope: 'team', teamId: 'billing' } };
      given([CREATED]).when({ type: 'DeleteView', viewId: 'v1', actor: ANA }).then([deleted]);
      given([CREATED, deleted]).when({ type: 'DeleteView', viewId: 'v1', actor: ANA }).thenThrows(NotFoundError);
    });
  });
});
