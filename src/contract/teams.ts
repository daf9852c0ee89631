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

/** Whether a staff member takes automatic assignments (docs/teams.md, "Availability"): only Available ones do; Offline is signed out. */
export const AVAILABILITIES = ['available', 'away', 'offline'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

export const availabilitySchema = z
  .object({ availability: z.enum(AVAILABILITIES, { message: `availability must be one of: ${AVAILABILITIES.join(', ')}` }) })
  .strict();

/** `POST /api/auth/activity` takes no fields: the request itself is the report. */
export const activitySchema = z.object({}).strict();

/** How a team's new tickets find an agent (docs/teams.md, "Automatic assignment"). */
export const ASSIGNMENT_MODES = ['manual', 'round-robin', 'least-loaded'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];
const ASSIGNMENT_CAP_MAX = 500;

export const teamAssignmentSchema = z
  .object({
    mode: z.enum(ASSIGNMENT_MODES, { message: `mode must be one of: ${ASSIGNMENT_MODES.join(', ')}` }),
    cap: z
      .int('cap must be a whole number')
      .min(1, 'cap must be at least 1')
      .max(ASSIGNMENT_CAP_MAX, `cap must be at most ${ASSIGNMENT_CAP_MAX}`)
      .nullable()
      .default(null),
  })
  .strict();

export type TeamAssignment = z.output<typeof teamAssignmentSchema>;
