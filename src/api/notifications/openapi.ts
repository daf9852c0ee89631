import { z } from 'zod';
import { Notification, StaffMember, listNotificationsQuery, staffDirectoryQuery } from '#contract/notifications';
import { Pagination } from '#contract/responses';
import type { ApiRegistry } from '../openapi/registry';
import { noToken, scope } from '../http/scopes';

const unread = z.strictObject({ unread: z.int() });

export function describeNotifications(docs: ApiRegistry): void {
  const staff = ['agent' as const, 'admin' as const];
  docs.route({
    method: 'get',
    path: '/notifications',
    token: noToken,
    summary: 'My notifications (colleagues who mentioned me in internal notes), newest first, with the unread count',
    access: staff,
    query: listNotificationsQuery,
    responses: {
      200: {
        description: 'A page of notifications',
        schema: z.strictObject({ notifications: z.array(Notification), unread: z.int(), pagination: Pagination }),
      },
    },
  });
  docs.route({
    method: 'post',
    path: '/notifications/read',
    token: noToken,
    summary: 'Mark all my notifications read (recorded with me as actor)',
    access: staff,
    responses: { 200: { description: 'The unread count after it', schema: unread } },
  });
  docs.route({
    method: 'post',
    path: '/notifications/:id/read',
    token: noToken,
    summary: 'Mark one of my notifications read (its id is the note’s message id; another’s is 404)',
    access: staff,
    responses: { 200: { description: 'The unread count after it', schema: unread } },
    errors: [404],
  });
  docs.route({
    method: 'get',
    path: '/staff',
    token: scope('tickets:read'),
    summary: 'Active agents and admins whose username or name starts with q (the @mention suggestions)',
    access: staff,
    query: staffDirectoryQuery,
    responses: { 200: { description: 'The staff, by name', schema: z.strictObject({ staff: z.array(StaffMember) }) } },
  });
}
