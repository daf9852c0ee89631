import type { DomainEvent } from '../shared/decider';

/** One stream per team: its name, its members and its archiving, each change with the admin who made it. */
export const teamStream = (teamId: string) => `team-${teamId}`;

export type TeamEvent =
  | DomainEvent<'TeamCreated', { teamId: string; name: string }>
  | DomainEvent<'TeamRenamed', { teamId: string; name: string; previous: string }>
  | DomainEvent<'TeamMemberAdded', { teamId: string; userId: string }>
  | DomainEvent<'TeamMemberRemoved', { teamId: string; userId: string }>
  /** Archived, not erased: tickets keep showing the team they had, and the history its name. */
  | DomainEvent<'TeamArchived', { teamId: string; name: string }>;

export type TeamState =
  { status: 'none' } | { status: 'active'; teamId: string; name: string; members: string[] } | { status: 'archived'; teamId: string; name: string };

export const initialState: TeamState = { status: 'none' };

export function evolve(state: TeamState, event: TeamEvent): TeamState {
  switch (event.type) {
    case 'TeamCreated':
      return { status: 'active', teamId: event.data.teamId, name: event.data.name, members: [] };
    case 'TeamRenamed':
      return state.status === 'active' ? { ...state, name: event.data.name } : state;
    case 'TeamMemberAdded':
      return state.status === 'active' ? { ...state, members: [...state.members, event.data.userId] } : state;
    case 'TeamMemberRemoved':
      return state.status === 'active' ? { ...state, members: state.members.filter((id) => id !== event.data.userId) } : state;
    case 'TeamArchived':
      return { status: 'archived', teamId: event.data.teamId, name: event.data.name };
  }
}
