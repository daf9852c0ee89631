import type { Team } from '#contract/responses';
import type { Availability, TeamAssignment } from '#contract/teams';
import { api } from '../../app/api';

export type { Availability, Team, TeamAssignment };

/** Teams (docs/teams.md): the admin's Teams tab changes them; the ticket screens filter and move tickets by them. */
const teamApi = api.injectEndpoints({
  endpoints: (build) => ({
    teams: build.query<{ teams: Team[] }, void>({ query: () => '/teams', providesTags: ['Team'] }),
    createTeam: build.mutation<{ team: Team }, { name: string; members: string[] }>({
      query: (body) => ({ url: '/teams', method: 'POST', body }),
      invalidatesTags: ['Team'],
    }),
    renameTeam: build.mutation<{ team: Team }, { id: string; name: string }>({
      query: ({ id, name }) => ({ url: `/teams/${encodeURIComponent(id)}`, method: 'PUT', body: { name } }),
      invalidatesTags: ['Team'],
    }),
    addTeamMember: build.mutation<{ team: Team }, { id: string; userId: string }>({
      query: ({ id, userId }) => ({ url: `/teams/${encodeURIComponent(id)}/members`, method: 'POST', body: { userId } }),
      invalidatesTags: ['Team'],
    }),
    removeTeamMember: build.mutation<{ team: Team }, { id: string; userId: string }>({
      query: ({ id, userId }) => ({ url: `/teams/${encodeURIComponent(id)}/members/${encodeURIComponent(userId)}`, method: 'DELETE' }),
      invalidatesTags: ['Team'],
    }),
    setTeamAssignment: build.mutation<{ team: Team }, { id: string } & TeamAssignment>({
      query: ({ id, ...body }) => ({ url: `/teams/${encodeURIComponent(id)}/assignment`, method: 'PUT', body }),
      invalidatesTags: ['Team'],
    }),
    /** The signed-in staff member's own availability (the sidebar's toggle). */
    availability: build.query<{ availability: Availability }, void>({ query: () => '/auth/availability', providesTags: ['Availability'] }),
    setAvailability: build.mutation<{ availability: Availability }, Availability>({
      query: (availability) => ({ url: '/auth/availability', method: 'PUT', body: { availability } }),
      invalidatesTags: ['Availability', 'Team'],
    }),
    /** The person is at work in this tab: the server counts the idle time that sets Available staff Away from the last report. */
    reportActivity: build.mutation<void, void>({ query: () => ({ url: '/auth/activity', method: 'POST', body: {} }) }),
    setMemberAvailability: build.mutation<{ team: Team }, { id: string; userId: string; availability: Availability }>({
      query: ({ id, userId, availability }) => ({
        url: `/teams/${encodeURIComponent(id)}/members/${encodeURIComponent(userId)}/availability`,
        method: 'PUT',
        body: { availability },
      }),
      invalidatesTags: ['Availability', 'Team'],
    }),
    archiveTeam: build.mutation<void, string>({
      query: (id) => ({ url: `/teams/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Team'],
    }),
  }),
});

export const {
  useTeamsQuery,
  useCreateTeamMutation,
  useRenameTeamMutation,
  useAddTeamMemberMutation,
  useRemoveTeamMemberMutation,
  useArchiveTeamMutation,
  useSetTeamAssignmentMutation,
  useAvailabilityQuery,
  useSetAvailabilityMutation,
  useSetMemberAvailabilityMutation,
  useReportActivityMutation,
} = teamApi;

/** The teams a choice may name: the active ones (an archived team takes no ticket, docs/teams.md). */
export const useActiveTeams = (skip = false) => (useTeamsQuery(undefined, { skip }).data?.teams ?? []).filter((team) => !team.archived);
