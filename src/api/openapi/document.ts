import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { describeApiTokens } from '../apiTokens/openapi';
import { describeAudit } from '../audit/openapi';
import { describeEventFeed } from '../events/openapi';
import { describeWebhooks } from '../webhooks/openapi';
import { describeBot } from '../bot/openapi';
import { describeCanned } from '../canned/openapi';
import { describeMacros } from '../macros/openapi';
import { describeViews } from '../views/openapi';
import { describeRules } from '../rules/openapi';
import { describeCategories } from '../categories/openapi';
import { describeTeams } from '../teams/openapi';
import { describeNotifications } from '../notifications/openapi';
import { describeDeliveries } from '../deliveries/openapi';
import { describeHealth } from '../health/openapi';
import { describeIdentity } from '../identity/openapi';
import { describeSatisfaction } from '../satisfaction/openapi';
import { describeSla } from '../sla/openapi';
import { describeSearch } from '../search/openapi';
import { describeSettings } from '../settings/openapi';
import { describeTelegram } from '../telegram/openapi';
import { describeTickets } from '../tickets/openapi';
import { describeUsers } from '../users/openapi';
import { describeWhitelist } from '../whitelist/openapi';
import { ApiRegistry } from './registry';
import { open } from '../http/scopes';

/** The document's own routes and the app-level /metrics. */
function describeOperations(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/openapi.json',
    token: open,
    summary: 'This OpenAPI 3.1 document',
    access: 'public',
    unguarded: true,
    beforeBodyParser: true,
    responses: { 200: { description: 'The document', schema: z.object({}).catchall(z.unknown()) } },
  });
  docs.route({
    method: 'get',
    path: '/docs',
    token: open,
    summary: 'The API reference page (Swagger UI) for this document',
    access: 'public',
    unguarded: true,
    beforeBodyParser: true,
    responses: { 200: { description: 'An HTML page', schema: z.string(), contentType: 'text/html' } },
  });
  docs.route({
    method: 'get',
    path: '/docs/init.js',
    token: open,
    summary: "The reference page's start script",
    access: 'public',
    unguarded: true,
    beforeBodyParser: true,
    responses: { 200: { description: 'JavaScript', schema: z.string(), contentType: 'text/javascript' } },
  });
  docs.route({
    method: 'get',
    path: '/docs/assets/:file',
    token: open,
    summary: "The reference page's files (Swagger UI, served from the app: the page works offline)",
    access: 'public',
    unguarded: true,
    beforeBodyParser: true,
    responses: {
      200: { description: 'swagger-ui.css, swagger-ui-bundle.js or favicon-32x32.png', schema: z.string(), contentType: 'application/octet-stream' },
    },
  });
  docs.route({
    method: 'get',
    path: '/metrics',
    token: open,
    root: true,
    summary: 'Prometheus metrics',
    description:
      'Closed (404) unless METRICS_TOKEN is set, then for `Authorization: Bearer <METRICS_TOKEN>` only (see docs/operations.md). METRICS_PORT serves it on a port of its own.',
    access: 'public',
    responses: { 200: { description: 'Prometheus text format', schema: z.string(), contentType: 'text/plain' } },
    errors: [401, 404],
  });
}

const AREAS = [
  describeHealth,
  describeIdentity,
  describeUsers,
  describeCategories,
  describeTeams,
  describeNotifications,
  describeSettings,
  describeBot,
  describeWhitelist,
  describeDeliveries,
  describeTickets,
  describeSearch,
  describeCanned,
  describeMacros,
  describeViews,
  describeRules,
  describeSatisfaction,
  describeSla,
  describeAudit,
  describeApiTokens,
  describeEventFeed,
  describeWebhooks,
  describeTelegram,
  describeOperations,
];

let built: ReturnType<OpenApiGeneratorV31['generateDocument']> | null = null;

/** The OpenAPI 3.1 document of the API, built once from the areas' registries. */
export function openApiDocument(version: string) {
  if (built) return built;
  const docs = new ApiRegistry();
  for (const describe of AREAS) describe(docs);
  built = new OpenApiGeneratorV31(docs.registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Support desk API',
      version,
      description:
        'The HTTP API of the support desk (the socket.io live channel is described in the README). Every answer carries `X-Request-Id`. Errors answer `{ error, code, details? }`.',
    },
  });
  return built;
}
