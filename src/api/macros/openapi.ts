import { z } from 'zod';
import { applyMacroSchema, createMacroSchema, listMacrosQuery, updateMacroSchema } from '#contract/macros';
import { Macro, MacroPreview, Ticket } from '#contract/responses';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

export function describeMacros(docs: ApiRegistry): void {
  const staff = ['agent' as const, 'admin' as const];
  const macro = z.strictObject({ macro: Macro });
  docs.route({
    method: 'get',
    path: '/macros',
    token: scope('tickets:read'),
    summary: 'The macros the caller may apply: shared ones and their own',
    access: staff,
    query: listMacrosQuery,
    responses: { 200: { description: '{ macros } by name', schema: z.strictObject({ macros: z.array(Macro) }) } },
  });
  docs.route({
    method: 'get',
    path: '/macros/:id',
    token: scope('tickets:read'),
    summary: 'A macro (404 for another agent’s personal macro)',
    access: staff,
    responses: { 200: { description: 'The macro', schema: macro } },
  });
  docs.route({
    method: 'post',
    path: '/macros',
    token: scope('admin'),
    summary: 'Create a macro (only admins share one); unknown variables are 422 UNKNOWN_VARIABLES naming them',
    access: staff,
    body: createMacroSchema,
    responses: { 201: { description: 'The new macro, version 1', schema: macro } },
    errors: [403, 422],
  });
  docs.route({
    method: 'put',
    path: '/macros/:id',
    token: scope('admin'),
    summary: 'Change a macro (a shared one: admins only); each change is a new version; with `version`, a macro changed since is 409 MACRO_CHANGED',
    access: staff,
    body: updateMacroSchema,
    responses: { 200: { description: 'The macro after the change', schema: macro } },
    errors: [403, 409, 422],
  });
  docs.route({
    method: 'delete',
    path: '/macros/:id',
    token: scope('admin'),
    summary: 'Delete a macro (a shared one: admins only)',
    access: staff,
    responses: { 204: { description: 'Deleted' } },
    errors: [403],
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/macros/:macroId/preview',
    token: scope('tickets:read'),
    summary: 'What applying the macro to this ticket would do, its variables filled in; records nothing',
    access: staff,
    responses: { 200: { description: 'The rendered reply and the actions in words', schema: MacroPreview } },
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/macros/:macroId/apply',
    token: scope('tickets:write'),
    idempotent: true,
    summary:
      'Apply a macro: the reply (as sent, else the rendered one) and each action as its own event carrying the macro; all or nothing: a refused action (named in the error) leaves nothing applied',
    access: staff,
    body: applyMacroSchema,
    responses: { 200: { description: 'The ticket after the macro', schema: z.strictObject({ ticket: Ticket }) } },
    errors: [403, 409],
  });
}
