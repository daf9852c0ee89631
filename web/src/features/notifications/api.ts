import { api } from '../../app/api';
import type { NotificationPush, NotificationView } from '#contract/notifications';
import { onLive } from '../../lib/live';

interface NotificationsPage {
  notifications: NotificationView[];
  unread: number;
}

/** The bell's list: the newest notifications, kept current by the live pushes to this person (docs/notifications.md, "Mentions"). */
const notificationsApi = api.injectEndpoints({
  endpoints: (build) => ({
    notifications: build.query<NotificationsPage, void>({
      query: () => '/notifications?limit=20',
      providesTags: ['Notification'],
      async onCacheEntryAdded(_arg, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, dispatch }) {
        await cacheDataLoaded.catch(() => undefined);
        const stops = [
          onLive<NotificationPush>('notification', ({ notification, unread }) =>
            updateCachedData((draft) => {
              if (!draft.notifications.some((known) => known._id === notification._id)) draft.notifications.unshift(notification);
              draft.unread = unread;
            }),
          ),
          // Read in another tab or window: which ones is not said, so the list is read again.
          onLive('notifications_read', () => dispatch(api.util.invalidateTags(['Notification']))),
        ];
        await cacheEntryRemoved;
        stops.forEach((stop) => stop());
      },
    }),
    markNotificationRead: build.mutation<{ unread: number }, string>({
      query: (id) => ({ url: `/notifications/${encodeURIComponent(id)}/read`, method: 'POST' }),
      async onQueryStarted(id, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled;
        dispatch(
          notificationsApi.util.updateQueryData('notifications', undefined, (draft) => {
            const found = draft.notifications.find((notification) => notification._id === id);
            if (found) found.read = true;
            draft.unread = data.unread;
          }),
        );
      },
    }),
    markAllNotificationsRead: build.mutation<{ unread: number }, void>({
      query: () => ({ url: '/notifications/read', method: 'POST' }),
      invalidatesTags: ['Notification'],
    }),
  }),
});

export const { useNotificationsQuery, useMarkNotificationReadMutation, useMarkAllNotificationsReadMutation } = notificationsApi;
