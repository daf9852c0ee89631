import type { SlaReport, SlaSettings, TicketSla } from '#contract/sla';
import { api } from '../../app/api';

export type SlaSettingsView = SlaSettings & { version: number; updatedAt: string | null; updatedBy: string | null };
interface TicketSlaEntry {
  ticketId: string;
  sla: TicketSla;
}

/** Due times of tickets, the calendars and policies, and the attainment report (docs/sla.md). */
const slaApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The SLA of the listed tickets (Live Tickets' chips); `version` refetches when a listed ticket changes live. */
    ticketsSla: build.query<{ now: string; tickets: TicketSlaEntry[] }, { ids: string[]; version: string }>({
      query: ({ ids }) => ({ url: '/sla/tickets', params: { tickets: ids.join(',') } }),
      providesTags: [{ type: 'Sla', id: 'TICKETS' }],
    }),
    ticketSla: build.query<{ now: string; sla: TicketSla | null }, { id: string; version: string }>({
      query: ({ id }) => `/tickets/${encodeURIComponent(id)}/sla`,
      providesTags: (_result, _error, { id }) => [{ type: 'Sla', id }],
    }),
    /** The period is the last `days` days up to now (the server's clock). */
    slaReport: build.query<SlaReport, { days: number }>({
      query: ({ days }) => ({ url: '/sla/report', params: { from: new Date(Date.now() - days * 24 * 3600_000).toISOString() } }),
      transformResponse: (response: { report: SlaReport }) => response.report,
      providesTags: [{ type: 'Sla', id: 'REPORT' }],
    }),
    slaSettings: build.query<SlaSettingsView, void>({
      query: () => '/sla/settings',
      transformResponse: (response: { settings: SlaSettingsView }) => response.settings,
      providesTags: [{ type: 'Sla', id: 'SETTINGS' }],
    }),
    updateSlaSettings: build.mutation<SlaSettingsView, SlaSettings>({
      query: (body) => ({ url: '/sla/settings', method: 'PUT', body }),
      transformResponse: (response: { settings: SlaSettingsView }) => response.settings,
      invalidatesTags: ['Sla'],
    }),
  }),
});

export const { useTicketsSlaQuery, useTicketSlaQuery, useSlaReportQuery, useSlaSettingsQuery, useUpdateSlaSettingsMutation } = slaApi;
