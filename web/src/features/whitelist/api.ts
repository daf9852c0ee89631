import type { AccessRequest, WhitelistEntry } from '#contract/responses';
import { WHOLE_LIST, api } from '../../app/api';

export type { AccessRequest, WhitelistEntry };

export interface WhitelistInput {
  telegramId: string;
  username: string;
  firstName: string;
  lastName: string;
  notes: string;
}

type Answer = { message: string };

/**
 * The whitelist calls of docs/product.md section 7. Entries and requests are addressed by Telegram ID where
 * the screens do (update, approve, reject) and by record id for deletion; the server takes both.
 * Every change reloads both lists (docs/product.md section 4).
 */
const whitelistApi = api.injectEndpoints({
  endpoints: (build) => ({
    whitelist: build.query<{ entries: WhitelistEntry[] }, void>({ query: () => ({ url: '/whitelist', params: WHOLE_LIST }), providesTags: ['Whitelist'] }),
    accessRequests: build.query<{ requests: AccessRequest[] }, void>({
      query: () => ({ url: '/whitelist/access-requests', params: WHOLE_LIST }),
      providesTags: ['AccessRequest'],
    }),
    addToWhitelist: build.mutation<Answer, WhitelistInput>({
      query: (body) => ({ url: '/whitelist', method: 'POST', body }),
      invalidatesTags: ['Whitelist', 'AccessRequest'],
    }),
    updateWhitelistEntry: build.mutation<Answer, { telegramId: string } & Partial<Omit<WhitelistInput, 'telegramId'>> & { isActive?: boolean }>({
      query: ({ telegramId, ...body }) => ({ url: `/whitelist/${encodeURIComponent(telegramId)}`, method: 'PUT', body }),
      invalidatesTags: ['Whitelist', 'AccessRequest'],
    }),
    deleteWhitelistEntry: build.mutation<void, string>({
      query: (id) => ({ url: `/whitelist/entry/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Whitelist', 'AccessRequest'],
    }),
    approveRequest: build.mutation<Answer, string>({
      query: (telegramId) => ({ url: `/whitelist/access-requests/${encodeURIComponent(telegramId)}/approve`, method: 'POST' }),
      invalidatesTags: ['Whitelist', 'AccessRequest'],
    }),
    rejectRequest: build.mutation<Answer, string>({
      query: (telegramId) => ({ url: `/whitelist/access-requests/${encodeURIComponent(telegramId)}/reject`, method: 'POST' }),
      invalidatesTags: ['Whitelist', 'AccessRequest'],
    }),
  }),
});

export const {
  useWhitelistQuery,
  useAccessRequestsQuery,
  useAddToWhitelistMutation,
  useUpdateWhitelistEntryMutation,
  useDeleteWhitelistEntryMutation,
  useApproveRequestMutation,
  useRejectRequestMutation,
} = whitelistApi;
