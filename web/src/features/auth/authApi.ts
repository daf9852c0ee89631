import { api } from '../../app/api';

export interface User {
  _id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  role: 'customer' | 'agent' | 'admin';
  isActive: boolean;
  lastLogin: string | null;
}

const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<{ user: User; accessToken: string; refreshToken?: string }, { email: string; password: string }>({
      query: (body) => ({ url: '/auth/login', method: 'POST', body }),
      invalidatesTags: ['Profile'],
    }),
    profile: build.query<{ user: User }, void>({ query: () => '/auth/profile', providesTags: ['Profile'] }),
  }),
});

export const { useLoginMutation, useProfileQuery } = authApi;
