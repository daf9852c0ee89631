import type { z } from 'zod';
import type { ApiToken, ApiTokenScope } from '#contract/apiTokens';
import type { FeedEventType, Webhook, WebhookDelivery } from '#contract/events';
import { api, creating } from '../../app/api';

export type { ApiTokenScope };
type WebhookInfo = z.infer<typeof Webhook>;
type WebhookDeliveryInfo = z.infer<typeof WebhookDelivery>;

interface ApiTokenInput {
  label: string;
  userId?: string;
  serviceAccount?: { name: string; role: 'agent' | 'admin' };
  scopes: ApiTokenScope[];
  expiresAt: string | null;
}

interface WebhookInput {
  url: string;
  types: FeedEventType[];
  includeNotes: boolean;
  after?: number;
}

/** The Integrations tab's calls (docs/integrations.md): API tokens and webhooks. */
const integrationsApi = api.injectEndpoints({
  endpoints: (build) => ({
    apiTokens: build.query<{ tokens: ApiToken[] }, void>({ query: () => '/api-tokens', providesTags: ['Integration'] }),
    createApiToken: build.mutation<{ token: ApiToken; secret: string }, ApiTokenInput>({
      query: (body) => creating({ url: '/api-tokens', method: 'POST', body }),
      invalidatesTags: ['Integration'],
    }),
    revokeApiToken: build.mutation<{ token: ApiToken }, string>({
      query: (id) => ({ url: `/api-tokens/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Integration'],
    }),
    webhooks: build.query<{ webhooks: WebhookInfo[] }, void>({ query: () => '/webhooks', providesTags: ['Integration'] }),
    createWebhook: build.mutation<{ webhook: WebhookInfo; secret: string }, WebhookInput>({
      query: (body) => creating({ url: '/webhooks', method: 'POST', body }),
      invalidatesTags: ['Integration'],
    }),
    webhookDeliveries: build.query<{ deliveries: WebhookDeliveryInfo[] }, string>({
      query: (id) => `/webhooks/${encodeURIComponent(id)}/deliveries`,
      providesTags: ['Integration'],
    }),
    rewindWebhook: build.mutation<{ webhook: WebhookInfo }, { id: string; after: number }>({
      query: ({ id, after }) => ({ url: `/webhooks/${encodeURIComponent(id)}/rewind`, method: 'POST', body: { after } }),
      invalidatesTags: ['Integration'],
    }),
    redeliverWebhook: build.mutation<void, { id: string; position: number }>({
      query: ({ id, position }) => ({ url: `/webhooks/${encodeURIComponent(id)}/deliveries/${position}/redeliver`, method: 'POST' }),
      invalidatesTags: ['Integration'],
    }),
    enableWebhook: build.mutation<{ webhook: WebhookInfo }, string>({
      query: (id) => ({ url: `/webhooks/${encodeURIComponent(id)}/enable`, method: 'POST' }),
      invalidatesTags: ['Integration'],
    }),
    deleteWebhook: build.mutation<void, string>({
      query: (id) => ({ url: `/webhooks/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Integration'],
    }),
  }),
});

export const {
  useApiTokensQuery,
  useCreateApiTokenMutation,
  useRevokeApiTokenMutation,
  useWebhooksQuery,
  useCreateWebhookMutation,
  useWebhookDeliveriesQuery,
  useRewindWebhookMutation,
  useRedeliverWebhookMutation,
  useEnableWebhookMutation,
  useDeleteWebhookMutation,
} = integrationsApi;
