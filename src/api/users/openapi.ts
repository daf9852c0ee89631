import { z } from 'zod';
import { createUserSchema, listUsersQuery, updateUserSchema } from '#contract/users';
import type { ApiRegistry } from '../openapi/registry';
import { Pagination, User, UserStats } from '#contract/responses';
import { scope } from '../http/scopes';

const userAnswer = z.strictObject({ user: User });

export function describeUsers(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  docs.route({
    method: 'get',
    path: '/users/stats',
    token: scope('admin'),
    summary: 'User counts',
    access: admin,
    responses: { 200: { description: 'total, active, inactive, byRole, activeAgents, activeStaff, newThisWeek', schema: UserStats } },
  });
  docs.route({
    method: 'get',
    path: '/users',
    token: scope('admin'),
    summary: 'List users',
    access: admin,
    query: listUsersQuery,
    responses: { 200: { description: 'One page of users', schema: z.strictObject({ users: z.array(User), pagination: Pagination }) } },
  });
  docs.route({
    method: 'get',
    path: '/users/:id',
    token: scope('admin'),
    summary: 'A user',
    access: admin,
    responses: { 200: { description: 'The user', schema: userAnswer } },
  });
  docs.route({
    method: 'post',
    path: '/users',
    token: scope('admin'),
    idempotent: true,
    summary: 'Create a user',
    access: admin,
    body: createUserSchema,
    responses: { 201: { description: 'The new user', schema: userAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/users/:id',
    token: scope('admin'),
    summary: 'Change a user',
    access: admin,
    body: updateUserSchema,
    responses: { 200: { description: 'The user after the change', schema: userAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/users/:id/password-link',
    token: scope('admin'),
    summary: 'Mail the user a link to set their password',
    description: 'The link works once, for 7 days; a newer link replaces older ones. At most 3 links per user an hour (429).',
    access: admin,
    responses: {
      201: { description: 'The link is on its way', schema: z.strictObject({ sentTo: z.string(), expiresAt: z.string() }) },
    },
    errors: [403, 404, 429],
  });
  docs.route({
    method: 'delete',
    path: '/users/:id',
    token: scope('admin'),
    summary: 'Delete a user',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
    errors: [409],
  });
}
