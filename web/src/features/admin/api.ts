import type { BotCommand, BotSettings, Delivery, User, UserStats } from '#contract/responses';
import type { CategoryDetails, CustomField } from '#contract/categories';
import type { BotMessages } from '#contract/botSettings';
import type { ProjectionCheck, ProjectionFaults } from '#contract/readModels';
import { WHOLE_LIST, api, creating } from '../../app/api';
import type { Category } from '../../entities/ticket/types';

export type AdminUser = User;
export type { BotCommand, BotMessages, CustomField, Delivery };

interface UserPage {
  users: AdminUser[];
  pagination: { page: number; limit: number; total: number; pages: number };
}

/** What the user form sends: the password only when one was typed (docs/product.md section 5). */
export interface UserInput {
  firstName: string;
  lastName: string;
  username: string;
  email: string;
  password?: string;
  role: User['role'];
  isActive: boolean;
}

export type CategoryInput = Omit<CategoryDetails, 'customFields'> & { customFields: Array<Omit<CustomField, 'order'> & { order: number }> };

export interface BotCommandInput {
  command?: string;
  description: string;
  handler?: BotCommand['handler'];
  response: string | null;
  order: number;
  isActive: boolean;
}

/** Messages on their way, then one page of the notices that failed for good (newest first). */
export interface DeliveryList {
  deliveries: Delivery[];
  counts: { waiting: number; retrying: number; failed: number; inbound: number };
  failedPagination: { page: number; limit: number; total: number; pages: number };
}

/** Failed notices shown per page of the Deliveries tab. */
const FAILED_PAGE_SIZE = 50;

export interface TelegramStatus {
  status: 'active' | 'inactive' | 'error';
  botUsername?: string;
  error?: string;
}

