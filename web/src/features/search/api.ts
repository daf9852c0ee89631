import type { SearchResults } from '#contract/search';
import { api } from '../../app/api';

interface SearchArgs {
  q: string;
  page?: number;
  limit?: number;
}

/** GET /api/search (docs/search.md): the server decides what the caller may find. */
const searchApi = api.injectEndpoints({
  endpoints: (build) => ({
    search: build.query<SearchResults, SearchArgs>({
      query: ({ q, page = 1, limit = 20 }) => ({ url: '/search', params: { q, page, limit } }),
      keepUnusedDataFor: 10,
    }),
  }),
});

export const { useLazySearchQuery } = searchApi;
