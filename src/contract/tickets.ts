import { z } from 'zod';
import { multiLine, singleLine } from './text';
import { pageQuery, queryInt } from './paging';
import { ValidationError } from './errors';

export const TICKET_STATUSES = ['open', 'in_progress', 'pending_customer', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
/** docs/product.md section 4: the statuses that count as open for the sidebar, the counts and the one-open-ticket rule. */
export const OPEN_STATUSES: readonly TicketStatus[] = ['open', 'in_progress', 'pending_customer'];
export const isOpenStatus = (status: TicketStatus) => OPEN_STATUSES.includes(status);
/**
 * Why a status changed when nobody chose it (docs/tickets.md): `customer-replied`, the customer's message
 * brought a ticket waiting on them or resolved back to the desk. Absent when staff set the status.
 */
export type StatusChangeReason = 'customer-replied';
/** What every channel tells a customer who writes on a closed ticket (403 `TICKET_CLOSED`). */
export const TICKET_CLOSED_MESSAGE = 'This ticket is closed; please open a new ticket to continue';

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export type Platform = 'web' | 'telegram' | 'email';

/** A stored upload as events record it; the file itself lives under DATA_DIR/uploads/<fileId>. */
export interface Attachment {
  fileId: string;
  mimeType: string;
  originalName: string;
  size: number;
}

export interface CustomFieldValue {
  fieldName: string;
  fieldPrompt: string;
  value: string | number | Attachment;
}

/** docs/product.md section 9: a sender may edit their own text message for this long. */
export const EDIT_WINDOW_MS = 5 * 60 * 1000;
export const MESSAGE_MAX = 2000;

/** The refusal of a file over the desk's size limit: the server's for web uploads and Telegram files, and the chat box's as a file is chosen. */
export const fileTooLargeText = (maxBytes: number) => `File too large: each file can be at most ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB`;

/** The refusal of more files than the desk takes on one message, on the server and in the chat box. */
export const tooManyFilesText = (maxFiles: number) => `Too many files: at most ${maxFiles} per message`;
export const OUTCOME_MAX = 1000;
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 2000;

/** docs/tickets.md, merging: an agent merges the tickets of one customer only; the server's 403 and the web app's hint say this. */
export const DIFFERENT_CUSTOMERS_MESSAGE = 'Only an admin can merge tickets of different customers';

/** What every channel (Telegram, e-mail, the browser) tells a customer whose ticket was merged into another. */
export const mergedText = (sourceNumber: number, targetNumber: number) =>
  `Your ticket #${sourceNumber} was merged into ticket #${targetNumber}, where the conversation continues.`;

/** What the browser tells a customer whose messages an agent moved to a new ticket (a split). */
export const movedText = (sourceNumber: number, newNumber: number) =>
  `Your messages in ticket #${sourceNumber} were moved to the new ticket #${newNumber}, where the conversation continues.`;

/** docs/product.md section 4: priority sort weights; statuses in the order a workflow passes them. */
export const PRIORITY_WEIGHT: Record<Priority, number> = { urgent: 4, high: 3, medium: 2, low: 1 };
export const STATUS_RANK: Record<TicketStatus, number> = { open: 0, in_progress: 1, pending_customer: 2, resolved: 3, closed: 4 };

/** docs/product.md section 4's wordings for statuses, as people read them in notices, messages and mails. */
export const STATUS_WORDS: Record<TicketStatus, string> = {
  open: 'open',
  in_progress: 'in progress',
  pending_customer: 'waiting for customer response',
  resolved: 'resolved',
  closed: 'closed',
};

/**
 * Input rules of docs/product.md section 5 for tickets and messages; shared by the API and the web forms.
 * Multipart bodies carry every field as text, so booleans and the custom-field answers (JSON) are
 * accepted in their text form too.
 */

const fromJsonText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

const booleanish = z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean({ message: 'Must be true or false' }));

const answerValue = z.union([z.string().max(10_000), z.number()], { message: 'A custom field answer must be text or a number' });

/**
 * zod's record leaves out a `__proto__` key without a word; turned into the list shape, the answer
 * reaches the custom-field check, which names it as unknown (a category can no longer have such a
 * field; one saved before the rule still gets its answer).
 */
const keepingEveryKey = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, '__proto__')
    ? Object.entries(value).map(([fieldName, answer]: [string, unknown]) => ({ fieldName, value: answer }))
    : value;

/** Answers as a list of {fieldName, value} (the record shape) or as an object keyed by field name. */
const customFieldAnswers = z.preprocess(
  (value) => keepingEveryKey(fromJsonText(value)),
  z
    .union(
      [
        z.array(z.object({ fieldName: z.string().min(1), fieldPrompt: z.string().optional(), value: answerValue }).strict()).max(50),
        z.record(z.string().min(1), answerValue),
      ],
      { message: 'customFieldValues must be a list of {fieldName, value} or an object of answers' },
    )
    .transform((answers) => (Array.isArray(answers) ? Object.fromEntries(answers.map(({ fieldName, value }) => [fieldName, value])) : answers)),
);

