import type { ApiRegistry } from '../openapi/registry';
import { anyObject } from '#contract/responses';
import { ProjectionCheck, ProjectionFaults } from '#contract/readModels';
import { scope } from '../http/scopes';

export function describeAudit(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/audit/verify',
    token: scope('admin'),
    summary: 'Verify the hash chains of the event log',
    access: ['admin'],
    responses: { 200: { description: 'The verification (see docs/audit.md)', schema: anyObject('The verification') } },
  });
  docs.route({
    method: 'get',
    path: '/audit/projections',
    token: scope('admin'),
    summary: 'Compare the read models with a replay of the log',
    access: ['admin'],
    responses: { 200: { description: 'The comparison (see docs/audit.md)', schema: ProjectionCheck } },
  });
  docs.route({
    method: 'get',
    path: '/audit/projections/faults',
    token: scope('admin'),
    summary: 'What the read models recorded against the log: key conflicts, skipped events, stalls',
    access: ['admin'],
    responses: {
      200: {
        description: 'Conflicts and failures (100 of each, oldest first, with counts), stalled projections (see docs/read-models.md)',
        schema: ProjectionFaults,
      },
    },
  });
}
