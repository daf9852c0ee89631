import { api } from '../../app/api';
import type { User } from './sessionSlice';

export interface NotificationPreferences {
  newTickets: boolean;
  ticketUpdates: boolean;
  browserNotifications: boolean;
}

interface SignedIn {
  user: User;
  accessToken: string;
  refreshToken: string;
}

export interface Registration {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<SignedIn, { email: string; password: string }>({
      query: (body) => ({ url: '/auth/login', method: 'POST', body }),
    }),
    register: build.mutation<SignedIn, Registration>({
      query: (body) => ({ url: '/auth/register', method: 'POST', body }),
    }),
    logout: build.mutation<void, { refreshToken: string | null }>({
      query: ({ refreshToken }) => ({ url: '/auth/logout', method: 'POST', body: refreshToken ? { refreshToken } : {} }),
    }),
    profile: build.query<{ user: User }, void>({ query: () => '/auth/profile', providesTags: ['Profile'] }),
    preferences: build.query<{ notificationPreferences: NotificationPreferences }, void>({
      query: () => '/auth/notifications/preferences',
      providesTags: ['Preferences'],
    }),
    savePreferences: build.mutation<{ notificationPreferences: NotificationPreferences }, NotificationPreferences>({
      query: (body) => ({ url: '/auth/notifications/preferences', method: 'PUT', body }),
      async onQueryStarted(_body, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled;
        dispatch(authApi.util.upsertQueryData('preferences', undefined, data));
      },
    }),
  }),
});

export const { useLoginMutation, useRegisterMutation, useLogoutMutation, usePreferencesQuery, useSavePreferencesMutation } = authApi;
export const { profile } = authApi.endpoints;
