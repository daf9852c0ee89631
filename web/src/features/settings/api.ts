import type { SystemSettings } from '#contract/responses';
import type { MailboxTest } from '#contract/settings';
import { api } from '../../app/api';

export type { SystemSettings };
export type SettingsInput = Omit<SystemSettings, 'updatedAt' | 'updatedBy'>;

interface BotTest {
  success: boolean;
  bot?: { id: number; username?: string; firstName?: string };
  error?: string;
}

type MailboxTestResult = { success: true; folder: string; messages: number; idle: boolean } | { success: false; error: string };

/** System settings (docs/product.md section 7: GET and PUT /settings, the Telegram test). */
const settingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    systemSettings: build.query<{ settings: SystemSettings }, void>({ query: () => '/settings', providesTags: ['Settings'] }),
    saveSettings: build.mutation<{ settings: SystemSettings }, SettingsInput>({
      query: (body) => ({ url: '/settings', method: 'PUT', body }),
      invalidatesTags: ['Settings'],
    }),
    testBot: build.mutation<BotTest, { telegramBotToken: string }>({
      query: (body) => ({ url: '/settings/telegram/test', method: 'POST', body, timeout: 30_000 }),
    }),
    testMailbox: build.mutation<MailboxTestResult, MailboxTest>({
      query: (body) => ({ url: '/settings/mailbox/test', method: 'POST', body, timeout: 30_000 }),
    }),
  }),
});

export const { useSystemSettingsQuery, useSaveSettingsMutation, useTestBotMutation, useTestMailboxMutation } = settingsApi;
