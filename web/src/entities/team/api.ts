import type { Team } from '#contract/responses';
import { api } from '../../app/api';

export type { Team };

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
    archiveTeam: build.mutation<void, string>({
      query: (id) => ({ url: `/teams/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Team'],
    }),
  }),
});

export const { useTeamsQuery, useCreateTeamMutation, useRenameTeamMutation, useAddTeamMemberMutation, useRemoveTeamMemberMutation, useArchiveTeamMutation } =
  teamApi;
