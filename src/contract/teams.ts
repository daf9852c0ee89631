import { z } from 'zod';
import { singleLine } from './text';

/** Teams share the work (docs/teams.md): admins name them and put agents and admins in them. */
const TEAM_NAME_MAX = 60;

const teamName = singleLine(z.string({ message: 'Name is required' }).trim(), 'Name')
  .min(1, 'Name is required')
  .max(TEAM_NAME_MAX, `Name must be at most ${TEAM_NAME_MAX} characters`);

export const createTeamSchema = z
  .object({
    name: teamName,
    members: z.array(z.string().min(1, 'A member must be a user id')).max(200, 'A team can have at most 200 members').default([]),
  })
  .strict();

export const renameTeamSchema = z.object({ name: teamName }).strict();

export const teamMemberSchema = z.object({ userId: z.string({ message: 'userId is required' }).min(1, 'userId is required') }).strict();

export type CreateTeamInput = z.output<typeof createTeamSchema>;
