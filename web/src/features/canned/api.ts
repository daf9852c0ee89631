import { api, creating } from '../../app/api';
import type { CannedMessage } from '../../entities/ticket/types';

export interface CannedInput {
  shortcode: string;
  title: string;
  content: string;
  /** Absent on create means none; null on update clears it (docs/product.md section 5: 'none' is sent as absent). */
  category?: string | null;
}

/** Canned message changes (docs/product.md section 7); the list itself is the tickets API's `cannedMessages`. */
const cannedApi = api.injectEndpoints({
  endpoints: (build) => ({
    createCanned: build.mutation<{ cannedMessage: CannedMessage }, CannedInput>({
      query: (body) => creating({ url: '/canned-messages', method: 'POST', body }),
      invalidatesTags: ['Canned'],
    }),
    updateCanned: build.mutation<{ cannedMessage: CannedMessage }, { id: string } & CannedInput>({
      query: ({ id, ...body }) => ({ url: `/canned-messages/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['Canned'],
    }),
    deleteCanned: build.mutation<void, string>({
      query: (id) => ({ url: `/canned-messages/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Canned'],
    }),
  }),
});

export const { useCreateCannedMutation, useUpdateCannedMutation, useDeleteCannedMutation } = cannedApi;
