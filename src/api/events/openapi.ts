import { FeedPage, feedQuery } from '#contract/events';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

export function describeEventFeed(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/events',
    token: scope('tickets:read'),
    summary:
      'The ticket events the caller may see after a log position, as CloudEvents 1.0 (id = position); waits up to `wait` seconds when nothing is new. With an API token it needs tickets:read; internal notes need notes:read',
    access: 'signed-in',
    query: feedQuery,
    responses: { 200: { description: '{ events, next }: pass `next` as `after` to go on', schema: FeedPage } },
  });
}