/** The Admin Panel's calls (docs/product.md section 7): users, categories, bot commands and bot messages. */
const adminApi = api.injectEndpoints({
  endpoints: (build) => ({
    users: build.query<UserPage, { page: number; limit: number; q?: string }>({
      query: ({ page, limit, q }) => ({ url: '/users', params: { page, limit, ...(q ? { q } : {}) } }),
      providesTags: ['User'],
    }),
    userStats: build.query<UserStats, void>({ query: () => '/users/stats', providesTags: ['User'] }),
    createUser: build.mutation<{ user: AdminUser }, UserInput>({
      query: (body) => creating({ url: '/users', method: 'POST', body }),
      invalidatesTags: ['User'],
    }),
    updateUser: build.mutation<{ user: AdminUser }, { id: string } & Partial<UserInput>>({
      query: ({ id, ...body }) => ({ url: `/users/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['User'],
    }),
    sendPasswordLink: build.mutation<{ sentTo: string; expiresAt: string }, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}/password-link`, method: 'POST' }),
    }),
    deleteUser: build.mutation<void, string>({
      query: (id) => ({ url: `/users/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['User'],
    }),
    allCategories: build.query<{ categories: Category[] }, void>({
      query: () => ({ url: '/categories', params: { includeInactive: 'true', ...WHOLE_LIST } }),
      providesTags: ['Category'],
    }),
    createCategory: build.mutation<{ category: Category }, CategoryInput>({
      query: (body) => ({ url: '/categories', method: 'POST', body }),
      invalidatesTags: ['Category', 'Stats'],
    }),
    updateCategory: build.mutation<{ category: Category }, { id: string } & CategoryInput>({
      query: ({ id, ...body }) => ({ url: `/categories/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['Category', 'Stats'],
    }),
    deleteCategory: build.mutation<void, string>({
      query: (id) => ({ url: `/categories/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Category', 'Stats', 'Canned'],
    }),
    botCommands: build.query<{ commands: BotCommand[] }, void>({ query: () => ({ url: '/bot-commands', params: WHOLE_LIST }), providesTags: ['BotCommand'] }),
    createBotCommand: build.mutation<{ command: BotCommand }, BotCommandInput>({
      query: (body) => ({ url: '/bot-commands', method: 'POST', body }),
      invalidatesTags: ['BotCommand'],
    }),
    updateBotCommand: build.mutation<{ command: BotCommand }, { id: string } & BotCommandInput>({
      query: ({ id, ...body }) => ({ url: `/bot-commands/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['BotCommand'],
    }),
    deleteBotCommand: build.mutation<void, string>({
      query: (id) => ({ url: `/bot-commands/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['BotCommand'],
    }),
    syncBotCommands: build.mutation<{ success: boolean; synced: number }, void>({
      // Telegram may take a while to answer; the server's own call waits up to its timeout.
      query: () => ({ url: '/bot-commands/sync', method: 'POST', timeout: 30_000 }),
      invalidatesTags: ['BotSettings'],
    }),
    botSettings: build.query<{ settings: BotSettings }, void>({ query: () => '/bot-settings', providesTags: ['BotSettings'] }),
    updateBotSettings: build.mutation<{ settings: BotSettings }, Partial<BotMessages>>({
      query: (messages) => ({ url: '/bot-settings', method: 'PUT', body: { messages } }),
      invalidatesTags: ['BotSettings'],
    }),
    resetBotSettings: build.mutation<{ settings: BotSettings }, void>({
      query: () => ({ url: '/bot-settings/reset', method: 'POST' }),
      invalidatesTags: ['BotSettings'],
    }),
    /** The argument is the page of failed notices. */
    deliveries: build.query<DeliveryList, number>({ query: (page) => `/deliveries?page=${page}&limit=${FAILED_PAGE_SIZE}`, providesTags: ['Delivery'] }),
    retryDelivery: build.mutation<{ message: string }, Pick<Delivery, 'channel' | 'id'>>({
      query: ({ channel, id }) => ({ url: `/deliveries/${channel}/${encodeURIComponent(id)}/retry`, method: 'POST' }),
      invalidatesTags: ['Delivery'],
    }),
    discardDelivery: build.mutation<void, Pick<Delivery, 'channel' | 'id'>>({
      query: ({ channel, id }) => ({ url: `/deliveries/${channel}/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Delivery'],
    }),
    settleFailedDeliveries: build.mutation<{ message: string; count: number }, 'retry' | 'discard'>({
      query: (action) => ({ url: `/deliveries/failed/${action}`, method: 'POST' }),
      invalidatesTags: ['Delivery'],
    }),
    /** Fetched again every few seconds while shown: a stall or a retry comes and goes on its own. */
    projectionFaults: build.query<ProjectionFaults, void>({ query: () => '/audit/projections/faults' }),
    /** Replays the whole log into a scratch store: asked for by a button, never on load. */
    projectionCheck: build.mutation<ProjectionCheck, void>({ query: () => ({ url: '/audit/projections', timeout: 600_000 }) }),
    telegramStatus: build.query<TelegramStatus, void>({ query: () => ({ url: '/settings/telegram/status', timeout: 30_000 }), providesTags: ['Settings'] }),
  }),
});

export const {
  useProjectionFaultsQuery,
  useProjectionCheckMutation,
  useUsersQuery,
  useSendPasswordLinkMutation,
  useUserStatsQuery,
  useCreateUserMutation,
  useUpdateUserMutation,
  useDeleteUserMutation,
  useAllCategoriesQuery,
  useCreateCategoryMutation,
  useUpdateCategoryMutation,
  useDeleteCategoryMutation,
  useBotCommandsQuery,
  useCreateBotCommandMutation,
  useUpdateBotCommandMutation,
  useDeleteBotCommandMutation,
  useSyncBotCommandsMutation,
  useBotSettingsQuery,
  useUpdateBotSettingsMutation,
  useResetBotSettingsMutation,
  useTelegramStatusQuery,
  useDeliveriesQuery,
  useRetryDeliveryMutation,
  useDiscardDeliveryMutation,
  useSettleFailedDeliveriesMutation,
} = adminApi;
