import type { ApiRegistry } from '../openapi/registry';
import { Health } from '#contract/responses';

export function describeHealth(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/health',
    summary: 'Health check',
    description:
      '`starting` answers 503 with Retry-After until the read models have caught up; `degraded` while failed notices wait for an admin, while the read models hold conflicts or skipped events or a projection stalled behind the log (`projections.problems` says which and why), or while messages in or out wait for a channel that does not answer (`channels`).',
    access: 'public',
    unguarded: true,
    responses: { 200: { description: 'Serving (`ok` or `degraded`)', schema: Health }, 503: { description: 'Starting', schema: Health } },
  });
}
