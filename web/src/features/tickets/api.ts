import type { StaffMemberView } from '#contract/notifications';
import { api, creating } from '../../app/api';
import type { RootState } from '../../app/store';
import type { PresenceSnapshot, TicketMessageNotice, TicketPresence, Viewer } from '#contract/live';
import { isTicketOpen, onLive, requestLive } from '../../lib/live';
import { withTicket, withoutTicket } from './display';
import type { BulkChange, MacroPreview, TicketMail } from '#contract/responses';
import type { BulkAction } from '#contract/bulk';
import type {
  Message,
  Ticket,
  TicketChange,
  TicketDetail,
  TicketHistory,
  TicketList,
  TicketListArgs,
  TicketListItem,
  TicketMoment,
} from '../../entities/ticket/types';

interface NewTicketInput {
  title: string;
  description: string;
  category: string;
  priority: string;
  customFieldValues: Record<string, string>;
}

const myId = (state: unknown) => (state as RootState).session.user?._id;

const withMessage = (messages: Message[], message: Message) =>
  messages.some((known) => known._id === message._id) ? messages.map((known) => (known._id === message._id ? message : known)) : [...messages, message];

/**
 * Ticket data lives in the RTK Query cache and the live channel patches it (docs/product.md section 4):
 * new_ticket and ticket_updated reach every list and the open ticket, new_message and
 * message_edited the open ticket's conversation.
 */

