import { z } from 'zod';
import { ApiToken, createApiTokenSchema } from '#contract/apiTokens';
import type { ApiRegistry } from '../openapi/registry';
import { noToken } from '../http/scopes';

export function describeApiTokens(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  docs.route({
    method: 'get',
    path: '/api-tokens',
    token: noToken,
    summary: 'List API tokens with their owner, scopes, expiry, last use and status (never a secret)',
    access: admin,
    responses: { 200: { description: '{ tokens }', schema: z.strictObject({ tokens: z.array(ApiToken) }) } },
  });
  docs.route({
    method: 'post',
    path: '/api-tokens',
    token: noToken,
    summary: 'Create an API token for a user; the secret is in this answer only (send it as Authorization: Bearer)',
    access: admin,
    body: createApiTokenSchema,
    responses: {
      201: { description: 'The token and its secret, shown once', schema: z.strictObject({ token: ApiToken, secret: z.string(), message: z.string() }) },
    },
    // A service account made with the token takes an e-mail of its own: 409 `EMAIL_TAKEN` when it is someone's.
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/api-tokens/:id',
    token: noToken,
    summary: 'Revoke an API token: refused from its next call, on every process',
    access: admin,
    responses: { 200: { description: 'The revoked token', schema: z.strictObject({ token: ApiToken, message: z.string() }) } },
  });
}
