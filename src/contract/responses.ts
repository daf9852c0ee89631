import { z } from 'zod';
import { HANDLERS } from './botCommands';
import { BOT_MESSAGE_KEYS } from './botSettings';
import { ruleActionSchema, ruleConditionSchema, ruleTriggerSchema } from './rules';
import { MAILBOX_AFTER_FETCH, UNKNOWN_SENDERS } from './settings';
import { PRIORITIES, TICKET_STATUSES } from './tickets';
import { ROLES } from './users';
import { ASSIGNMENT_MODES, AVAILABILITIES } from './teams';
import { VIEW_COLUMNS, VIEW_FILTER_KEYS, VIEW_SCOPES, VIEW_SORTS } from './views';

/**
 * Response bodies of the API: the OpenAPI document is generated from these schemas
 * (src/api/openapi/document.ts) and the web app's types are inferred from them (`z.infer`), so the
 * two cannot drift. Requests are described by the very zod schemas the routes parse with (the other
 * files of src/contract); answers are built from read models, so their shapes are written here,
 * strict where the document's tests check real answers against them (src/api/openapi/openapi.int.spec.ts).
 */

const id = z.string().meta({ description: 'Record id' });
const time = z.string().meta({ description: 'ISO 8601 date and time', example: '2026-01-31T09:30:00.000Z' });
const platform = z.enum(['web', 'telegram', 'email']);
/** Shapes several answers share, composed below rather than written again. */
const stamps = { createdAt: time, updatedAt: time };
const ordering = { order: z.int(), isActive: z.boolean() };
const ticketRef = z.strictObject({ _id: id, ticketId: z.int().meta({ description: 'The number people see (#1001)' }), title: z.string() });
const telegramPerson = { telegramId: z.string(), username: z.string(), firstName: z.string(), lastName: z.string() };

