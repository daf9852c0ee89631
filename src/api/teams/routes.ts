import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { availabilitySchema, createTeamSchema, renameTeamSchema, teamAssignmentSchema, teamMemberSchema } from '#contract/teams';
import { NotFoundError } from '#contract/errors';
import type { Team } from '#contract/responses';
import type { ReadStore } from '../../platform/readstore/port';
import { TEAMS, type TeamView } from '../../projections/teams';
import { USERS, type UserView } from '../../projections/users';
import { addTeamMember, archiveTeam, createTeam, removeTeamMember, renameTeam, setTeamAssignment } from '../../app/teams/service';
import { setAvailability } from '../../app/identity/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { scope } from '../http/scopes';

export const listTeamsQuery = z.object({
  includeArchived: z.enum(['true', 'false'], { message: 'includeArchived must be true or false' }).optional(),
});

/** Teams with their members named, in one read of the users they list. */
async function withMembers(store: ReadStore, teams: TeamView[]): Promise<Team[]> {
  const ids = [...new Set(teams.flatMap((team) => team.members))];
  const users = ids.length === 0 ? [] : await store.collection<UserView>(USERS).find({ _id: { $in: ids } });
  const byId = new Map(
    users.map((user) => [
      user._id,
      { _id: user._id, username: user.username, firstName: user.firstName, lastName: user.lastName, availability: user.availability },
    ]),
  );
  return teams.map(({ _revision: _r, members, ...team }) => ({ ...team, members: members.flatMap((member) => byId.get(member) ?? []) }));
}

export const teamRoutes = (deps: AppDeps) => (router: Router) => {
  const teams = () => deps.readStore.collection<TeamView>(TEAMS);
  const context = (req: Request) => commandContext(deps, req);
  const load = async (teamId: string) => {
    const team = await teams().findOne({ _id: teamId });
    if (!team) throw new NotFoundError('Team');
    return (await withMembers(deps.readStore, [team]))[0]!;
  };
  const answer = async (res: Response, teamId: string, status = 200) => res.status(status).json({ team: await load(teamId) });

  router.get('/teams', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const { includeArchived } = parse(listTeamsQuery, req.query);
    const found = await teams().find(includeArchived === 'true' ? {} : { archived: false }, { sort: { name: 1, _id: 1 } });
    res.json({ teams: await withMembers(deps.readStore, found) });
  });

  router.get('/teams/:id', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    await answer(res, req.params.id as string);
  });

  router.post('/teams', scope('admin'), requireRole('admin'), async (req, res) => {
    const input = parse(createTeamSchema, req.body);
    await answer(res, await createTeam(deps, input, context(req)), 201);
  });

  router.put('/teams/:id', scope('admin'), requireRole('admin'), async (req, res) => {
    const { name } = parse(renameTeamSchema, req.body);
    await renameTeam(deps, req.params.id as string, name, context(req));
    await answer(res, req.params.id as string);
  });

  /** Archives the team: tickets keep naming it, nobody can be added to it or route tickets to it. */
  router.delete('/teams/:id', scope('admin'), requireRole('admin'), async (req, res) => {
    await archiveTeam(deps, req.params.id as string, context(req));
    res.status(204).end();
  });

  /** How the team's new tickets find an agent: by hand, round-robin or least-loaded, with a cap of open tickets per agent. */
  router.put('/teams/:id/assignment', scope('admin'), requireRole('admin'), async (req, res) => {
    await setTeamAssignment(deps, req.params.id as string, parse(teamAssignmentSchema, req.body), context(req));
    await answer(res, req.params.id as string);
  });

  /** An admin sets a member's availability (an agent sets their own at /auth/availability). */
  router.put('/teams/:id/members/:userId/availability', scope('admin'), requireRole('admin'), async (req, res) => {
    const team = await load(req.params.id as string);
    const userId = req.params.userId as string;
    if (!team.members.some((member) => member._id === userId)) throw new NotFoundError('Team member');
    const { availability } = parse(availabilitySchema, req.body);
    await setAvailability(deps, userId, availability, context(req));
    await answer(res, team._id);
  });

  router.post('/teams/:id/members', scope('admin'), requireRole('admin'), async (req, res) => {
    const { userId } = parse(teamMemberSchema, req.body);
    await addTeamMember(deps, req.params.id as string, userId, context(req));
    await answer(res, req.params.id as string);
  });

  router.delete('/teams/:id/members/:userId', scope('admin'), requireRole('admin'), async (req, res) => {
    await removeTeamMember(deps, req.params.id as string, req.params.userId as string, context(req));
    await answer(res, req.params.id as string);
  });
};
