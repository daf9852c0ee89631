import type { SavedView } from '#contract/responses';
import type { ViewChanges, ViewCounts, ViewInput } from '#contract/views';
import { api } from '../../app/api';
import { emitLive, onLive, onLiveResynced, requestLive } from '../../lib/live';

/** Saved views of Live Tickets (docs/views.md) and the counts beside them, kept live by the server's `view_counts`. */
const viewsApi = api.injectEndpoints({
  endpoints: (build) => ({
    views: build.query<{ views: SavedView[] }, void>({
      query: () => '/views',
      providesTags: ['View'],
      async onCacheEntryAdded(_arg, { cacheDataLoaded, cacheEntryRemoved, dispatch }) {
        await cacheDataLoaded.catch(() => undefined);
        // Saved, changed or deleted by someone else, or the teams changed: the list is fetched again.
        const stop = onLive('views_changed', () => dispatch(api.util.invalidateTags(['View'])));
        await cacheEntryRemoved;
        stop();
      },
    }),
    viewCounts: build.query<ViewCounts, void>({
      query: () => '/views/counts',
      providesTags: ['View'],
      async onCacheEntryAdded(_arg, { updateCachedData, cacheDataLoaded, cacheEntryRemoved }) {
        await cacheDataLoaded.catch(() => undefined);
        const watch = () => void requestLive('watch_views', {}).catch(() => undefined);
        const stops = [
          onLive<ViewCounts>('view_counts', ({ counts }) => updateCachedData((draft) => void Object.assign(draft.counts, counts))),
          // The server forgets a socket's watch when it drops: a reconnected channel watches again.
          onLiveResynced(watch),
        ];
        watch();
        await cacheEntryRemoved;
        stops.forEach((stop) => stop());
        emitLive('unwatch_views', {});
      },
    }),
    createView: build.mutation<{ view: SavedView }, Partial<ViewInput> & { name: string }>({
      query: (body) => ({ url: '/views', method: 'POST', body }),
      invalidatesTags: ['View'],
    }),
    updateView: build.mutation<{ view: SavedView }, ViewChanges & { id: string }>({
      query: ({ id, ...body }) => ({ url: `/views/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['View'],
    }),
    deleteView: build.mutation<void, string>({
      query: (id) => ({ url: `/views/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['View'],
    }),
  }),
});

export const { useViewsQuery, useViewCountsQuery, useCreateViewMutation, useUpdateViewMutation, useDeleteViewMutation } = viewsApi;
