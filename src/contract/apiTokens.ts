import { z } from 'zod';
import { singleLine } from './text';
import { usernameSchema } from './users';

/** What an API token may do, narrowed further by its owner's role (docs/integrations.md). */
export const API_TOKEN_SCOPES = ['tickets:read', 'tickets:write', 'messages:write', 'notes:read', 'admin'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Every API token starts with this, so the server tells it from a sign-in token before any check. */
export const API_TOKEN_PREFIX = 'sdt_';

/** Calls per token per minute: a limit of its own, apart from the people's (docs/integrations.md). */
export const API_TOKEN_RATE_LIMIT = { points: 600, durationSeconds: 60 } as const;

export const createApiTokenSchema = z
  .object({
    label: singleLine(z.string({ message: 'Label is required' }).trim(), 'Label')
      .min(1, 'Label is required')
      .max(100, 'Label must be at most 100 characters'),
    userId: z.string({ message: 'userId must be the id of a user' }).min(1, 'userId must be the id of a user').optional(),
    /**
     * Instead of `userId`: a named service account, made for the token as a user of that role
     * (username `svc_<name>`, no password anyone knows, so it never signs in).
     */
    serviceAccount: z
      .object({
        name: usernameSchema.refine((name) => name.length <= 26, 'Service account names are at most 26 characters'),
        role: z.enum(['agent', 'admin'], { message: 'A service account is an agent or an admin' }),
      })
      .strict()
      .optional(),
    scopes: z
      .array(z.enum(API_TOKEN_SCOPES, { message: `Each scope must be one of ${API_TOKEN_SCOPES.join(', ')}` }), { message: 'Scopes are required' })
      .min(1, 'Give the token at least one scope')
      .transform((scopes) => [...new Set(scopes)]),
    expiresAt: z.iso.datetime({ message: 'expiresAt must be an ISO-8601 date and time', offset: true }).nullable().default(null),
  })
  .strict()
  .refine((input) => (input.userId === undefined) !== (input.serviceAccount === undefined), {
    message: 'Give either userId or serviceAccount',
    path: ['userId'],
  });
export type CreateApiTokenInput = z.infer<typeof createApiTokenSchema>;

export const ApiToken = z
  .strictObject({
    _id: z.string(),
    label: z.string(),
    userId: z.string(),
    /** The owner as the admin knows them; null once the user is gone. */
    owner: z.strictObject({ username: z.string(), name: z.string(), role: z.string() }).nullable(),
    scopes: z.array(z.enum(API_TOKEN_SCOPES)),
    status: z.enum(['active', 'revoked', 'expired']),
    expiresAt: z.string().nullable(),
    createdAt: z.string(),
    createdBy: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    revokedBy: z.string().nullable(),
  })
  .meta({ id: 'ApiToken' });
export type ApiToken = z.infer<typeof ApiToken>;
