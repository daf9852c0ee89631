import { z } from 'zod';
import { queryInt } from './paging';

/** The ticket events the feed and webhooks carry (docs/integrations.md). */
export const FEED_EVENT_TYPES = [
  'TicketOpened',
  'TicketStatusChanged',
  'TicketPriorityChanged',
  'AgentAssignedToTicket',
  'AgentUnassignedFromTicket',
  'TicketOutcomeRecorded',
  'TicketDeleted',
  'MessagePosted',
  'MessageEdited',
  'MessagesRead',
  'SatisfactionRated',
  'SatisfactionCommented',
  'SlaPolicyApplied',
  'SlaWarningRaised',
  // Staff's, as the outcome (docs/teams.md): never in a customer's feed.
  'TicketTeamChanged',
  'TicketTagAdded',
  'TicketTagRemoved',
  'TicketTagRenamed',
] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

/** The CloudEvents `type` of a desk event: `desk.` and the event's name. */
export const CLOUD_EVENT_TYPE_PREFIX = 'desk.';

/** Longest long-poll, in seconds. */
const FEED_MAX_WAIT_SECONDS = 30;

export const feedQuery = z
  .object({
    after: queryInt('after', { min: 0, max: Number.MAX_SAFE_INTEGER }).default(0),
    limit: queryInt('limit', { min: 1, max: 500 }).default(100),
    wait: queryInt('wait', { min: 0, max: FEED_MAX_WAIT_SECONDS }).default(20),
    types: z
      .string({ message: 'types must be a comma-separated list of event types' })
      .transform((value) => value.split(',').map((type) => type.trim().replace(CLOUD_EVENT_TYPE_PREFIX, '')))
      .pipe(z.array(z.enum(FEED_EVENT_TYPES, { message: `Each type must be one of ${FEED_EVENT_TYPES.join(', ')}` })))
      .optional(),
  })
  .strict();

/** One event as the feed and webhooks send it: a CloudEvents 1.0 JSON document whose id is the event's log position. */
export const CloudEvent = z
  .strictObject({
    specversion: z.literal('1.0'),
    id: z.string(),
    source: z.string(),
    type: z.string(),
    subject: z.string(),
    time: z.string(),
    datacontenttype: z.literal('application/json'),
    /** The event's revision in its ticket's stream (a CloudEvents extension attribute). */
    ticketrevision: z.number().int(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CloudEvent' });
export type CloudEvent = z.infer<typeof CloudEvent>;

export const FeedPage = z
  .strictObject({
    events: z.array(CloudEvent),
    /** Pass as `after` next time: the last position read, also when every event up to it was left out for this caller. */
    next: z.number().int(),
  })
  .meta({ id: 'FeedPage' });

const startPoint = {
  /** Deliver the events after this log position (as the feed's `after`). */
  after: z.number({ message: 'after must be a log position' }).int('after must be a log position').min(0, 'after must be a log position').optional(),
  /** Deliver the events recorded from this moment on. */
  fromDate: z.iso.datetime({ message: 'fromDate must be an ISO-8601 date and time', offset: true }).optional(),
};

export const createWebhookSchema = z
  .object({
    url: z.string({ message: 'URL is required' }).trim().min(1, 'URL is required').max(2000, 'URL must be at most 2000 characters'),
    types: z.array(z.enum(FEED_EVENT_TYPES, { message: `Each type must be one of ${FEED_EVENT_TYPES.join(', ')}` })).default([]),
    includeNotes: z.boolean({ message: 'includeNotes must be true or false' }).default(false),
    ...startPoint,
  })
  .strict()
  .refine((input) => input.after === undefined || input.fromDate === undefined, { message: 'Give either after or fromDate, not both', path: ['fromDate'] });
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const rewindWebhookSchema = z
  .object(startPoint)
  .strict()
  .refine((input) => (input.after === undefined) !== (input.fromDate === undefined), { message: 'Give either after or fromDate', path: ['after'] });

export const Webhook = z
  .strictObject({
    _id: z.string(),
    url: z.string(),
    types: z.array(z.enum(FEED_EVENT_TYPES)),
    includeNotes: z.boolean(),
    status: z.enum(['active', 'disabled']),
    disabledReason: z.string().nullable(),
    cursor: z.number().int(),
    createdAt: z.string(),
    createdBy: z.string().nullable(),
    lastDeliveryAt: z.string().nullable(),
    failingSince: z.string().nullable(),
    secretRotatedAt: z.string().nullable(),
    previousSecretValidUntil: z.string().nullable(),
  })
  .meta({ id: 'Webhook' });

export const WebhookDelivery = z
  .strictObject({
    _id: z.string(),
    webhookId: z.string(),
    position: z.number().int(),
    eventType: z.string(),
    subject: z.string(),
    status: z.enum(['delivered', 'retrying', 'given_up', 'failed']),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number(),
    attempt: z.number().int(),
    manual: z.boolean(),
    at: z.string(),
    nextTryAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
