import type { SearchResults } from '#contract/search';
import type { Priority, TicketStatus } from '#contract/tickets';
import { api } from '../../app/api';

/** What the dialog's filters narrow a search to (docs/search.md); an unset one is left out of the request. */
export interface SearchFilters {
  status?: TicketStatus;
  priority?: Priority;
  category?: string;
  assignee?: 'me' | 'unassigned';
  createdFrom?: string;
  createdTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
}

interface SearchArgs extends SearchFilters {
  q: string;
  page?: number;
  limit?: number;
}

/** GET /api/search (docs/search.md): the server decides what the caller may find. */
const searchApi = api.injectEndpoints({
  endpoints: (build) => ({
    search: build.query<SearchResults, SearchArgs>({
      query: ({ page = 1, limit = 20, ...rest }) => ({ url: '/search', params: { ...rest, page, limit } }),
      keepUnusedDataFor: 10,
    }),
  }),
});

export const { useLazySearchQuery } = searchApi;
