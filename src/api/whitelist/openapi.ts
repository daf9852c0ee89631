import { z } from 'zod';
import { addWhitelistSchema, listWhitelistQuery, updateWhitelistSchema } from '#contract/whitelist';
import type { ApiRegistry } from '../openapi/registry';
import { AccessRequest, Notice, Pagination, WhitelistEntry } from '#contract/responses';
import { scope } from '../http/scopes';

export function describeWhitelist(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const entry = z.strictObject({ entry: WhitelistEntry, message: z.string() });
  docs.route({
    method: 'get',
    path: '/whitelist',
    token: scope('admin'),
    summary: 'List the Telegram whitelist',
    access: admin,
    query: listWhitelistQuery,
    responses: { 200: { description: '{ entries, pagination }', schema: z.strictObject({ entries: z.array(WhitelistEntry), pagination: Pagination }) } },
  });
  docs.route({
    method: 'post',
    path: '/whitelist',
    token: scope('admin'),
    summary: 'Add a Telegram ID or username',
    access: admin,
    body: addWhitelistSchema,
    responses: { 201: { description: 'The new entry', schema: entry } },
    errors: [409],
  });
  docs.route({
    method: 'get',
    path: '/whitelist/check/:value',
    token: scope('admin'),
    summary: 'Whether a Telegram ID or username is whitelisted',
    access: admin,
    responses: { 200: { description: '{ whitelisted, entry? }', schema: z.strictObject({ whitelisted: z.boolean(), entry: WhitelistEntry.optional() }) } },
  });
  docs.route({
    method: 'get',
    path: '/whitelist/access-requests',
    token: scope('admin'),
    summary: 'List access requests',
    access: admin,
    query: listWhitelistQuery,
    responses: { 200: { description: '{ requests, pagination }', schema: z.strictObject({ requests: z.array(AccessRequest), pagination: Pagination }) } },
  });
  docs.route({
    method: 'post',
    path: '/whitelist/access-requests/:key/approve',
    token: scope('admin'),
    summary: 'Approve an access request',
    access: admin,
    responses: { 200: { description: 'The new entry', schema: entry } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/whitelist/access-requests/:key/reject',
    token: scope('admin'),
    summary: 'Reject an access request',
    access: admin,
    responses: { 200: { description: 'Rejected', schema: Notice } },
  });
  docs.route({
    method: 'delete',
    path: '/whitelist/access-requests/entry/:id',
    token: scope('admin'),
    summary: 'Delete an access request',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
  });
  docs.route({
    method: 'put',
    path: '/whitelist/:key',
    token: scope('admin'),
    summary: 'Change an entry',
    access: admin,
    body: updateWhitelistSchema,
    responses: { 200: { description: 'The entry after the change', schema: entry } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/whitelist/entry/:id',
    token: scope('admin'),
    summary: 'Delete an entry by record id',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
  });
  docs.route({
    method: 'delete',
    path: '/whitelist/:key',
    token: scope('admin'),
    summary: 'Delete an entry by Telegram ID or username',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
  });
}
