import { api } from '../../app/api';

export interface NotificationPreferences {
  newTickets: boolean;
  ticketUpdates: boolean;
  browserNotifications: boolean;
  mentionEmails: boolean;
}

const profileApi = api.injectEndpoints({
  endpoints: (build) => ({
    preferences: build.query<{ notificationPreferences: NotificationPreferences }, void>({
      query: () => '/auth/notifications/preferences',
      providesTags: ['Preferences'],
    }),
    savePreferences: build.mutation<{ notificationPreferences: NotificationPreferences }, NotificationPreferences>({
      query: (body) => ({ url: '/auth/notifications/preferences', method: 'PUT', body }),
      async onQueryStarted(_body, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled;
        dispatch(profileApi.util.upsertQueryData('preferences', undefined, data));
      },
    }),
  }),
});

export const { usePreferencesQuery, useSavePreferencesMutation } = profileApi;
