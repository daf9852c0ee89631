import type { ApiRegistry } from '../openapi/registry';
import { z } from 'zod';
import { Health, PublicHealth } from '#contract/responses';
import { open } from '../http/scopes';

export function describeHealth(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/health',
    token: open,
    summary: 'Health check',
    description:
      "Everyone gets `{ status }`, worked out without reading the log (at most once a second). An admin's access token or the METRICS_TOKEN as bearer (and the METRICS_PORT listener) get the detailed answer. `starting` answers 503 with Retry-After until the read models have caught up; `degraded` while the job queue (Redis) does not answer within 0.7 s (`queueState: down`), while failed notices wait for an admin, while the read models hold conflicts or skipped events, a projection stalled behind the log or the read store does not answer within 0.7 s (`projections.problems` says which and why), or while messages in or out wait for a channel that does not answer (`channels`).",
    access: 'public',
    unguarded: true,
    responses: {
      200: {
        description: 'Serving (`ok` or `degraded`): `{ status }`, or the detailed answer for an admin or the metrics token',
        schema: z.union([PublicHealth, Health]),
      },
      503: { description: 'Starting', schema: z.union([PublicHealth, Health]) },
    },
  });
}
