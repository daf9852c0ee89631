import { OpenAPIRegistry, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Role } from '#contract/users';
import { ErrorBody } from '#contract/responses';
import type { TokenDeclaration, TokenRule } from '../http/scopes';

/** Who may call a route: anyone, anyone signed in, or these roles (requireRole in src/api/http/auth.ts). */
type Access = 'public' | 'signed-in' | Role[];

type Method = 'get' | 'post' | 'put' | 'delete';

type ZodObjectLike = z.ZodObject;

export interface RouteDoc {
  method: Method;
  /** The Express path below /api (`/tickets/:id`), or a full path outside it (`/metrics`, with `root`). */
  path: string;
  summary: string;
  description?: string;
  access: Access;
  /** What an API token may do here: the same declaration the route lists beside its role guard (src/api/http/scopes.ts). */
  token: TokenDeclaration;
  /** The schema the route parses its query with. */
  query?: ZodObjectLike;
  /** The schema the route parses its JSON body with. */
  body?: z.ZodType;
  /** The route also takes multipart/form-data (files), with the same fields plus files. */
  multipart?: boolean;
  /** Success answers by status; without a schema the answer has no body. */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  /** Errors this route answers beyond those its access, parameters and input imply. */
  errors?: number[];
  /** The path is outside /api. */
  root?: boolean;
  /** Served before the start-up, rate-limit and maintenance guards (no 429, no 503). */
  unguarded?: boolean;
  /** Takes an `Idempotency-Key` header (src/app/idempotency.ts). */
  idempotent?: boolean;
  /** Served before the JSON body parser (the document's own pages): a body sent along is never read. */
  beforeBodyParser?: boolean;
}

const IDEMPOTENCY_KEY = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Makes a retry safe: a request repeated with the same key (1 to 255 visible ASCII characters, one per action) answers what the first one created and creates nothing more; the same key with a different request is refused with 422 `IDEMPOTENCY_KEY_REUSED`, and a repeat after what it created was deleted with 409 `IDEMPOTENCY_KEY_TARGET_DELETED`. Keys are per signed-in user and kept with the event log.',
    ),
});

/**
 * Every answer carries the request id (src/api/http/requests.ts). Declared once and referred to:
 * written out in each of some 1,500 responses it was 40% of the document, and past 650 KB the
 * reference page (/api/docs) stopped drawing part way.
 */
const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };

const ERROR_TEXT: Record<number, string> = {
  202: 'Stored, but not yet in the read models after the wait (`ACCEPTED_PENDING`, with `position` and `Retry-After`): read it again shortly',
  400: 'Invalid input: `VALIDATION_FAILED` with `details`, `INVALID_JSON`, or another 400 code',
  401: 'No valid access token (`UNAUTHORIZED`, `INVALID_TOKEN`, `TOKEN_EXPIRED`, `TOKEN_REVOKED`, `SESSION_ENDED`, `ACCOUNT_DEACTIVATED`) or wrong credentials',
  403: 'Signed in, but the role may not do this (`FORBIDDEN`), or the API token lacks the scope (`INSUFFICIENT_SCOPE`) or may not be used here at all (`TOKEN_NOT_ALLOWED`)',
  404: 'No such record, or one this user may not see (`NOT_FOUND`)',
  409: 'In conflict with the current state (`CONFLICT`, `CONCURRENT_CHANGE`, or a route-specific code)',
  410: 'No longer usable: a password link used (`LINK_USED`), replaced by a newer one (`LINK_REPLACED`) or expired (`LINK_EXPIRED`)',
  413: 'The body or a file is too large (`PAYLOAD_TOO_LARGE`)',
  415: 'The body is neither JSON nor, where files travel, multipart/form-data (`UNSUPPORTED_MEDIA_TYPE`)',
  422: 'Understood but cannot be done (`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was used for a different request)',
  429: 'Rate limited (`RATE_LIMITED`), with `Retry-After`',
  503: 'Starting (`STARTING`, with `Retry-After`), in maintenance mode (`MAINTENANCE`), or, where a job is queued, retried or discarded, the job queue (Redis) not answering (`QUEUE_UNAVAILABLE`)',
};

const tokenText = (rule: TokenRule) => {
  if (!rule.allowed) return 'API tokens: refused (`TOKEN_NOT_ALLOWED`); sign in as a person.';
  if (rule.scopes.length === 0) return 'API tokens: any scope.';
  const staff = rule.staffScopes.length > 0 ? ` (a staff member's token also ${rule.staffScopes.map((scope) => `\`${scope}\``).join(', ')})` : '';
  return `API tokens: need ${rule.scopes.map((scope) => `\`${scope}\``).join(', ')}${staff}; \`admin\` grants every scope.`;
};