export const createTicketSchema = z
  .object({
    title: singleLine(z.string({ message: 'Title is required' }).trim(), 'Title')
      .min(1, 'Title is required')
      .max(TITLE_MAX, `Title must be at most ${TITLE_MAX} characters`),
    description: multiLine(z.string({ message: 'Description is required' }).trim(), 'Description')
      .min(1, 'Description is required')
      .max(DESCRIPTION_MAX, `Description must be at most ${DESCRIPTION_MAX} characters`),
    category: z.string({ message: 'Category is required' }).trim().min(1, 'Category is required'),
    priority: z.enum(PRIORITIES, { message: 'Priority must be low, medium, high or urgent' }).default('medium'),
    customFieldValues: customFieldAnswers.default({}),
  })
  .strict();

export const updateTicketSchema = z
  .object({
    status: z.enum(TICKET_STATUSES, { message: 'Status must be open, in_progress, pending_customer, resolved or closed' }).optional(),
    assignedAgent: z.string().min(1, 'assignedAgent must be a user id or null').nullable().optional(),
    /** docs/teams.md: the team the ticket is with, or null for none. */
    team: z.string({ message: 'team must be a team id or null' }).min(1, 'team must be a team id or null').nullable().optional(),
    priority: z.enum(PRIORITIES, { message: 'Priority must be low, medium, high or urgent' }).optional(),
    category: z.string({ message: 'category must be a category id' }).trim().min(1, 'category must be a category id').optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Send at least one of status, assignedAgent, team, priority and category',
  });

/** docs/teams.md, tags: lowercase words staff put on tickets to find them again. */
export const TAGS_PER_TICKET = 20;
const TAG_RULE = 'A tag is 1 to 30 lowercase letters, digits, hyphens or underscores, starting with a letter or digit';
export const tagSchema = z
  .string({ message: 'tag is required' })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{0,29}$/, TAG_RULE);
export const ticketTagSchema = z.object({ tag: tagSchema }).strict();

/**
 * `tag:refund` in a Live Tickets search (docs/teams.md): the tags it names, each read as a tag is
 * (trimmed, lowercased, 400 with the tag rule otherwise), and the words left for the text search.
 */
export function tagTermsOf(q: string): { tags: string[]; words: string } {
  const named: string[] = [];
  const words = q
    .replace(/(^|\s)tag:(\S*)/gi, (_term, lead: string, tag: string) => {
      named.push(tag);
      return lead;
    })
    .replace(/\s+/g, ' ')
    .trim();
  const tags = named.map((tag) => {
    const parsed = tagSchema.safeParse(tag);
    if (!parsed.success) throw new ValidationError(TAG_RULE, [{ path: 'q', message: TAG_RULE }]);
    return parsed.data;
  });
  return { tags, words };
}
export const tagSuggestionsQuery = z
  .object({
    q: z.string().trim().toLowerCase().max(30, 'q must be at most 30 characters').default(''),
    /** Up to 200: the admin's Tags tab lists them all. */
    limit: queryInt('limit', { min: 1, max: 200 }).default(10),
  })
  .strict();

/** An admin's rename of a tag across the desk (docs/teams.md): `to` must not be in use. */
export const renameTagSchema = z.object({ to: tagSchema }).strict();
/** An admin's merge of a tag into another one in use. */
export const mergeTagSchema = z.object({ into: tagSchema }).strict();

export const assignTicketSchema = z.object({ agentId: z.string({ message: 'agentId is required' }).min(1, 'agentId is required') }).strict();

/** The ticket a merge continues in: its record id or display number (`1043` or `#1043`). */
export const mergeTicketSchema = z.object({ target: z.string({ message: 'target is required' }).trim().min(1, 'target is required') }).strict();

/** "Move to a new ticket": the message, whether the customer's later messages go with it, and the new ticket's title. */
export const splitTicketSchema = z
  .object({
    messageId: z.string({ message: 'messageId is required' }).min(1, 'messageId is required'),
    withFollowing: z.boolean({ message: 'withFollowing must be true or false' }).default(false),
    title: z.string({ message: 'Title is required' }).trim().min(1, 'Title is required').max(TITLE_MAX, `Title must be at most ${TITLE_MAX} characters`),
  })
  .strict();

export const outcomeSchema = z
  .object({
    outcomeMessage: multiLine(z.string({ message: 'Outcome is required' }).trim(), 'Outcome')
      .min(1, 'Outcome is required')
      .max(OUTCOME_MAX, `Outcome must be at most ${OUTCOME_MAX} characters`),
  })
  .strict();

