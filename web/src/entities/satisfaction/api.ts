import type { SatisfactionReport, SatisfactionSettings, SatisfactionSettingsUpdate, TicketSatisfaction } from '#contract/satisfaction';
import { api } from '../../app/api';

type SatisfactionSettingsView = SatisfactionSettings & { updatedAt: string | null; updatedBy: string | null };

/** The customer's rating, the survey settings and the CSAT report (docs/satisfaction.md). */
const satisfactionApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** `version` (the ticket's status) refetches the survey when a resolution or a reopen comes in live. */
    ticketSatisfaction: build.query<TicketSatisfaction, { id: string; version: string }>({
      query: ({ id }) => `/tickets/${encodeURIComponent(id)}/satisfaction`,
      transformResponse: (response: { satisfaction: TicketSatisfaction }) => response.satisfaction,
      providesTags: (_result, _error, { id }) => [{ type: 'Satisfaction', id }],
    }),
    rateTicket: build.mutation<TicketSatisfaction, { id: string; score: number }>({
      query: ({ id, score }) => ({ url: `/tickets/${encodeURIComponent(id)}/satisfaction`, method: 'PUT', body: { score } }),
      transformResponse: (response: { satisfaction: TicketSatisfaction }) => response.satisfaction,
      invalidatesTags: (_result, _error, { id }) => [
        { type: 'Satisfaction', id },
        { type: 'Satisfaction', id: 'AWAITING' },
      ],
    }),
    commentOnRating: build.mutation<TicketSatisfaction, { id: string; comment: string }>({
      query: ({ id, comment }) => ({ url: `/tickets/${encodeURIComponent(id)}/satisfaction/comment`, method: 'PUT', body: { comment } }),
      transformResponse: (response: { satisfaction: TicketSatisfaction }) => response.satisfaction,
      invalidatesTags: (_result, _error, { id }) => [{ type: 'Satisfaction', id }],
    }),
    satisfactionReport: build.query<SatisfactionReport, void>({
      query: () => '/satisfaction/report',
      transformResponse: (response: { report: SatisfactionReport }) => response.report,
      providesTags: [{ type: 'Satisfaction', id: 'REPORT' }],
    }),
    /** The signed-in customer's resolved tickets that wait for their rating (their dashboard's notice). */
    ratingsAwaiting: build.query<Array<{ ticketId: string; number: number; title: string; resolvedAt: string }>, void>({
      query: () => '/satisfaction/awaiting',
      transformResponse: (response: { awaiting: Array<{ ticketId: string; number: number; title: string; resolvedAt: string }> }) => response.awaiting,
      providesTags: [{ type: 'Satisfaction', id: 'AWAITING' }],
    }),
    /** The latest rating of the listed tickets (Live Tickets' column). */
    ticketRatings: build.query<Array<{ ticketId: string; score: number | null; awaiting: boolean }>, string[]>({
      query: (ids) => ({ url: '/satisfaction/ratings', params: { tickets: ids.join(',') } }),
      transformResponse: (response: { ratings: Array<{ ticketId: string; score: number | null; awaiting: boolean }> }) => response.ratings,
      providesTags: [{ type: 'Satisfaction', id: 'RATINGS' }],
    }),
    satisfactionSettings: build.query<SatisfactionSettingsView, void>({
      query: () => '/satisfaction/settings',
      transformResponse: (response: { settings: SatisfactionSettingsView }) => response.settings,
      providesTags: [{ type: 'Satisfaction', id: 'SETTINGS' }],
    }),
    updateSatisfactionSettings: build.mutation<SatisfactionSettingsView, SatisfactionSettingsUpdate>({
      query: (body) => ({ url: '/satisfaction/settings', method: 'PUT', body }),
      transformResponse: (response: { settings: SatisfactionSettingsView }) => response.settings,
      invalidatesTags: ['Satisfaction'],
    }),
  }),
});

export const {
  useTicketSatisfactionQuery,
  useRateTicketMutation,
  useCommentOnRatingMutation,
  useSatisfactionReportQuery,
  useTicketRatingsQuery,
  useRatingsAwaitingQuery,
  useSatisfactionSettingsQuery,
  useUpdateSatisfactionSettingsMutation,
} = satisfactionApi;
