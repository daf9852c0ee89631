import { z } from 'zod';
import { PRIORITIES, TICKET_STATUSES, listTicketsQuery, tagSchema } from './tickets';

/** docs/bulk.md: how many tickets one bulk change takes, listed or matching a filter. */
export const BULK_MAX = 500;

const tagList = z.array(tagSchema).max(20, 'At most 20 tags at once').default([]);

const bulkActionSchema = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('assign'),
        agentId: z.string({ message: "agentId is required: a user id or 'me'" }).min(1, "agentId is required: a user id or 'me'"),
      })
      .strict(),
    z.object({ type: z.literal('unassign') }).strict(),
    z
      .object({
        type: z.literal('status'),
        status: z.enum(TICKET_STATUSES, { message: 'Status must be open, in_progress, pending_customer, resolved or closed' }),
      })
      .strict(),
    z.object({ type: z.literal('priority'), priority: z.enum(PRIORITIES, { message: 'Priority must be low, medium, high or urgent' }) }).strict(),
    z
      .object({
        type: z.literal('team'),
        teamId: z.string({ message: 'teamId must be a team id or null' }).min(1, 'teamId must be a team id or null').nullable(),
      })
      .strict(),
    z
      .object({ type: z.literal('tags'), add: tagList, remove: tagList })
      .strict()
      .refine((action) => action.add.length + action.remove.length > 0, { message: 'Name at least one tag to add or remove', path: ['add'] }),
    z
      .object({
        type: z.literal('macro'),
        macroId: z.string({ message: 'macroId is required' }).min(1, 'macroId is required'),
        version: z.int({ message: 'Version must be a whole number' }).min(1, 'Version must be a whole number').optional(),
      })
      .strict(),
  ],
  { message: 'action.type must be assign, unassign, status, priority, team, tags or macro' },
);
export type BulkAction = z.output<typeof bulkActionSchema>;

/** The filters of `GET /tickets`, as its query string has them: "all matching" the Live Tickets view. */
const bulkFilterSchema = listTicketsQuery.omit({ sort: true, page: true, limit: true }).strict();
export type BulkFilter = z.output<typeof bulkFilterSchema>;

export const bulkChangeSchema = z
  .object({
    tickets: z
      .array(z.string({ message: 'Each ticket is a ticket id' }).min(1, 'Each ticket is a ticket id'), { message: 'tickets must be a list of ticket ids' })
      .min(1, 'Choose at least one ticket')
      .max(BULK_MAX, `A bulk change takes at most ${BULK_MAX} tickets`)
      .refine((ids) => new Set(ids).size === ids.length, 'Each ticket may be listed once')
      .optional(),
    filter: bulkFilterSchema.optional(),
    action: bulkActionSchema,
  })
  .strict()
  .refine((body) => (body.tickets === undefined) !== (body.filter === undefined), { message: 'Send either tickets or filter', path: ['tickets'] });

/** How one ticket fared: `applied` (events recorded), `unchanged` (it already was so) or `failed` with the single route's error. */
export interface BulkTicketResult {
  _id: string;
  ticketId: number | null;
  outcome: 'applied' | 'unchanged' | 'failed';
  status?: number;
  code?: string;
  error?: string;
}
