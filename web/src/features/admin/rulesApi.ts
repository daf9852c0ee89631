import type { Rule, RuleDryRun, RuleFirings } from '#contract/responses';
import type { RuleChanges, RuleInput } from '#contract/rules';
import { api } from '../../app/api';

export type { Rule };

/** The Rules tab's calls (docs/automation.md): admins only. */
const rulesApi = api.injectEndpoints({
  endpoints: (build) => ({
    rules: build.query<{ rules: Rule[] }, void>({ query: () => '/rules', providesTags: ['Rule'] }),
    createRule: build.mutation<{ rule: Rule }, RuleInput>({
      query: (body) => ({ url: '/rules', method: 'POST', body }),
      invalidatesTags: ['Rule'],
    }),
    updateRule: build.mutation<{ rule: Rule }, { id: string; changes: RuleChanges }>({
      query: ({ id, changes }) => ({ url: `/rules/${id}`, method: 'PUT', body: changes }),
      invalidatesTags: ['Rule'],
    }),
    deleteRule: build.mutation<void, string>({ query: (id) => ({ url: `/rules/${id}`, method: 'DELETE' }), invalidatesTags: ['Rule'] }),
    reorderRules: build.mutation<{ rules: Rule[] }, string[]>({
      query: (ids) => ({ url: '/rules/order', method: 'POST', body: { ids } }),
      invalidatesTags: ['Rule'],
    }),
    importRules: build.mutation<{ rules: Rule[] }, unknown>({
      query: (body) => ({ url: '/rules/import', method: 'POST', body }),
      invalidatesTags: ['Rule'],
    }),
    exportRules: build.query<{ rules: RuleInput[] }, void>({ query: () => '/rules/export', providesTags: ['Rule'] }),
    ruleFirings: build.query<RuleFirings, string>({ query: (id) => `/rules/${id}/firings`, providesTags: ['Rule'] }),
    ruleDryRun: build.query<RuleDryRun, string>({ query: (id) => `/rules/${id}/dry-run`, keepUnusedDataFor: 0 }),
  }),
});

export const {
  useRulesQuery,
  useCreateRuleMutation,
  useUpdateRuleMutation,
  useDeleteRuleMutation,
  useReorderRulesMutation,
  useImportRulesMutation,
  useLazyExportRulesQuery,
  useRuleFiringsQuery,
  useRuleDryRunQuery,
} = rulesApi;
