import type { Macro } from '#contract/responses';
import type { MacroInput } from '#contract/macros';
import { api } from '../../app/api';

/** Macros (docs/macros.md): the composer applies them, the Macros page keeps them; both save through the one form. */
const macroApi = api.injectEndpoints({
  endpoints: (build) => ({
    macros: build.query<{ macros: Macro[] }, void>({ query: () => '/macros', providesTags: ['Macro'] }),
    createMacro: build.mutation<{ macro: Macro }, MacroInput>({
      query: (body) => ({ url: '/macros', method: 'POST', body }),
      invalidatesTags: ['Macro'],
    }),
    /** `version`: the one the form was opened on; the server refuses the change if the macro moved since (409 MACRO_CHANGED). */
    updateMacro: build.mutation<{ macro: Macro }, { id: string; version: number } & MacroInput>({
      query: ({ id, ...body }) => ({ url: `/macros/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: ['Macro'],
    }),
    deleteMacro: build.mutation<void, string>({
      query: (id) => ({ url: `/macros/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Macro'],
    }),
  }),
});

export const { useMacrosQuery, useCreateMacroMutation, useUpdateMacroMutation, useDeleteMacroMutation } = macroApi;
