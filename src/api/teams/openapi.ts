import { z } from 'zod';
import { availabilitySchema, createTeamSchema, renameTeamSchema, teamAssignmentSchema, teamMemberSchema } from '#contract/teams';
import type { ApiRegistry } from '../openapi/registry';
import { Team } from '#contract/responses';
import { listTeamsQuery } from './routes';
import { scope } from '../http/scopes';

const teamAnswer = z.strictObject({ team: Team });

export function describeTeams(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const staff = ['agent' as const, 'admin' as const];
  docs.route({
    method: 'get',
    path: '/teams',
    token: scope('tickets:read'),
    summary: 'List teams',
    access: staff,
    query: listTeamsQuery,
    responses: { 200: { description: 'The teams by name, archived ones only when asked', schema: z.strictObject({ teams: z.array(Team) }) } },
  });
  docs.route({
    method: 'get',
    path: '/teams/:id',
    token: scope('tickets:read'),
    summary: 'A team',
    access: staff,
    responses: { 200: { description: 'The team', schema: teamAnswer } },
  });
  docs.route({
    method: 'post',
    path: '/teams',
    token: scope('admin'),
    summary: 'Create a team',
    access: admin,
    body: createTeamSchema,
    responses: { 201: { description: 'The new team', schema: teamAnswer } },
  });
  docs.route({
    method: 'put',
    path: '/teams/:id',
    token: scope('admin'),
    summary: 'Rename a team',
    access: admin,
    body: renameTeamSchema,
    responses: { 200: { description: 'The team after the change', schema: teamAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/teams/:id',
    token: scope('admin'),
    summary: 'Archive a team (tickets keep naming it)',
    access: admin,
    responses: { 204: { description: 'Archived' } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/teams/:id/members',
    token: scope('admin'),
    summary: 'Put an agent or admin in a team',
    access: admin,
    body: teamMemberSchema,
    responses: { 200: { description: 'The team with its members', schema: teamAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/teams/:id/members/:userId',
    token: scope('admin'),
    summary: 'Take a member out of a team',
    access: admin,
    responses: { 200: { description: 'The team with its members', schema: teamAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/teams/:id/assignment',
    token: scope('admin'),
    summary: "Choose how the team's new tickets find an agent",
    description:
      'manual (nobody is chosen), round-robin (the next Available member in turn) or least-loaded (the Available member with the fewest open tickets), each with an optional cap of open tickets per agent (docs/teams.md).',
    access: admin,
    body: teamAssignmentSchema,
    responses: { 200: { description: 'The team with its assignment', schema: teamAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/teams/:id/members/:userId/availability',
    token: scope('admin'),
    summary: "Set a team member's availability",
    description: 'Away members get no automatic assignments. 404 when the user is not a member of the team.',
    access: admin,
    body: availabilitySchema,
    responses: { 200: { description: 'The team with its members', schema: teamAnswer } },
    errors: [409],
  });
}