/** The error body of every 4xx and 5xx (docs/contract.md), plus route-specific fields such as `existingTicket`. */
export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'A message a person can read' }),
    code: z.string().meta({ description: 'A machine-readable code', example: 'VALIDATION_FAILED' }),
    details: z
      .array(z.strictObject({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Every validation issue (400 VALIDATION_FAILED)' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error' });

export const Pagination = z.strictObject({ page: z.int(), limit: z.int(), total: z.int(), pages: z.int() }).meta({ id: 'Pagination' });

export const User = z
  .strictObject({
    _id: id,
    username: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    role: z.enum(ROLES),
    isActive: z.boolean(),
    lastLogin: time.nullable(),
    telegramUsername: z.string().nullable(),
    createdByEmail: z.boolean().meta({ description: 'Made by the e-mail channel for a new sender of the support mailbox' }),
    createdAt: time,
  })
  .meta({ id: 'User' });

export const SignedIn = z.strictObject({ user: User, accessToken: z.string(), refreshToken: z.string() }).meta({ id: 'SignedIn' });
export const Tokens = z.strictObject({ accessToken: z.string(), refreshToken: z.string() }).meta({ id: 'Tokens' });

const person = z.strictObject({ _id: id, username: z.string(), firstName: z.string(), lastName: z.string() });
const namedPerson = person.omit({ username: true });
const Attachment = z
  .strictObject({
    url: z.string().meta({ description: 'GET it to download: /api/uploads/{fileId}' }),
    mimeType: z.string(),
    originalName: z.string(),
    size: z.int(),
  })
  .meta({ id: 'Attachment' });

export const Ticket = z
  .strictObject({
    ...ticketRef.shape,
    description: z.string(),
    category: z.strictObject({ _id: id, name: z.string(), color: z.string() }),
    priority: z.enum(PRIORITIES),
    status: z.enum(TICKET_STATUSES),
    customer: person,
    assignedAgent: person.nullable(),
    outcomeMessage: z.string().nullable().meta({ description: 'Staff only; null for a customer' }),
    outcomeUpdatedAt: time.nullable(),
    outcomeUpdatedBy: person.omit({ lastName: true }).nullable(),
    customFieldValues: z.array(z.strictObject({ fieldName: z.string(), fieldPrompt: z.string(), value: z.union([z.string(), z.number(), Attachment]) })),
    platform,
    ...stamps,
    resolvedAt: time.nullable(),
    closedAt: time.nullable(),
    messageCount: z.int().meta({ description: 'A customer counts only what they can see (no internal notes)' }),
    lastMessageAt: time.nullable(),
    lastCustomerMessageAt: time.nullable().meta({ description: 'When the customer last wrote (opening the ticket counts)' }),
    waitingSince: time.nullable().meta({
      description: 'Since when the customer waits for the desk: null once staff replied publicly, or the ticket is pending customer, resolved or closed',
    }),
    mergedInto: z.strictObject({ _id: id.nullable(), ticketId: z.int() }).nullable().meta({
      description: 'The ticket this one continues in after a merge; `_id` is null for a customer who may not open it',
    }),
    mergedFrom: z.array(z.strictObject({ _id: id, ticketId: z.int() })).meta({ description: 'The tickets merged into this one' }),
    related: z.array(z.strictObject({ _id: id, ticketId: z.int() })).meta({ description: 'Related tickets, both directions (staff; empty for a customer)' }),
    team: z.strictObject({ _id: id, name: z.string() }).nullable().meta({ description: 'The team the ticket is with (staff; null for a customer)' }),
    tags: z.array(z.string()).meta({ description: "Staff's tags, in the order added (empty for a customer)" }),
  })
  .meta({ id: 'Ticket' });

export const Message = z
  .strictObject({
    _id: id,
    ticket: id,
    content: z.string(),
    messageType: z.enum(['text', 'file', 'system']),
    isInternal: z.boolean(),
    platform,
    sender: namedPerson.extend({ role: z.enum(ROLES) }),
    createdAt: time,
    editedAt: time.nullable(),
    attachments: z.array(Attachment),
    mergedFrom: z
      .strictObject({ _id: id, ticketId: z.int() })
      .optional()
      .meta({ description: 'Set on a message a merge brought: the ticket it was written in' }),
  })
  .meta({ id: 'Message' });

export const TicketListItem = Ticket.extend({
  unreadCount: z.int().meta({ description: 'Messages from others the caller has not read yet (a customer counts no internal notes)' }),
}).meta({ id: 'TicketListItem' });
export const TicketList = z.strictObject({ tickets: z.array(TicketListItem), pagination: Pagination }).meta({ id: 'TicketList' });
export const TicketDetail = z.strictObject({ ticket: Ticket, messages: z.array(Message), unreadCount: z.int() }).meta({ id: 'TicketDetail' });
export const MessagePage = z.strictObject({ messages: z.array(Message), pagination: Pagination, unreadCount: z.int() }).meta({ id: 'MessagePage' });

export const CategoryStat = z.strictObject({
  _id: id,
  name: z.string(),
  color: z.string(),
  count: z.int(),
  open: z.int(),
  avgResolutionTime: z.number().meta({ description: 'Minutes; 0 without resolved tickets' }),
});
/** A team's figures on the dashboard (docs/teams.md); `_id` null for the tickets in no team ("No team"). */
const TeamStat = z.strictObject({
  _id: id.nullable(),
  name: z.string(),
  count: z.int(),
  open: z.int(),
  avgFirstResponseTime: z.number().meta({ description: "Minutes from opening to staff's first public reply; 0 without answered tickets" }),
  avgResolutionTime: z.number().meta({ description: 'Minutes; 0 without resolved tickets' }),
});
export const TicketStats = z
  .strictObject({
    total: z.int(),
    open: z.int(),
    inProgress: z.int(),
    pendingCustomer: z.int(),
    resolved: z.int(),
    closed: z.int(),
    unassigned: z.int(),
    todayTickets: z.int(),
    weekTickets: z.int(),
    avgResponseTime: z.number().meta({ description: 'Minutes' }),
    avgResolutionTime: z.number().meta({ description: 'Minutes' }),
    categoryStats: z.array(CategoryStat),
    teamStats: z.array(TeamStat),
    /** The tags most tickets carry now, most used first (at most 10). */
    topTags: z.array(z.strictObject({ tag: z.string(), uses: z.int() })),
    recentActivity: z.array(
      z.strictObject({
        type: z.enum(['new', 'updated']),
        message: z.string(),
        time,
        ticket: ticketRef.extend({ status: z.enum(TICKET_STATUSES) }),
      }),
    ),
  })
  .meta({ id: 'TicketStats' });

/** Messages waiting for a channel to answer again, by direction, and since when the oldest waits. */
const ChannelBacklog = z.strictObject({ inbound: z.int(), outbound: z.int(), waitingSince: time.nullable() }).meta({ id: 'ChannelBacklog' });

export const Health = z
  .strictObject({
    status: z.enum(['ok', 'starting', 'degraded']),
    eventStore: z.enum(['sqlite', 'eventstoredb']),
    readStore: z.enum(['memory', 'sqlite', 'mongodb']),
    queue: z.enum(['bullmq', 'inline']),
    /** `down` when the job queue (Redis) did not answer within 0.7 s; `deliveries` and `channels` are then its last figures. */
    queueState: z.enum(['up', 'down']),
    projections: z.strictObject({
      state: z.enum(['live', 'catching up']),
      position: z.number(),
      lag: z.int(),
      lagAtLeast: z.literal(true).optional(),
      applied: z.int(),
      percent: z.number(),
      /** Values two documents hold where the write side keeps them unique (see GET /api/audit/projections/faults). */
      conflicts: z.int(),
      /** Events a projection could not apply, recorded and skipped. */
      failures: z.int(),
      /** Projections behind the log that have not moved for PROJECTION_STALL_MS. */
      stalled: z.array(z.string()),
      /** One line per fault of the read models, naming the projection and why; empty when they follow the log. */
      problems: z.array(z.string()),
    }),
    deliveries: z.strictObject({ failed: z.int() }),
    channels: z.record(z.enum(['telegram', 'email']), ChannelBacklog),
  })
  .meta({ id: 'Health' });

/** What GET /api/health answers to everyone: the status alone, worked out without reading the log. */
export const PublicHealth = z.strictObject({ status: z.enum(['ok', 'starting', 'degraded']) }).meta({ id: 'PublicHealth' });

/** Which notices an agent or admin receives (customers get none of these). */
export const NotificationPreferences = z
  .strictObject({ newTickets: z.boolean(), ticketUpdates: z.boolean(), browserNotifications: z.boolean(), mentionEmails: z.boolean() })
  .meta({ id: 'NotificationPreferences' });

/** What Telegram's getMe says of a bot. */
export const BotIdentity = z.strictObject({ id: z.int(), username: z.string(), firstName: z.string() });

/** A body whose fields this document does not list one by one (see docs/contract.md for them). */
export const anyObject = (description: string) => z.object({}).catchall(z.unknown()).meta({ description });

/** `{ message }` answers of actions (retry, sync, reset...). */
export const Notice = z.object({ message: z.string() }).catchall(z.unknown()).meta({ id: 'Notice' });

export const Category = z
  .strictObject({
    _id: id,
    name: z.string(),
    description: z.string(),
    color: z.string(),
    ...ordering,
    customFields: z.array(anyObject('A custom field: fieldName, fieldType, prompt, placeholder, required...')),
    routeTeamId: id.nullable().meta({ description: '"Route new tickets to team": the team new tickets in this category go to, or null' }),
    ...stamps,
  })
  .meta({ id: 'Category' });

/** A team (docs/teams.md): its members named, an archived one kept so that tickets still name it. */
export const Team = z
  .strictObject({
    _id: id,
    name: z.string(),
    members: z.array(person.extend({ availability: z.enum(AVAILABILITIES).meta({ description: 'Whether the member takes automatic assignments' }) })),
    archived: z.boolean(),
    assignment: z
      .strictObject({ mode: z.enum(ASSIGNMENT_MODES), cap: z.int().nullable().meta({ description: 'Open tickets per agent at most; null for no cap' }) })
      .meta({ description: 'How new tickets routed to the team find an agent (docs/teams.md)' }),
    ...stamps,
  })
  .meta({ id: 'Team' });

export const CannedMessage = z
  .strictObject({
    _id: id,
    shortcode: z.string(),
    title: z.string(),
    content: z.string(),
    category: z.strictObject({ _id: id, name: z.string() }).nullable(),
    usageCount: z.int(),
    createdBy: namedPerson,
    createdAt: time,
    lastUsed: time.nullable(),
  })
  .meta({ id: 'CannedMessage' });

const macroActions = [
  z.strictObject({ type: z.literal('status'), status: z.enum(TICKET_STATUSES) }),
  z.strictObject({ type: z.literal('priority'), priority: z.enum(PRIORITIES) }),
  z.strictObject({ type: z.literal('assign'), agentId: z.string().meta({ description: "A user id, or 'me': whoever applies the macro" }) }),
  z.strictObject({ type: z.literal('note'), text: z.string() }),
  z.strictObject({ type: z.literal('team'), teamId: z.string().nullable().meta({ description: "A team's id; null takes the ticket out of its team" }) }),
  z.strictObject({ type: z.literal('tags'), add: z.array(z.string()), remove: z.array(z.string()) }),
] as const;
const macroAction = z.discriminatedUnion('type', macroActions);
const label = { label: z.string().meta({ description: 'The action in words, as a refusal names it' }) };
const previewAction = z.discriminatedUnion('type', [
  macroActions[0].extend(label),
  macroActions[1].extend(label),
  macroActions[2].extend(label),
  macroActions[3].extend(label),
  macroActions[4].extend(label),
  macroActions[5].extend(label),
]);

export const Macro = z
  .strictObject({
    _id: id,
    name: z.string(),
    shortcode: z.string(),
    reply: z.string(),
    actions: z.array(macroAction),
    shared: z.boolean(),
    version: z.int(),
    owner: namedPerson,
    createdAt: time,
    updatedAt: time,
  })
  .meta({ id: 'Macro' });

export const MacroPreview = z
  .strictObject({
    macro: z.strictObject({ _id: id, name: z.string(), version: z.int() }),
    reply: z.string().meta({ description: 'The reply with its variables filled in for this ticket and agent' }),
    actions: z.array(previewAction),
  })
  .meta({ id: 'MacroPreview' });

/** A rule as the Rules page lists it (docs/automation.md), with how often it fired. */
export const Rule = z
  .strictObject({
    _id: id,
    name: z.string(),
    enabled: z.boolean(),
    trigger: ruleTriggerSchema,
    conditions: z.array(ruleConditionSchema),
    actions: z.array(ruleActionSchema),
    order: z.int().meta({ description: 'Rules run in ascending order' }),
    version: z.int(),
    fired: z.int().meta({ description: 'How many times it ran on a ticket' }),
    lastFiredAt: time.nullable(),
    createdAt: time,
    updatedAt: time,
  })
  .meta({ id: 'Rule' });

export const RuleFirings = z
  .strictObject({
    fired: z.int(),
    firings: z.array(
      z.strictObject({
        eventId: z.string(),
        ruleId: id,
        version: z.int(),
        ticketId: id,
        number: z.int(),
        at: time,
        matched: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'RuleFirings' });

export const RuleDryRun = z
  .strictObject({
    checked: z.int().meta({ description: 'How many open tickets were looked at (the latest 1000); for a time rule, how many are in a wait for it' }),
    tickets: z.array(
      z.strictObject({
        _id: id,
        ticketId: z.int(),
        title: z.string(),
        status: z.enum(TICKET_STATUSES),
        priority: z.enum(PRIORITIES),
        wait: z
          .strictObject({
            since: z.string().meta({ description: 'When the event that made the ticket match was recorded' }),
            dueAt: z.string(),
            state: z.enum(['due', 'waiting']).meta({ description: 'due: its time has passed, the rule runs on it now; waiting: until dueAt' }),
          })
          .optional()
          .meta({ description: "A time rule's wait on this ticket" }),
      }),
    ),
  })
  .meta({ id: 'RuleDryRun' });

export const Delivery = z
  .strictObject({
    id: z.string(),
    channel: z.enum(['telegram', 'email']),
    direction: z.enum(['inbound', 'outbound']).meta({ description: 'outbound: a notice to a person; inbound: a Telegram message not yet applied' }),
    recipient: z.string().meta({ description: 'Telegram chat id or e-mail address (for inbound: the chat it came from)' }),
    recipientName: z
      .string()
      .nullable()
      .meta({ description: "Who that is, when the desk knows: a user's full name (and Telegram @username), else a whitelist entry's name" }),
    ticket: ticketRef.nullable(),
    kind: z.string(),
    state: z.enum(['waiting', 'active', 'retrying', 'failed']),
    attempts: z.int(),
    lastError: z.string().nullable(),
    ...stamps,
    ageSeconds: z.int().meta({ description: 'How long it has waited since it was queued' }),
  })
  .meta({ id: 'Delivery' });

export const UserStats = z
  .strictObject({
    total: z.int(),
    active: z.int(),
    inactive: z.int(),
    byRole: z.strictObject(Object.fromEntries(ROLES.map((role) => [role, z.int()])) as Record<(typeof ROLES)[number], z.ZodInt>),
    activeAgents: z.int(),
    activeStaff: z.int(),
    newThisWeek: z.int(),
  })
  .meta({ id: 'UserStats' });

export const WhitelistEntry = z
  .strictObject({
    _id: id,
    ...telegramPerson,
    notes: z.string(),
    isActive: z.boolean(),
    createdAt: time,
  })
  .meta({ id: 'WhitelistEntry' });

export const AccessRequest = z
  .strictObject({
    _id: id,
    ...telegramPerson,
    firstAttemptAt: time,
    lastAttemptAt: time,
    attemptCount: z.int(),
    lastMessage: z.string(),
  })
  .meta({ id: 'AccessRequest' });

export const BotCommand = z
  .strictObject({
    _id: id,
    command: z.string(),
    description: z.string(),
    handler: z.enum(HANDLERS),
    response: z.string().nullable(),
    ...ordering,
    isSystem: z.boolean(),
  })
  .meta({ id: 'BotCommand' });

export const SystemSettings = z
  .strictObject({
    telegramBotToken: z.string().meta({ description: 'Masked: the first and last characters only' }),
    telegramWebhookUrl: z.string(),
    emailNotifications: z.boolean(),
    maxFileSize: z.int().meta({ description: 'Bytes' }),
    maxFiles: z.int(),
    rateLimitWindowMs: z.int(),
    rateLimitMaxRequests: z.int(),
    idleAwayMinutes: z.int().meta({ description: 'Available staff with no activity for this long are set Away; 0 never' }),
    offlineGraceSeconds: z.int().meta({ description: "An Offline agent's tickets of automatic teams go back to the team after this long; 0 never" }),
    corsOrigins: z.array(z.string()),
    maintenanceMode: z.boolean(),
    systemName: z.string(),
    supportEmail: z.string(),
    mailboxHost: z.string(),
    mailboxPort: z.int(),
    mailboxTls: z.boolean(),
    mailboxUser: z.string(),
    mailboxPassword: z.string().meta({ description: 'Write-only: `********` when a password is stored, else empty' }),
    mailboxFolder: z.string(),
    mailboxAfterFetch: z.enum(MAILBOX_AFTER_FETCH),
    mailboxMoveTo: z.string(),
    mailboxUnknownSenders: z.enum(UNKNOWN_SENDERS),
    mailboxCategory: z.string().meta({ description: 'The category of tickets opened by mail; empty: the first active category' }),
    updatedAt: time.nullable(),
    updatedBy: id.nullable(),
  })
  .meta({ id: 'SystemSettings' });

export const PublicSettings = z
  .strictObject({ settings: SystemSettings.pick({ systemName: true, supportEmail: true, maintenanceMode: true, maxFileSize: true, maxFiles: true }) })
  .meta({ id: 'PublicSettings' });

/**
 * A new desk's setup, as its admin's first screen lists it (docs/settings.md): each count ticks a step
 * once it is above zero; `tickets` says whether customers have found the desk yet.
 */
export const SetupStatus = z
  .strictObject({
    setup: z.strictObject({
      categories: z.number().int().nonnegative(),
      agents: z.number().int().nonnegative(),
      telegramBot: z.boolean(),
      servicePolicies: z.number().int().nonnegative(),
      supportEmail: z.boolean(),
      tickets: z.number().int().nonnegative(),
    }),
  })
  .meta({ id: 'SetupStatus' });

/** GET /api/tickets/:id/mail (docs/email.md): the mails of an e-mail ticket, for staff. */
export const TicketMails = z
  .strictObject({
    mails: z.array(
      z.strictObject({
        key: z.string(),
        messageId: z.string().nullable(),
        from: z.string(),
        subject: z.string(),
        warning: z.string().nullable(),
        original: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'TicketMails' });

export const BotSettings = z
  .strictObject({ messages: z.record(z.enum(BOT_MESSAGE_KEYS), z.string()), lastSyncedAt: time.nullable(), updatedAt: time.nullable() })
  .meta({ id: 'BotSettings' });

export type ErrorBody = z.infer<typeof ErrorBody>;
export type Pagination = z.infer<typeof Pagination>;
export type User = z.infer<typeof User>;
type Attachment = z.infer<typeof Attachment>;
export type Ticket = z.infer<typeof Ticket>;
export type TicketListItem = z.infer<typeof TicketListItem>;
export type Message = z.infer<typeof Message>;
export type TicketList = z.infer<typeof TicketList>;
export type TicketDetail = z.infer<typeof TicketDetail>;
export type TicketStats = z.infer<typeof TicketStats>;
export type Health = z.infer<typeof Health>;
export type PublicHealth = z.infer<typeof PublicHealth>;
export type Category = z.infer<typeof Category>;
export type Team = z.infer<typeof Team>;
export type CannedMessage = z.infer<typeof CannedMessage>;
export type Macro = z.infer<typeof Macro>;
export type Rule = z.infer<typeof Rule>;
export type RuleFirings = z.infer<typeof RuleFirings>;
export type RuleDryRun = z.infer<typeof RuleDryRun>;
export type MacroPreview = z.infer<typeof MacroPreview>;
export type Delivery = z.infer<typeof Delivery>;
export type UserStats = z.infer<typeof UserStats>;
export type PublicSettings = z.infer<typeof PublicSettings>;
export type SetupStatus = z.infer<typeof SetupStatus>['setup'];
export type WhitelistEntry = z.infer<typeof WhitelistEntry>;
export type AccessRequest = z.infer<typeof AccessRequest>;
export type BotCommand = z.infer<typeof BotCommand>;
export type SystemSettings = z.infer<typeof SystemSettings>;
export type BotSettings = z.infer<typeof BotSettings>;
export type TicketMail = z.infer<typeof TicketMails>['mails'][number];

/** A link of a hash chain that does not hold (docs/audit.md). */
export const ChainBreak = z
  .strictObject({
    chain: z.enum(['stream', 'log']),
    streamId: z.string(),
    revision: z.int(),
    position: z.number(),
    eventId: z.string(),
    type: z.string(),
    reason: z.string(),
    expected: z.string(),
    stored: z.string().nullable(),
  })
  .meta({ id: 'ChainBreak' });

export const HistoryEntry = z
  .strictObject({
    revision: z.int(),
    position: z.number(),
    eventId: z.string(),
    type: z.string(),
    at: time,
    actor: z
      .strictObject({
        userId: z.string(),
        username: z.string(),
        name: z.string(),
        role: z.string(),
        platform: z.string(),
        /** The API token the user acted through (its label; the user is the token's owner). */
        token: z.strictObject({ id: z.string(), label: z.string() }).optional(),
      })
      .nullable(),
    summary: z.string(),
    macro: z
      .strictObject({ id: z.string(), name: z.string(), version: z.int() })
      .optional()
      .meta({ description: 'The macro (as it stood) whose application made this event (docs/macros.md)' }),
    bulk: z
      .strictObject({ id: z.string(), count: z.int() })
      .optional()
      .meta({ description: 'The bulk change that made this event, and how many tickets it took (docs/bulk.md)' }),
    rule: z
      .strictObject({ id: z.string(), name: z.string(), version: z.int(), matched: z.array(z.string()), depth: z.int() })
      .optional()
      .meta({ description: 'The rule (as it stood) whose run made this event, what held and its depth in a chain of rules (docs/automation.md)' }),
    data: z.record(z.string(), z.unknown()),
    hash: z.string().nullable().meta({ description: "The event's stream-chain link" }),
  })
  .meta({ id: 'HistoryEntry' });

export const TicketHistory = z
  .strictObject({
    ticketId: id,
    number: z.int(),
    events: z.array(HistoryEntry),
    integrity: z
      .strictObject({ ok: z.boolean(), head: z.string().nullable(), firstBreak: ChainBreak.nullable() })
      .meta({ description: "The stream's chain recomputed now: ok, or the first link that does not hold" }),
  })
  .meta({ id: 'TicketHistory' });

/** One version of an edited message: when it was written (posted or edited). */
export const MessageVersion = z.strictObject({ content: z.string(), at: time }).meta({ id: 'MessageVersion' });

export type ChainBreak = z.infer<typeof ChainBreak>;
export type HistoryEntry = z.infer<typeof HistoryEntry>;
export type TicketHistory = z.infer<typeof TicketHistory>;
export type MessageVersion = z.infer<typeof MessageVersion>;

const BulkTicketResult = z
  .strictObject({
    _id: id,
    ticketId: z.int().nullable().meta({ description: 'The display number; null for an id no ticket has' }),
    outcome: z.enum(['applied', 'unchanged', 'failed']),
    status: z.int().optional().meta({ description: 'A failed ticket: the status the single-ticket route would have answered' }),
    code: z.string().optional().meta({ description: "A failed ticket: that route's error code" }),
    error: z.string().optional().meta({ description: "A failed ticket: that route's error message" }),
  })
  .meta({ id: 'BulkTicketResult' });

export const BulkChange = z
  .strictObject({
    _id: id,
    action: z.record(z.string(), z.unknown()).meta({ description: 'The action as sent' }),
    total: z.int(),
    applied: z.int(),
    unchanged: z.int(),
    failed: z.int(),
    tickets: z.array(BulkTicketResult).meta({ description: 'Each ticket in the order sent (or, for a filter, newest first)' }),
  })
  .meta({ id: 'BulkChange' });
export type BulkChange = z.infer<typeof BulkChange>;

/** A saved view of Live Tickets (docs/views.md); the ten default views have their key as id, `isDefault` and no owner or times. */
export const SavedView = z
  .strictObject({
    _id: id,
    name: z.string(),
    scope: z.enum(VIEW_SCOPES),
    teamId: z.string().nullable(),
    filters: z.partialRecord(z.enum(VIEW_FILTER_KEYS), z.string()).meta({ description: 'The filters of GET /tickets, as its query string has them' }),
    sort: z.enum(VIEW_SORTS),
    columns: z.array(z.enum(VIEW_COLUMNS)),
    isDefault: z.boolean(),
    ownerId: z.string().nullable(),
    createdAt: time.nullable(),
    updatedAt: time.nullable(),
  })
  .meta({ id: 'SavedView' });
export type SavedView = z.infer<typeof SavedView>;
