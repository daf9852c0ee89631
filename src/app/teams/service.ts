import { teamStream } from '../../domain/team/team';
import { teamDecider } from '../../domain/team/decide';
import type { CreateTeamInput, TeamAssignment } from '#contract/teams';
import type { CommandContext } from '../../platform/commands';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';
import { agentLookup } from '../tickets/service';

/** Team commands (admins, docs/teams.md); each answers once the read models include it. */

export async function createTeam(deps: AppDeps, input: CreateTeamInput, context: CommandContext): Promise<string> {
  const teamId = deps.newId();
  const members = await Promise.all(input.members.map((userId) => agentLookup(deps, userId)));
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'CreateTeam', teamId, name: input.name, members }, context);
  return teamId;
}

export async function renameTeam(deps: AppDeps, teamId: string, name: string, context: CommandContext): Promise<void> {
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'RenameTeam', teamId, name }, context);
}

export async function addTeamMember(deps: AppDeps, teamId: string, userId: string, context: CommandContext): Promise<void> {
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'AddTeamMember', teamId, member: await agentLookup(deps, userId) }, context);
}

export async function removeTeamMember(deps: AppDeps, teamId: string, userId: string, context: CommandContext): Promise<void> {
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'RemoveTeamMember', teamId, userId }, context);
}

export async function archiveTeam(deps: AppDeps, teamId: string, context: CommandContext): Promise<void> {
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'ArchiveTeam', teamId }, context);
}

export async function setTeamAssignment(deps: AppDeps, teamId: string, assignment: TeamAssignment, context: CommandContext): Promise<void> {
  await runCommand(deps, teamStream(teamId), teamDecider, { type: 'SetTeamAssignment', teamId, assignment }, context);
}
