import { api } from '../../app/api';

export interface TagInUse {
  tag: string;
  uses: number;
}

/** What a rename or merge did: the tickets whose tag changed (docs/teams.md). */
interface TagChange {
  from: string;
  to: string;
  merged: boolean;
  tickets: number;
}

/** The admin's Tags tab: the tags in use with their counts, renamed or merged across the desk. */
const tagsApi = api.injectEndpoints({
  endpoints: (build) => ({
    tagsInUse: build.query<TagInUse[], void>({
      query: () => ({ url: '/tags', params: { limit: 200 } }),
      transformResponse: (response: { tags: TagInUse[] }) => response.tags,
      providesTags: ['Tag'],
    }),
    changeTag: build.mutation<TagChange, { tag: string; into: string; merge: boolean }>({
      query: ({ tag, into, merge }) =>
        merge
          ? { url: `/tags/${encodeURIComponent(tag)}/merge`, method: 'POST', body: { into } }
          : { url: `/tags/${encodeURIComponent(tag)}/rename`, method: 'POST', body: { to: into } },
      transformResponse: (response: { change: TagChange }) => response.change,
      invalidatesTags: ['Tag', 'Ticket', 'Stats'],
    }),
  }),
});

export const { useTagsInUseQuery, useChangeTagMutation } = tagsApi;
