import { z } from 'zod';
import {
  rateSchema,
  ratingCommentSchema,
  ratingsQuerySchema,
  reportQuerySchema,
  SATISFACTION_CHANNELS,
  updateSatisfactionSettingsSchema,
} from '#contract/satisfaction';
import type { ApiRegistry } from '../openapi/registry';
import { open, scope } from '../http/scopes';

const Group = z.strictObject({
  id: z.string().nullable(),
  name: z.string(),
  surveyed: z.number(),
  rated: z.number(),
  score: z.number().nullable(),
  responseRate: z.number().nullable(),
});

const Satisfaction = z.strictObject({
  satisfaction: z.strictObject({
    enabled: z.boolean(),
    question: z.string(),
    labels: z.array(z.string()),
    episode: z
      .strictObject({
        number: z.number(),
        resolvedAt: z.string(),
        open: z.boolean(),
        score: z.number().nullable(),
        comment: z.string().nullable(),
        channel: z.enum(SATISFACTION_CHANNELS).nullable(),
        ratedAt: z.string().nullable(),
      })
      .nullable(),
    canRate: z.boolean(),
  }),
});

const Settings = z.strictObject({
  settings: z.strictObject({
    enabled: z.boolean(),
    question: z.string(),
    labels: z.array(z.string()),
    delayMinutes: z.number(),
    channels: z.strictObject({ web: z.boolean(), telegram: z.boolean(), email: z.boolean() }),
    updatedAt: z.string().nullable(),
    updatedBy: z.string().nullable(),
  }),
});

const Report = z.strictObject({
  report: z.strictObject({
    from: z.string(),
    to: z.string(),
    total: Group,
    byCategory: z.array(Group),
    byAgent: z.array(Group),
    byTeam: z.array(Group),
    latestComments: z.array(
      z.strictObject({
        ticketId: z.string(),
        number: z.number(),
        title: z.string(),
        score: z.number(),
        comment: z.string(),
        at: z.string(),
        agentName: z.string().nullable(),
      }),
    ),
  }),
});

const linkForm = 'An HTML page (the rating links are plain forms, outside /api; see docs/satisfaction.md)';

export function describeSatisfaction(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/tickets/:id/satisfaction',
    token: scope('tickets:read'),
    summary: "A ticket's satisfaction survey: the question, its latest resolution's rating, and whether the viewer may rate now",
    access: 'signed-in',
    responses: { 200: { description: '{ satisfaction }', schema: Satisfaction } },
  });
  docs.route({
    method: 'put',
    path: '/tickets/:id/satisfaction',
    token: scope('tickets:write'),
    summary: "Rate the ticket's latest resolution from 1 to 5 (the ticket's customer only; changeable for 7 days until closed or reopened)",
    access: 'signed-in',
    body: rateSchema,
    responses: { 200: { description: '{ satisfaction } after the rating', schema: Satisfaction } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/tickets/:id/satisfaction/comment',
    token: scope('tickets:write'),
    summary: 'Add or change the comment of the rating (at most 2000 characters; shown as text)',
    access: 'signed-in',
    body: ratingCommentSchema,
    responses: { 200: { description: '{ satisfaction } after the comment', schema: Satisfaction } },
    errors: [409],
  });
  docs.route({
    method: 'get',
    path: '/satisfaction/awaiting',
    token: scope('admin'),
    summary:
      "The signed-in customer's resolved tickets that wait for their rating on the web, most recently resolved first (empty for staff, or while the survey or its web channel is off)",
    access: 'signed-in',
    responses: {
      200: {
        description: '{ awaiting }',
        schema: z.strictObject({
          awaiting: z.array(z.strictObject({ ticketId: z.string(), number: z.number(), title: z.string(), resolvedAt: z.string() })),
        }),
      },
    },
  });
  docs.route({
    method: 'get',
    path: '/satisfaction/ratings',
    token: scope('tickets:read'),
    summary: 'The latest rating of each of these tickets (Live Tickets column): `tickets` is a comma-separated list of ids',
    access: ['agent', 'admin'],
    query: ratingsQuerySchema,
    responses: {
      200: {
        description: '{ ratings }',
        schema: z.strictObject({ ratings: z.array(z.strictObject({ ticketId: z.string(), score: z.number().nullable(), awaiting: z.boolean() })) }),
      },
    },
  });
  docs.route({
    method: 'get',
    path: '/satisfaction/settings',
    token: scope('admin'),
    summary: 'The survey settings',
    access: ['admin'],
    responses: { 200: { description: '{ settings }', schema: Settings } },
  });
  docs.route({
    method: 'put',
    path: '/satisfaction/settings',
    token: scope('admin'),
    summary: 'Change the survey settings: on/off, the question, the five labels, the delay in minutes, the channels',
    access: ['admin'],
    body: updateSatisfactionSettingsSchema,
    responses: { 200: { description: '{ settings } after the change', schema: Settings } },
  });
  docs.route({
    method: 'get',
    path: '/satisfaction/report',
    token: scope('admin'),
    summary:
      'CSAT (share of 4 and 5) and response rate of the resolutions of a period (default the last 30 days), by category and agent, with the latest comments',
    access: ['agent', 'admin'],
    query: reportQuerySchema,
    responses: { 200: { description: '{ report }', schema: Report } },
  });
  docs.route({
    method: 'get',
    path: '/satisfaction/report.csv',
    token: scope('admin'),
    summary: 'The resolutions of a period with their ratings, as CSV',
    access: ['agent', 'admin'],
    query: reportQuerySchema,
    responses: { 200: { description: 'CSV, one line per resolution', schema: z.string(), contentType: 'text/csv' } },
  });
  docs.route({
    method: 'get',
    path: '/rate/:ticketId',
    token: open,
    root: true,
    summary: 'The page an e-mailed rating link opens: the question with the clicked score chosen and a confirm button (changes nothing)',
    description: 'Query: `t` (the signed link token) and `score`. A token for another ticket or an expired one answers 403.',
    access: 'public',
    responses: { 200: { description: linkForm, schema: z.string(), contentType: 'text/html' } },
    // A link without its token or score (400); the pages keep the API's rate limit (429) and maintenance mode (503).
    errors: [400, 403, 429, 503],
  });
  docs.route({
    method: 'post',
    path: '/rate/:ticketId',
    token: open,
    root: true,
    summary: 'Rates from the confirm page (form fields `t`, `score`), then shows the comment form',
    description: 'A token for another ticket or an expired one, or a deactivated customer’s, answers 403; an ended resolution 409.',
    access: 'public',
    responses: { 200: { description: linkForm, schema: z.string(), contentType: 'text/html' } },
    errors: [400, 403, 409, 429, 503],
  });
  docs.route({
    method: 'post',
    path: '/rate/:ticketId/comment',
    token: open,
    root: true,
    summary: 'Adds the comment from the comment form (form fields `t`, `comment`)',
    description:
      'The comment follows the API’s rules (trimmed, 1 to 2000 characters, no control or bidi characters), else 400. A token for another ticket or an expired one, or a deactivated customer’s, answers 403; an ended resolution 409.',
    access: 'public',
    responses: { 200: { description: linkForm, schema: z.string(), contentType: 'text/html' } },
    errors: [400, 403, 409, 429, 503],
  });
}
