import { z } from 'zod';
import type { ApiRegistry } from '../openapi/registry';
import { listDeliveriesQuery } from '#contract/deliveries';
import { Delivery, Notice, Pagination } from '#contract/responses';
import { scope } from '../http/scopes';

export function describeDeliveries(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  docs.route({
    method: 'get',
    path: '/deliveries',
    token: scope('admin'),
    summary: 'Undelivered notices',
    description:
      'Every notice out and Telegram message in on its way (waiting, sending, retrying), oldest first, then one page (`page`, `limit`, default 50) of the notices that failed for good, newest first; `failedPagination` pages those.',
    access: admin,
    query: listDeliveriesQuery,
    responses: {
      200: {
        description:
          '{ deliveries, counts: { waiting, retrying, failed, inbound }, failedPagination }: notices out and Telegram messages in that are not yet through',
        schema: z.strictObject({
          deliveries: z.array(Delivery),
          counts: z.strictObject({ waiting: z.int(), retrying: z.int(), failed: z.int(), inbound: z.int() }),
          failedPagination: Pagination,
        }),
      },
    },
  });
  docs.route({
    method: 'post',
    path: '/deliveries/failed/retry',
    token: scope('admin'),
    summary: 'Retry every failed notice',
    access: admin,
    responses: { 200: { description: '{ message, count }', schema: Notice } },
  });
  docs.route({
    method: 'post',
    path: '/deliveries/failed/discard',
    token: scope('admin'),
    summary: 'Discard every failed notice',
    access: admin,
    responses: { 200: { description: '{ message, count }', schema: Notice } },
  });
  docs.route({
    method: 'post',
    path: '/deliveries/:channel/:id/retry',
    token: scope('admin'),
    summary: 'Retry one notice',
    description:
      '`channel` is telegram or email. A notice whose last try may have arrived (no answer came) is sent again only this way, and the decision is recorded with the admin.',
    access: admin,
    responses: { 200: { description: 'Queued again', schema: Notice } },
  });
  docs.route({
    method: 'delete',
    path: '/deliveries/:channel/:id',
    token: scope('admin'),
    summary: 'Discard one notice',
    access: admin,
    responses: { 204: { description: 'Discarded' } },
  });
}
