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
    description:
      'A long poll (`wait` above 0) checks the caller again before it answers: a token revoked or expired, a session ended or an account deactivated while it waited answers 401, not the events written meanwhile. One user may hold at most 5 long polls at once (per server process); more are refused with 429 `RATE_LIMITED` and `Retry-After`.',
    access: 'signed-in',
    query: feedQuery,
    responses: { 200: { description: '{ events, next }: pass `next` as `after` to go on', schema: FeedPage } },
  });
}