export const postMessageSchema = z
  .object({
    content: multiLine(z.string(), 'Message').max(MESSAGE_MAX, `Message must be at most ${MESSAGE_MAX} characters`).default(''),
    /** Derived on the server from what was sent; accepted so the web form can send it. */
    messageType: z.enum(['text', 'file'], { message: 'messageType must be text or file' }).optional(),
    isInternal: booleanish.default(false),
  })
  .strict();

export const editMessageSchema = z
  .object({
    content: multiLine(z.string({ message: 'Message text is required' }), 'Message')
      .max(MESSAGE_MAX, `Message must be at most ${MESSAGE_MAX} characters`)
      .refine((text) => text.trim().length > 0, 'Message text is required'),
  })
  .strict();

export const commaList = <T extends string>(values: readonly [T, ...T[]], label: string) =>
  z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values, { message: `${label} must be one of ${values.join(', ')}` })));

/** Live Tickets' satisfaction filters (docs/satisfaction.md): waiting for a rating, rated, rated 1 or 2. */
const SATISFACTION_FILTERS = ['awaiting', 'rated', 'low'] as const;
export type SatisfactionFilter = (typeof SATISFACTION_FILTERS)[number];

/** Strict: a misspelt filter (`stauts`) or an array (`status[]=`) is refused, not ignored into the whole list. */
export const listTicketsQuery = z
  .object({
    status: commaList(TICKET_STATUSES, 'Status').optional(),
    priority: commaList(PRIORITIES, 'Priority').optional(),
    assigned: z.enum(['me', 'unassigned', 'assigned'], { message: 'assigned must be me, unassigned or assigned' }).optional(),
    /** true: only tickets whose customer waits for the desk; false: only those that do not. */
    waiting: z
      .enum(['true', 'false'], { message: 'waiting must be true or false' })
      .transform((value) => value === 'true')
      .optional(),
    category: z.string().min(1).optional(),
    /** docs/teams.md: tickets with this tag (staff). */
    tag: tagSchema.optional(),
    /** docs/teams.md: one team's tickets, or `mine`, those of every team the caller is in (staff). */
    team: z.string().min(1, 'team must be a team id or mine').optional(),
    customer: z.string().min(1).optional(),
    q: z.string().trim().max(200, 'Search text must be at most 200 characters').optional(),
    satisfaction: z.enum(SATISFACTION_FILTERS, { message: 'satisfaction must be awaiting, rated or low' }).optional(),
    /** docs/sla.md: a target breached now, or one due within the hour. */
    sla: z.enum(['breached', 'due_soon'], { message: 'sla must be breached or due_soon' }).optional(),
    sort: z
      .enum(['latest', 'oldest', 'priority', 'status', 'updated', 'waiting', 'due'], {
        message: 'sort must be latest, oldest, priority, status, updated, waiting or due',
      })
      .default('latest'),
    ...pageQuery(20),
  })
  .strict();

/** `GET /tickets/export.csv`: the list's filters, no paging (docs/teams.md). */
export const exportTicketsQuery = listTicketsQuery.omit({ sort: true, page: true, limit: true });

/** `?tickets=a,b,c`: the tickets of one list page, for a column that comes from another read model. */
export const ticketIdsQuery = z
  .object({
    tickets: z
      .string({ message: 'tickets must be a comma-separated list of ticket ids' })
      .transform((text) => [...new Set(text.split(',').filter((id) => id !== ''))])
      .refine((ids) => ids.length <= 200, 'At most 200 tickets at once'),
  })
  .strict();

export const listMessagesQuery = z.object(pageQuery(100)).strict();

/** `GET /tickets/:id/at`: a moment of the ticket's history, by stream revision or by time. */
export const momentQuery = z
  .object({
    revision: queryInt('revision', { min: 0, max: Number.MAX_SAFE_INTEGER }).optional(),
    time: z.iso.datetime({ offset: true, message: 'time must be an ISO-8601 date and time, for example 2026-11-21T09:30:00Z' }).optional(),
  })
  .strict()
  .refine((query) => query.revision !== undefined || query.time !== undefined, { message: 'Give revision or time: the moment of the history to show' })
  .refine((query) => query.revision === undefined || query.time === undefined, { message: 'Give either revision or time, not both' });

export const statsQuery = z.object({
  /** The caller's IANA time zone, so "today" starts at their local midnight (docs/product.md section 9). */
  tz: z
    .string()
    .max(64)
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, 'tz must be an IANA time zone such as Europe/Berlin')
    .optional(),
});

export type CreateTicketInput = z.output<typeof createTicketSchema>;
