import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import type { Decider } from '../shared/decider';
import type { TeamAssignment } from '#contract/teams';
import { type TeamEvent, type TeamState, evolve, initialState } from './team';

/** What the handler looked up about a would-be member; null when no such user exists. */
export interface MemberLookup {
  userId: string;
  role: Role;
  isActive: boolean;
}

export type TeamCommand =
  | { type: 'CreateTeam'; teamId: string; name: string; members: Array<MemberLookup | null> }
  | { type: 'RenameTeam'; teamId: string; name: string }
  | { type: 'AddTeamMember'; teamId: string; member: MemberLookup | null }
  | { type: 'RemoveTeamMember'; teamId: string; userId: string }
  | { type: 'ArchiveTeam'; teamId: string }
  | { type: 'SetTeamAssignment'; teamId: string; assignment: TeamAssignment };

const MEMBER_RULE = 'Only active agents and admins can be team members';

function active(state: TeamState) {
  if (state.status !== 'active') throw new NotFoundError('Team');
  return state;
}

/** Teams share staff's work: a customer, a deactivated account or an unknown id is refused. */
function checkMember(member: MemberLookup | null, path: string): MemberLookup {
  if (!member || !member.isActive || !isStaff(member.role)) throw new ValidationError(MEMBER_RULE, [{ path, message: MEMBER_RULE }]);
  return member;
}

function create(command: Extract<TeamCommand, { type: 'CreateTeam' }>, state: TeamState): TeamEvent[] {
  if (state.status !== 'none') throw new ConflictError('Team already exists', 'TEAM_EXISTS');
  const members = command.members.map((member, index) => checkMember(member, `members.${index}`).userId);
  const { teamId, name } = command;
  return [
    { type: 'TeamCreated', data: { teamId, name } },
    ...[...new Set(members)].map((userId) => ({ type: 'TeamMemberAdded' as const, data: { teamId, userId } })),
  ];
}

function rename(command: Extract<TeamCommand, { type: 'RenameTeam' }>, state: TeamState): TeamEvent[] {
  const team = active(state);
  if (team.name === command.name) return [];
  return [{ type: 'TeamRenamed', data: { teamId: team.teamId, name: command.name, previous: team.name } }];
}

function addMember(command: Extract<TeamCommand, { type: 'AddTeamMember' }>, state: TeamState): TeamEvent[] {
  const team = active(state);
  const { userId } = checkMember(command.member, 'userId');
  if (team.members.includes(userId)) return [];
  return [{ type: 'TeamMemberAdded', data: { teamId: team.teamId, userId } }];
}

function removeMember(command: Extract<TeamCommand, { type: 'RemoveTeamMember' }>, state: TeamState): TeamEvent[] {
  const team = active(state);
  if (!team.members.includes(command.userId)) throw new NotFoundError('Team member');
  return [{ type: 'TeamMemberRemoved', data: { teamId: team.teamId, userId: command.userId } }];
}

function archive(command: Extract<TeamCommand, { type: 'ArchiveTeam' }>, state: TeamState): TeamEvent[] {
  const team = active(state);
  return [{ type: 'TeamArchived', data: { teamId: team.teamId, name: team.name } }];
}

function setAssignment(command: Extract<TeamCommand, { type: 'SetTeamAssignment' }>, state: TeamState): TeamEvent[] {
  const team = active(state);
  const { mode, cap } = command.assignment;
  if (team.assignment.mode === mode && team.assignment.cap === cap) return [];
  return [{ type: 'TeamAssignmentSet', data: { teamId: team.teamId, mode, cap, previous: team.assignment } }];
}

export function decide(command: TeamCommand, state: TeamState): TeamEvent[] {
  switch (command.type) {
    case 'CreateTeam':
      return create(command, state);
    case 'RenameTeam':
      return rename(command, state);
    case 'AddTeamMember':
      return addMember(command, state);
    case 'RemoveTeamMember':
      return removeMember(command, state);
    case 'ArchiveTeam':
      return archive(command, state);
    case 'SetTeamAssignment':
      return setAssignment(command, state);
  }
}

export const teamDecider: Decider<TeamCommand, TeamEvent, TeamState> = { decide, evolve, initialState };
