import type { PublicSettings, SetupStatus } from '#contract/responses';
import { api } from '../../app/api';

/** What the whole desk is: its public settings, and (admins) a new desk's setup. */
const deskApi = api.injectEndpoints({
  endpoints: (build) => ({
    publicSettings: build.query<PublicSettings['settings'], void>({
      query: () => '/settings/public',
      transformResponse: (response: PublicSettings) => response.settings,
      providesTags: ['Settings'],
    }),
    /** Refetched whenever what it counts changes (docs/settings.md), so the checklist ticks itself. */
    setupStatus: build.query<SetupStatus, void>({
      query: () => '/settings/setup',
      transformResponse: (response: { setup: SetupStatus }) => response.setup,
      providesTags: ['Category', 'User', 'Settings', 'Sla', 'Stats'],
    }),
  }),
});

export const { usePublicSettingsQuery, useSetupStatusQuery } = deskApi;
