import { api } from '../../app/api';
import type { User } from './sessionSlice';

/** The session's own calls: who is signed in (restoring a session) and logout (the shell, the admin panel). */
const sessionApi = api.injectEndpoints({
  endpoints: (build) => ({
    logout: build.mutation<void, { refreshToken: string | null }>({
      query: ({ refreshToken }) => ({ url: '/auth/logout', method: 'POST', body: refreshToken ? { refreshToken } : {} }),
    }),
    profile: build.query<{ user: User }, void>({ query: () => '/auth/profile', providesTags: ['Profile'] }),
  }),
});

export const { useLogoutMutation } = sessionApi;
export const { profile } = sessionApi.endpoints;