const ticketsApi = api.injectEndpoints({
  endpoints: (build) => ({
    tickets: build.query<TicketList, TicketListArgs>({
      query: ({ status, assigned, waiting, q, satisfaction, sla, team, tag, priority, category, customer, sort, limit }) => ({
        url: '/tickets',
        params: {
          ...(status ? { status } : {}),
          ...(assigned ? { assigned } : {}),
          ...(waiting !== undefined ? { waiting } : {}),
          ...(q ? { q } : {}),
          ...(satisfaction ? { satisfaction } : {}),
          ...(sla ? { sla } : {}),
          ...(team ? { team } : {}),
          ...(tag ? { tag } : {}),
          ...(priority ? { priority } : {}),
          ...(category ? { category } : {}),
          ...(customer ? { customer } : {}),
          sort: sort ?? 'latest',
          limit,
        },
      }),
      providesTags: ['Ticket'],
      async onCacheEntryAdded(args, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, getState }) {
        await cacheDataLoaded.catch(() => undefined);
        /** A pushed ticket carries no unread count (it is the reader's own): the list keeps its own, plus `unread`. */
        const patch = (ticket: Ticket, unread = 0) =>
          updateCachedData((draft) => {
            const known = draft.tickets.find((candidate) => candidate._id === ticket._id)?.unreadCount ?? 0;
            const item: TicketListItem = { ...ticket, unreadCount: known + unread };
            const next = withTicket({ tickets: draft.tickets, total: draft.pagination.total }, item, args, myId(getState()));
            draft.tickets = next.tickets;
            draft.pagination.total = next.total;
          });
        const stops = [
          onLive<{ ticket: Ticket }>('new_ticket', ({ ticket }) => patch(ticket)),
          onLive<{ ticket: Ticket }>('ticket_updated', ({ ticket }) => patch(ticket)),
          // Unread unless it is one's own, or the ticket is open in this tab (read as it arrives).
          onLive<TicketMessageNotice<Ticket>>('ticket_message', ({ ticket, message }) =>
            patch(ticket, message.senderId === myId(getState()) || isTicketOpen(ticket._id) ? 0 : 1),
          ),
          onLive<{ ticketId: string }>('ticket_deleted', ({ ticketId }) =>
            updateCachedData((draft) => {
              const next = withoutTicket({ tickets: draft.tickets, total: draft.pagination.total }, ticketId);
              draft.tickets = next.tickets;
              draft.pagination.total = next.total;
            }),
          ),
        ];
        await cacheEntryRemoved;
        stops.forEach((stop) => stop());
      },
    }),
    ticket: build.query<TicketDetail, string>({
      query: (id) => `/tickets/${encodeURIComponent(id)}`,
      providesTags: (_result, _error, id) => [{ type: 'Ticket', id }],
      async onCacheEntryAdded(id, { updateCachedData, cacheDataLoaded, cacheEntryRemoved, dispatch }) {
        await cacheDataLoaded.catch(() => undefined);
        const mine = (draft: TicketDetail, ticketId: string) => draft.ticket._id === ticketId;
        const stops = [
          onLive<{ ticket: Ticket; change?: TicketChange }>('ticket_updated', ({ ticket, change }) => {
            let changed = false;
            updateCachedData((draft) => {
              if (!mine(draft, ticket._id)) return;
              // A status or assignment change brings a system line into the conversation: fetch it.
              // The push says what changed: after a reconnect, replayed pushes carry the ticket as it
              // is now, so a replayed message may already have brought the new status and a
              // comparison of the two would see no change.
              changed =
                (change !== undefined && change.kind !== 'outcome') ||
                draft.ticket.status !== ticket.status ||
                draft.ticket.assignedAgent?._id !== ticket.assignedAgent?._id;
              draft.ticket = ticket;
            });
            if (changed) dispatch(api.util.invalidateTags([{ type: 'Ticket', id }]));
          }),
          onLive<{ message: Message; ticket: Ticket }>('new_message', ({ message, ticket }) =>
            updateCachedData((draft) => {
              if (!mine(draft, ticket._id)) return;
              draft.ticket = ticket;
              draft.messages = withMessage(draft.messages, message);
            }),
          ),
          onLive<{ message: Message }>('message_edited', ({ message }) =>
            updateCachedData((draft) => {
              if (mine(draft, message.ticket)) draft.messages = withMessage(draft.messages, message);
            }),
          ),
          onLive<{ ticketId: string }>('ticket_deleted', ({ ticketId }) =>
            dispatch(
              api.util.invalidateTags([
                { type: 'Ticket', id },
                { type: 'Ticket', id: ticketId },
              ]),
            ),
          ),
        ];
        await cacheEntryRemoved;
        stops.forEach((stop) => stop());
      },
    }),
    createTicket: build.mutation<{ ticket: Ticket }, NewTicketInput>({
      query: (body) => creating({ url: '/tickets', method: 'POST', body }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    updateTicket: build.mutation<
      { ticket: Ticket },
      { id: string; status?: string; assignedAgent?: string | null; team?: string | null; priority?: Ticket['priority']; category?: string }
    >({
      query: ({ id, ...body }) => ({ url: `/tickets/${id}`, method: 'PUT', body }),
      onQueryStarted: (_args, lifecycle) => putTicket(lifecycle),
    }),
    assignTicket: build.mutation<{ ticket: Ticket }, { id: string; agentId: string }>({
      query: ({ id, agentId }) => ({ url: `/tickets/${id}/assign`, method: 'POST', body: { agentId } }),
      onQueryStarted: (_args, lifecycle) => putTicket(lifecycle),
    }),
    /** Who an internal note can mention: the composer's suggestions after `@` (docs/notifications.md, "Mentions"). */
    staffMembers: build.query<{ staff: StaffMemberView[] }, void>({
      query: () => '/staff',
      keepUnusedDataFor: 600,
    }),
    /** A customer's other tickets, for the merge card: fetched again when any ticket changes, not patched live. */
    customerTickets: build.query<TicketList, string>({
      query: (customer) => ({ url: '/tickets', params: { customer, sort: 'latest', limit: 20 } }),
      providesTags: ['Ticket'],
    }),
    /** Merges, unmerges and relations change two tickets (and their conversations): every ticket view is fetched again. */
    mergeTicket: build.mutation<{ ticket: Ticket }, { id: string; target: string }>({
      query: ({ id, target }) => ({ url: `/tickets/${id}/merge`, method: 'POST', body: { target } }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    /**
     * docs/bulk.md: one action on the ticked tickets or on all matching the view. Keyed, so the retry after a
     * lost answer gets the first one's results; the server may take a while for 500 tickets.
     */
    bulkChange: build.mutation<{ bulk: BulkChange }, ({ tickets: string[] } | { filter: Record<string, string> }) & { action: BulkAction }>({
      query: (body) => creating({ url: '/tickets/bulk', method: 'POST', body, timeout: 120_000 }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    /** The mails of an e-mail ticket (staff): fetched again when the conversation grows (`version`). */
    ticketMail: build.query<{ mails: TicketMail[] }, { ticketId: string; version: string }>({
      query: ({ ticketId }) => `/tickets/${ticketId}/mail`,
    }),
    macroPreview: build.query<MacroPreview, { ticketId: string; macroId: string }>({
      query: ({ ticketId, macroId }) => `/tickets/${ticketId}/macros/${macroId}/preview`,
      keepUnusedDataFor: 0,
    }),
    applyMacro: build.mutation<{ ticket: Ticket }, { ticketId: string; macroId: string; reply: string; version: number }>({
      query: ({ ticketId, macroId, ...body }) => ({ url: `/tickets/${ticketId}/macros/${macroId}/apply`, method: 'POST', body }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    splitTicket: build.mutation<{ ticket: Ticket }, { id: string; messageId: string; withFollowing: boolean; title: string }>({
      query: ({ id, ...body }) => creating({ url: `/tickets/${id}/split`, method: 'POST', body }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    unmergeTicket: build.mutation<{ ticket: Ticket }, string>({
      query: (id) => ({ url: `/tickets/${id}/unmerge`, method: 'POST' }),
      invalidatesTags: ['Ticket', 'Stats'],
    }),
    relateTicket: build.mutation<{ ticket: Ticket }, { id: string; target: string; related: boolean }>({
      query: ({ id, target, related }) =>
        related ? { url: `/tickets/${id}/related`, method: 'POST', body: { target } } : { url: `/tickets/${id}/related/${target}`, method: 'DELETE' },
      invalidatesTags: ['Ticket'],
    }),
    /** docs/teams.md: a tag on or off the ticket (staff). */
    tagTicket: build.mutation<{ ticket: Ticket }, { id: string; tag: string; tagged: boolean }>({
      query: ({ id, tag, tagged }) =>
        tagged ? { url: `/tickets/${id}/tags`, method: 'POST', body: { tag } } : { url: `/tickets/${id}/tags/${encodeURIComponent(tag)}`, method: 'DELETE' },
      onQueryStarted: (_args, lifecycle) => putTicket(lifecycle),
    }),
    tagSuggestions: build.query<{ tags: Array<{ tag: string; uses: number }> }, string>({
      query: (q) => ({ url: '/tags', params: { q } }),
    }),
    recordOutcome: build.mutation<{ ticket: Ticket }, { id: string; outcomeMessage: string }>({
      query: ({ id, outcomeMessage }) => ({ url: `/tickets/${id}/outcome`, method: 'PUT', body: { outcomeMessage } }),
      onQueryStarted: (_args, lifecycle) => putTicket(lifecycle),
    }),
    /** `key`: the Idempotency-Key of a message from the outbox (web/src/lib/outbox.ts), kept across its tries. */
    postMessage: build.mutation<{ message: Message }, { id: string; ticketKey: string; content: string; isInternal: boolean; files: File[]; key?: string }>({
      query: ({ id, content, isInternal, files, key }) => {
        const body = new FormData();
        body.append('content', content);
        body.append('messageType', files.length > 0 ? 'file' : 'text');
        body.append('isInternal', String(isInternal));
        for (const file of files) body.append('attachments', file, file.name);
        return creating({ url: `/tickets/${id}/messages`, method: 'POST', body, timeout: files.length > 0 ? 120_000 : 10_000 }, key);
      },
      async onQueryStarted({ ticketKey }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) dispatch(ticketsApi.util.updateQueryData('ticket', ticketKey, (draft) => void (draft.messages = withMessage(draft.messages, data.message))));
      },
    }),
    editMessage: build.mutation<{ message: Message }, { ticketKey: string; messageId: string; content: string }>({
      query: ({ messageId, content }) => ({ url: `/messages/${messageId}`, method: 'PUT', body: { content } }),
      async onQueryStarted({ ticketKey }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) dispatch(ticketsApi.util.updateQueryData('ticket', ticketKey, (draft) => void (draft.messages = withMessage(draft.messages, data.message))));
      },
    }),
    /** The auditor's view (staff): fetched when the History panel opens, and again when the ticket changes. */
    ticketHistory: build.query<TicketHistory, string>({
      query: (id) => `/tickets/${encodeURIComponent(id)}/history`,
    }),
    ticketAt: build.query<TicketMoment, { id: string; revision: number }>({
      query: ({ id, revision }) => ({ url: `/tickets/${encodeURIComponent(id)}/at`, params: { revision } }),
    }),
    markRead: build.mutation<void, string>({
      query: (id) => ({ url: `/tickets/${id}/messages/read`, method: 'POST' }),
      // Read now: every list's unread badge for the ticket clears at once (and the tab title with them).
      onQueryStarted(id, { dispatch, getState }) {
        for (const { endpointName, originalArgs } of ticketsApi.util.selectInvalidatedBy(getState() as RootState, ['Ticket'])) {
          if (endpointName !== 'tickets') continue;
          dispatch(
            ticketsApi.util.updateQueryData('tickets', originalArgs as TicketListArgs, (draft) => {
              for (const ticket of draft.tickets) if (ticket._id === id) ticket.unreadCount = 0;
            }),
          );
        }
      },
    }),
    /** Staff only: who is on which ticket (ticket id to viewers), kept current by `ticket_presence`. */
    presence: build.query<Record<string, Viewer[]>, void>({
      async queryFn() {
        try {
          const answer = await requestLive<PresenceSnapshot>('presence_snapshot', {});
          if (!answer.ok) return { error: { status: 'CUSTOM_ERROR', error: answer.error } };
          return { data: Object.fromEntries(answer.tickets.map(({ ticketId, viewers }) => [ticketId, viewers])) };
        } catch (failure) {
          return { error: { status: 'CUSTOM_ERROR', error: failure instanceof Error ? failure.message : 'Presence is not available' } };
        }
      },
      providesTags: ['Presence'],
      async onCacheEntryAdded(_args, { updateCachedData, cacheDataLoaded, cacheEntryRemoved }) {
        await cacheDataLoaded.catch(() => undefined);
        const stop = onLive<TicketPresence>('ticket_presence', ({ ticketId, viewers }) =>
          updateCachedData((draft) => {
            if (viewers.length > 0) draft[ticketId] = viewers;
            else delete draft[ticketId];
          }),
        );
        await cacheEntryRemoved;
        stop();
      },
    }),
  }),
});

/** A ticket the server answered with replaces every cached copy at once, before the live echo. */
async function putTicket({
  dispatch,
  queryFulfilled,
  getState,
}: {
  dispatch: (action: unknown) => unknown;
  queryFulfilled: Promise<{ data: { ticket: Ticket } }>;
  getState: () => unknown;
}) {
  const result = await queryFulfilled.catch(() => null);
  if (!result) return;
  const { ticket } = result.data;
  for (const { endpointName, originalArgs } of ticketsApi.util.selectInvalidatedBy(getState() as RootState, ['Ticket'])) {
    if (endpointName === 'ticket' && ticketsApi.endpoints.ticket.select(originalArgs as string)(getState() as RootState).data?.ticket._id === ticket._id) {
      dispatch(ticketsApi.util.updateQueryData('ticket', originalArgs as string, (draft) => void (draft.ticket = ticket)));
      // The change may have added a system line to the conversation (status, assignment).
      dispatch(api.util.invalidateTags([{ type: 'Ticket', id: originalArgs as string }]));
    }
    if (endpointName === 'tickets')
      dispatch(
        ticketsApi.util.updateQueryData('tickets', originalArgs as TicketListArgs, (draft) => {
          const unreadCount = draft.tickets.find((candidate) => candidate._id === ticket._id)?.unreadCount ?? 0;
          const next = withTicket(
            { tickets: draft.tickets, total: draft.pagination.total },
            { ...ticket, unreadCount },
            originalArgs as TicketListArgs,
            myId(getState()),
          );
          draft.tickets = next.tickets;
          draft.pagination.total = next.total;
        }),
      );
  }
}

export const {
  useTicketMailQuery,
  useTicketsQuery,
  useTicketQuery,
  useTicketHistoryQuery,
  useTicketAtQuery,
  useCreateTicketMutation,
  useUpdateTicketMutation,

  useRecordOutcomeMutation,
  useTagTicketMutation,
  useTagSuggestionsQuery,
  useMergeTicketMutation,
  useCustomerTicketsQuery,
  useUnmergeTicketMutation,
  useSplitTicketMutation,
  useBulkChangeMutation,
  useMacroPreviewQuery,
  useApplyMacroMutation,
  useRelateTicketMutation,
  usePostMessageMutation,
  useEditMessageMutation,
  useMarkReadMutation,
  usePresenceQuery,
  useStaffMembersQuery,
} = ticketsApi;
