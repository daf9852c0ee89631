import { WHOLE_LIST, api } from '../../app/api';
import { onLive } from '../../lib/live';
import type { CannedMessage, Category, Ticket, TicketStats } from './types';

/** What several features read about tickets: the desk's figures, the categories and the canned messages. */
const ticketApi = api.injectEndpoints({
  endpoints: (build) => ({
    stats: build.query<TicketStats, void>({
      query: () => ({ url: '/tickets/stats', params: { tz: Intl.DateTimeFormat().resolvedOptions().timeZone } }),
      providesTags: ['Stats'],
      async onCacheEntryAdded(_args, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, dispatch }) {
        await cacheDataLoaded.catch(() => undefined);
        // A new ticket is counted at once (docs/product.md section 4); other changes move averages and
        // categories, which the server keeps, so those are fetched again once things are quiet.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const refetchSoon = () => {
          clearTimeout(timer);
          timer = setTimeout(() => dispatch(api.util.invalidateTags(['Stats'])), 1500);
        };
        const stops = [
          onLive<{ ticket: Ticket }>('new_ticket', ({ ticket }) => {
            updateCachedData((draft) => {
              draft.total += 1;
              if (ticket.status === 'open') draft.open += 1;
              if (ticket.assignedAgent === null) draft.unassigned += 1;
              draft.todayTickets += 1;
              draft.weekTickets += 1;
              draft.recentActivity = [
                {
                  type: 'new' as const,
                  message: `New ticket #${ticket.ticketId}: ${ticket.title}`,
                  time: ticket.createdAt,
                  ticket: { _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title, status: ticket.status },
                },
                ...draft.recentActivity,
              ].slice(0, 10);
            });
            refetchSoon();
          }),
          onLive('ticket_updated', refetchSoon),
          onLive('ticket_deleted', refetchSoon),
        ];
        await cacheEntryRemoved;
        clearTimeout(timer);
        stops.forEach((stop) => stop());
      },
    }),
    categories: build.query<{ categories: Category[] }, void>({ query: () => ({ url: '/categories', params: WHOLE_LIST }), providesTags: ['Category'] }),
    cannedMessages: build.query<{ cannedMessages: CannedMessage[] }, void>({
      query: () => ({ url: '/canned-messages', params: WHOLE_LIST }),
      providesTags: ['Canned'],
    }),
    recordCannedUse: build.mutation<unknown, string>({
      query: (id) => ({ url: `/canned-messages/${id}/usage`, method: 'PUT' }),
      // docs/product.md section 2: choosing one raises its usage count locally, before the server answers.
      onQueryStarted(id, { dispatch }) {
        dispatch(
          ticketApi.util.updateQueryData('cannedMessages', undefined, (draft) => {
            const chosen = draft.cannedMessages.find((canned) => canned._id === id);
            if (chosen) {
              chosen.usageCount += 1;
              chosen.lastUsed = new Date().toISOString();
            }
          }),
        );
      },
    }),
  }),
});

export const { useStatsQuery, useCategoriesQuery, useCannedMessagesQuery, useRecordCannedUseMutation } = ticketApi;