/** `/tickets/:id` as OpenAPI writes it: `/tickets/{id}`. */
export const openApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}');

/**
 * The registry the areas describe their routes in (src/api/<area>/openapi.ts), each route with the
 * zod schemas its handler parses; errors all answer the one error body of docs/contract.md.
 */
export class ApiRegistry {
  readonly registry = new OpenAPIRegistry();

  constructor() {
    this.registry.registerComponent('headers', 'RequestId', {
      description:
        "The request's id: the caller's X-Request-Id when it is 1 to 100 letters, digits, '.', '_', ':' or '-', else a new UUID. Also the correlationId of the events the request appends.",
      schema: { type: 'string' },
    });
    this.registry.registerComponent('securitySchemes', 'bearer', {
      type: 'http',
      scheme: 'bearer',
      description:
        'The access token of POST /api/auth/login (a JWT, 15 minutes; renew it with POST /api/auth/refresh), or an API token (`sdt_…`, from POST /api/api-tokens) whose scopes narrow its owner’s role (docs/integrations.md)',
    });
  }

  route(doc: RouteDoc): void {
    const path = doc.root ? doc.path : `/api${doc.path}`;
    const names = [...doc.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    const params = names.length > 0 ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;

    const errors = new Set(doc.errors ?? []);
    if (doc.body || doc.query) errors.add(400);
    // Every /api route after the JSON parser reads any body sent (whatever the method), so each can
    // answer a malformed one (400), one over 1 MB (413) and one of another type (415).
    if (!doc.root && !doc.beforeBodyParser) [400, 413, 415].forEach((status) => errors.add(status));
    if (doc.access !== 'public') errors.add(401);
    const rule = doc.token.tokenRule;
    if (Array.isArray(doc.access) || !rule.allowed || rule.scopes.length > 0) errors.add(403);
    if (params) errors.add(404);
    if (doc.body) errors.add(415);
    if (doc.idempotent) [409, 422].forEach((status) => errors.add(status));
    // A change answers once the read models show it; when they lag past the wait, 202 (src/app/commands.ts).
    if (doc.method !== 'get' && doc.access !== 'public' && !doc.root) errors.add(202);
    if (!doc.root && !doc.unguarded) {
      errors.add(429);
      errors.add(503);
    }

    const responses: Record<number, ResponseConfig> = {};
    for (const [status, answer] of Object.entries(doc.responses)) {
      const headers = doc.root ? {} : { headers: REQUEST_ID_HEADER };
      responses[Number(status)] = answer.schema
        ? { description: answer.description, ...headers, content: { [answer.contentType ?? 'application/json']: { schema: answer.schema } } }
        : { description: answer.description, ...headers };
    }
    for (const status of [...errors].sort()) {
      responses[status] = {
        description: ERROR_TEXT[status] ?? 'Error',
        ...(doc.root ? {} : { headers: REQUEST_ID_HEADER }),
        content: { 'application/json': { schema: ErrorBody } },
      };
    }

    const body = doc.body
      ? {
          required: true,
          content: {
            'application/json': { schema: doc.body },
            ...(doc.multipart ? { 'multipart/form-data': { schema: doc.body } } : {}),
          },
        }
      : undefined;
    const roles = Array.isArray(doc.access) ? `Roles: ${doc.access.join(', ')}.` : doc.access === 'signed-in' ? 'Any signed-in user.' : 'No sign-in needed.';

    const config: RouteConfig = {
      method: doc.method,
      path: openApiPath(path),
      summary: doc.summary,
      description: [doc.description, roles, tokenText(rule)].filter(Boolean).join('\n\n'),
      tags: [doc.root ? 'operations' : doc.path.split('/')[1]!],
      ...(doc.access !== 'public' ? { security: [{ bearer: [] }] } : {}),
      request: {
        ...(params ? { params } : {}),
        ...(doc.query ? { query: doc.query } : {}),
        ...(doc.idempotent ? { headers: IDEMPOTENCY_KEY } : {}),
        ...(body ? { body } : {}),
      },
      responses,
      // The declaration itself, for clients and for the test that walks every route with every scope.
      'x-api-token': rule,
    };
    this.registry.registerPath(config);
  }
}
