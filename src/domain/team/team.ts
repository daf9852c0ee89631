import type { DomainEvent } from '../shared/decider';
import type { TeamAssignment } from '#contract/teams';

/** One stream per team: its name, its members and its archiving, each change with the admin who made it. */
export const teamStream = (teamId: string) => `team-${teamId}`;

export type TeamEvent =
  | DomainEvent<'TeamCreated', { teamId: string; name: string }>
  | DomainEvent<'TeamRenamed', { teamId: string; name: string; previous: string }>
  | DomainEvent<'TeamMemberAdded', { teamId: string; userId: string }>
  | DomainEvent<'TeamMemberRemoved', { teamId: string; userId: string }>
  /** Archived, not erased: tickets keep showing the team they had, and the history its name. */
  | DomainEvent<'TeamArchived', { teamId: string; name: string }>
  /** How the team's new tickets find an agent, and the setting it replaced. */
  | DomainEvent<'TeamAssignmentSet', { teamId: string; previous: TeamAssignment } & TeamAssignment>;

/** A team assigns nothing by itself until an admin chooses a mode (docs/teams.md). */
export const MANUAL_ASSIGNMENT: TeamAssignment = { mode: 'manual', cap: null };

export type TeamState =
  | { status: 'none' }
  | { status: 'active'; teamId: string; name: string; members: string[]; assignment: TeamAssignment }
  | { status: 'archived'; teamId: string; name: string };

export const initialState: TeamState = { status: 'none' };

export function evolve(state: TeamState, event: TeamEvent): TeamState {
  switch (event.type) {
    case 'TeamCreated':
      return { status: 'active', teamId: event.data.teamId, name: event.data.name, members: [], assignment: MANUAL_ASSIGNMENT };
    case 'TeamRenamed':
      return state.status === 'active' ? { ...state, name: event.data.name } : state;
    case 'TeamMemberAdded':
      return state.status === 'active' ? { ...state, members: [...state.members, event.data.userId] } : state;
    case 'TeamMemberRemoved':
      return state.status === 'active' ? { ...state, members: state.members.filter((id) => id !== event.data.userId) } : state;
    case 'TeamAssignmentSet':
      return state.status === 'active' ? { ...state, assignment: { mode: event.data.mode, cap: event.data.cap } } : state;
    case 'TeamArchived':
      return { status: 'archived', teamId: event.data.teamId, name: event.data.name };
  }
}
