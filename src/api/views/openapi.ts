import { z } from 'zod';
import { createViewSchema, updateViewSchema } from '#contract/views';
import { SavedView } from '#contract/responses';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

export function describeViews(docs: ApiRegistry): void {
  const staff = ['agent' as const, 'admin' as const];
  const view = z.strictObject({ view: SavedView });
  docs.route({
    method: 'get',
    path: '/views',
    token: scope('tickets:read'),
    summary: "Live Tickets' views the caller sees: the ten defaults first, then everyone's, their teams' (an admin: every team's) and their own",
    access: staff,
    responses: { 200: { description: '{ views }', schema: z.strictObject({ views: z.array(SavedView) }) } },
  });
  docs.route({
    method: 'get',
    path: '/views/counts',
    token: scope('tickets:read'),
    summary: 'How many tickets each view the caller sees matches for them now; the live channel pushes changes as view_counts',
    access: staff,
    responses: { 200: { description: '{ counts } by view id', schema: z.strictObject({ counts: z.record(z.string(), z.int()) }) } },
  });
  docs.route({
    method: 'post',
    path: '/views',
    token: scope('tickets:write'),
    summary:
      'Save a view: personal (anyone on staff), shared with a team (its members or admins) or with everyone (admins); a name taken in the scope is 409 VIEW_NAME_TAKEN, a full scope 422 VIEW_LIMIT',
    access: staff,
    body: createViewSchema,
    responses: { 201: { description: 'The new view', schema: view } },
    errors: [403, 409, 422],
  });
  docs.route({
    method: 'put',
    path: '/views/:id',
    token: scope('tickets:write'),
    summary: 'Rename, change or move a view (whoever may share in its scope, and in the new one); the default views are 403',
    access: staff,
    body: updateViewSchema,
    responses: { 200: { description: 'The view after the change', schema: view } },
    errors: [403, 409, 422],
  });
  docs.route({
    method: 'delete',
    path: '/views/:id',
    token: scope('tickets:write'),
    summary: 'Delete a view (whoever may share in its scope); the default views are 403',
    access: staff,
    responses: { 204: { description: 'Deleted' } },
    errors: [403],
  });
}
