import { z } from 'zod';
import { createCannedSchema, listCannedQuery, suggestionsQuery, updateCannedSchema } from '#contract/canned';
import type { ApiRegistry } from '../openapi/registry';
import { CannedMessage, Pagination } from '#contract/responses';
import { scope } from '../http/scopes';

export function describeCanned(docs: ApiRegistry): void {
  const staff = ['agent' as const, 'admin' as const];
  const canned = z.strictObject({ cannedMessage: CannedMessage });
  docs.route({
    method: 'get',
    path: '/canned-messages',
    token: scope('tickets:read'),
    summary: 'List canned messages',
    access: staff,
    query: listCannedQuery,
    responses: {
      200: { description: '{ cannedMessages, pagination }', schema: z.strictObject({ cannedMessages: z.array(CannedMessage), pagination: Pagination }) },
    },
  });
  docs.route({
    method: 'get',
    path: '/canned-messages/suggestions',
    token: scope('tickets:read'),
    summary: 'Canned messages matching what is typed',
    access: staff,
    query: suggestionsQuery,
    responses: { 200: { description: '{ suggestions }', schema: z.strictObject({ suggestions: z.array(CannedMessage) }) } },
  });
  docs.route({
    method: 'get',
    path: '/canned-messages/:id',
    token: scope('tickets:read'),
    summary: 'A canned message',
    access: staff,
    responses: { 200: { description: 'The canned message', schema: canned } },
  });
  docs.route({
    method: 'post',
    path: '/canned-messages',
    token: scope('admin'),
    idempotent: true,
    summary: 'Create a canned message',
    access: staff,
    body: createCannedSchema,
    responses: { 201: { description: 'The new canned message', schema: canned } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/canned-messages/:id',
    token: scope('admin'),
    summary: 'Change a canned message',
    access: staff,
    body: updateCannedSchema,
    responses: { 200: { description: 'The canned message after the change', schema: canned } },
    errors: [403, 409],
  });
  docs.route({
    method: 'put',
    path: '/canned-messages/:id/usage',
    token: scope('admin'),
    summary: 'Count one use',
    access: staff,
    responses: { 200: { description: 'The canned message', schema: canned } },
  });
  docs.route({
    method: 'delete',
    path: '/canned-messages/:id',
    token: scope('admin'),
    summary: 'Delete a canned message',
    access: staff,
    responses: { 204: { description: 'Deleted' } },
    errors: [403],
  });
}
