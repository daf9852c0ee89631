import { z } from 'zod';
import * as schema from '#contract/tickets';
import { BULK_MAX, bulkChangeSchema } from '#contract/bulk';
import type { ApiRegistry } from '../openapi/registry';
import { BulkChange, Message, MessagePage, Ticket, TicketDetail, TicketList, TicketHistory, TicketMails, TicketStats, anyObject } from '#contract/responses';
import { scope, scopeWithNotes } from '../http/scopes';

const staff = ['agent', 'admin'] as const;
const ticketAnswer = z.strictObject({ ticket: Ticket });
const messageAnswer = z.strictObject({ message: Message });

export function describeTickets(docs: ApiRegistry): void {
  docs.route({
    method: 'get',
    path: '/tickets/stats',
    token: scope('tickets:read'),
    summary: 'Dashboard statistics',
    access: [...staff],
    query: schema.statsQuery,
    responses: { 200: { description: 'Counts, averages (ms), per category, recent activity', schema: TicketStats } },
  });
  docs.route({
    method: 'get',
    path: '/tickets',
    token: scope('tickets:read'),
    summary: 'List tickets (a customer sees their own)',
    description:
      '`q` searches the words as GET /search does; a `tag:refund` term in it keeps the tickets with that tag (staff only, 403 for a customer; several must all be on the ticket), as `tag=refund` does (docs/teams.md).',
    access: 'signed-in',
    query: schema.listTicketsQuery,
    responses: { 200: { description: 'One page of tickets', schema: TicketList } },
  });
  docs.route({
    method: 'post',
    path: '/tickets/bulk',
    token: scope('tickets:write'),
    idempotent: true,
    summary: 'One action on many tickets: assign, unassign, status, priority, team, tags or a macro',
    description: `\`tickets\` (record ids, at most ${BULK_MAX}) or \`filter\` (the filters of GET /tickets, as its query string has them: all matching, at most ${BULK_MAX}, else 422 \`BULK_TOO_MANY\`). Each ticket is changed as its single-ticket route changes it, with its own events (their metadata names the bulk change); a ticket refused is listed with that route's status, code and message, and the others are applied. Each customer hears at most once per ticket. With an Idempotency-Key, a retried or doubled request applies once and answers the same results (docs/bulk.md).`,
    access: [...staff],
    body: bulkChangeSchema,
    responses: { 200: { description: 'How each ticket fared', schema: z.strictObject({ bulk: BulkChange }) } },
    errors: [409, 422],
  });
  docs.route({
    method: 'post',
    path: '/tickets',
    token: scope('tickets:write'),
    idempotent: true,
    summary: 'Open a ticket',
    description:
      'JSON, or multipart/form-data with files for the custom fields of type file. A customer with an open ticket gets 409 `OPEN_TICKET_EXISTS` with `existingTicket`.',
    access: 'signed-in',
    body: schema.createTicketSchema,
    multipart: true,
    responses: { 201: { description: 'The new ticket', schema: ticketAnswer } },
    errors: [409, 413],
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id',
    token: scope('tickets:read'),
    summary: 'A ticket with its latest messages',
    description: '`id` is the record id or the ticket number.',
    access: 'signed-in',
    responses: { 200: { description: 'The ticket, its latest 1000 messages, unread count', schema: TicketDetail } },
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/mail',
    token: scope('tickets:read'),
    summary: 'The mails of an e-mail ticket: sender, authenticity warning and the whole original ("show original")',
    access: [...staff],
    responses: {
      200: {
        description: '{ mails: [{ key, messageId, from, subject, warning, original }] } in the order they came',
        schema: TicketMails,
      },
    },
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/history',
    token: scopeWithNotes('tickets:read'),
    summary: 'Every event of the ticket (auditor view)',
    access: [...staff],
    responses: { 200: { description: 'The stream of the ticket, also after deletion', schema: TicketHistory } },
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/at',
    token: scopeWithNotes('tickets:read'),
    summary: 'The ticket as it was at a revision or a time',
    access: 'signed-in',
    query: schema.momentQuery,
    responses: {
      200: {
        description: 'The ticket and its messages then',
        schema: anyObject(
          '{ ticket, messages, satisfaction (the rating of the latest resolution then, or null) } and, for staff, revision, position, at, latestRevision, deleted, sla (the service levels then, docs/sla.md)',
        ),
      },
    },
  });
  docs.route({
    method: 'put',
    path: '/tickets/:id',
    token: scope('tickets:write'),
    summary: 'Change status, assignment, team, priority or category (a new priority or category chooses the SLA policy again)',
    access: [...staff],
    body: schema.updateTicketSchema,
    responses: { 200: { description: 'The ticket after the change', schema: ticketAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/assign',
    token: scope('tickets:write'),
    summary: 'Assign to an agent',
    access: [...staff],
    body: schema.assignTicketSchema,
    responses: { 200: { description: 'The ticket after the change', schema: ticketAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/merge',
    token: scope('tickets:write'),
    summary: 'Merge this ticket into another',
    description:
      'This ticket (the source) is closed with a redirect, and its conversation joins the target in time order, each message marked with `mergedFrom`. Tickets of one customer; an admin may merge across customers. A closed target is reopened unless its customer has another open ticket. Running the same merge again completes one that was interrupted. 409 `SHARED_MESSAGES` when the two hold the same message (moved on from one to the other by a split); 409 `MERGE_CONFLICT` when the target was merged into another ticket (this one included) or deleted at the same time: the merge is taken back and this ticket stands as it was.',
    access: [...staff],
    body: schema.mergeTicketSchema,
    responses: { 200: { description: 'The target after the merge', schema: ticketAnswer } },
    errors: [403, 409],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/unmerge',
    token: scope('tickets:write'),
    summary: 'Undo the merge of this ticket',
    description:
      'Within MERGE_UNDO_WINDOW_DAYS (7) of the merge: the merged messages leave the target (those written there since stay), and both tickets get back the status they had.',
    access: [...staff],
    responses: { 200: { description: 'This ticket, standing alone again', schema: ticketAnswer } },
    errors: [403, 409],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/split',
    token: scope('tickets:write'),
    summary: 'Move a message (and the customer’s later ones) to a new ticket',
    description:
      "The messages leave this ticket, which shows \"Moved to #N\" where they were and is resolved if it was open; the new ticket, of the same customer, category and priority, holds them. `messageId` is the message's record id, a copy a merge or a split brought (`<ticket>~<message>`) included. 409 when the customer has another open ticket, for another customer's message an admin's merge brought (`MERGED_MESSAGE`), or when the split would resolve an open ticket whose customer's words left there have no reply yet (`UNANSWERED_QUESTION`: answer them first, or move them too).",
    access: [...staff],
    body: schema.splitTicketSchema,
    responses: { 201: { description: 'The new ticket', schema: ticketAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/related',
    token: scope('tickets:write'),
    summary: 'Relate another ticket',
    description: 'Without merging: both tickets list each other in `related` (staff only). Relating twice changes nothing.',
    access: [...staff],
    body: schema.mergeTicketSchema,
    responses: { 200: { description: 'This ticket with its relations', schema: ticketAnswer } },
  });
  docs.route({
    method: 'delete',
    path: '/tickets/:id/related/:other',
    token: scope('tickets:write'),
    summary: 'Remove a relation',
    access: [...staff],
    responses: { 200: { description: 'This ticket with its relations', schema: ticketAnswer } },
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/tags',
    token: scope('tickets:write'),
    summary: 'Put a tag on the ticket (staff; the same tag again changes nothing)',
    access: [...staff],
    body: schema.ticketTagSchema,
    responses: { 200: { description: 'The ticket with its tags', schema: ticketAnswer } },
    // 422 TOO_MANY_TAGS: a ticket has at most 20 tags.
    errors: [409, 422],
  });
  docs.route({
    method: 'delete',
    path: '/tickets/:id/tags/:tag',
    token: scope('tickets:write'),
    summary: 'Take a tag off the ticket (staff; a tag it does not have is 404)',
    access: [...staff],
    responses: { 200: { description: 'The ticket with its tags', schema: ticketAnswer } },
    errors: [400, 409],
  });
  docs.route({
    method: 'get',
    path: '/tickets/export.csv',
    token: scope('tickets:read'),
    summary: 'The tickets of the list filters as CSV, newest first (staff; at most 10,000, else 422 EXPORT_TOO_LARGE)',
    description:
      'Columns: ticket, title, status, priority, category, customer, agent, team ("No team" for none), tags (space-separated), createdAt, updatedAt, resolvedAt. Every cell quoted, formula-looking text defused.',
    access: [...staff],
    query: schema.exportTicketsQuery,
    responses: { 200: { description: 'CSV, one line per ticket', schema: z.string(), contentType: 'text/csv' } },
    errors: [422],
  });
  docs.route({
    method: 'get',
    path: '/tags',
    token: scope('tickets:read'),
    summary: 'Tags in use that start with q, most used first (the tag field suggestions)',
    access: [...staff],
    query: schema.tagSuggestionsQuery,
    responses: { 200: { description: 'The suggestions', schema: z.strictObject({ tags: z.array(z.strictObject({ tag: z.string(), uses: z.int() })) }) } },
  });
  const tagChange = z.strictObject({
    change: z.strictObject({ from: z.string(), to: z.string(), merged: z.boolean(), tickets: z.int().meta({ description: 'Tickets whose tag changed' }) }),
  });
  docs.route({
    method: 'post',
    path: '/tags/:tag/rename',
    token: scope('admin'),
    summary:
      'Rename a tag on every ticket carrying it (admin): a TicketTagRenamed per ticket, the admin as actor; 404 for a tag not in use, 409 TAG_EXISTS when `to` is in use (merge instead)',
    access: ['admin'],
    body: schema.renameTagSchema,
    responses: { 200: { description: 'The change and how many tickets it reached', schema: tagChange } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/tags/:tag/merge',
    token: scope('admin'),
    summary:
      'Merge a tag into another one in use (admin): each ticket carrying it gets `into` in its place, once (a ticket that has both keeps one); 400 when `into` is not in use',
    access: ['admin'],
    body: schema.mergeTagSchema,
    responses: { 200: { description: 'The change and how many tickets it reached', schema: tagChange } },
  });
  docs.route({
    method: 'put',
    path: '/tickets/:id/outcome',
    token: scope('tickets:write'),
    summary: 'Record the outcome',
    access: [...staff],
    body: schema.outcomeSchema,
    responses: { 200: { description: 'The ticket after the change', schema: ticketAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/tickets/:id',
    token: scope('tickets:write'),
    summary: 'Delete a ticket',
    access: ['admin'],
    responses: { 204: { description: 'Deleted' } },
  });
  docs.route({
    method: 'get',
    path: '/tickets/:id/messages',
    token: scope('tickets:read'),
    summary: 'Page through the conversation, newest page first',
    access: 'signed-in',
    query: schema.listMessagesQuery,
    responses: { 200: { description: 'One page of messages, oldest first within it', schema: MessagePage } },
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/messages',
    token: scope('messages:write'),
    idempotent: true,
    summary: 'Post a message or an internal note',
    description:
      "JSON, or multipart/form-data with files in `attachments`. A customer's message on a ticket waiting for them (`pending_customer`) or `resolved` reopens it (`open`, recorded as a `TicketStatusChanged` with `reason: 'customer-replied'` and the customer as actor, before the message): a resolved ticket only while its customer has no other open ticket, else 409 `OPEN_TICKET_EXISTS` naming that ticket and nothing is posted. A customer's message on a closed ticket is 403 `TICKET_CLOSED` (open a new ticket instead).",
    access: 'signed-in',
    body: schema.postMessageSchema,
    multipart: true,
    responses: { 201: { description: 'The new message', schema: messageAnswer } },
    errors: [403, 409, 413],
  });
  docs.route({
    method: 'post',
    path: '/tickets/:id/messages/read',
    token: scope('tickets:write'),
    summary: 'Mark the conversation read',
    access: 'signed-in',
    responses: { 204: { description: 'Marked' } },
  });
  docs.route({
    method: 'put',
    path: '/messages/:id',
    token: scope('messages:write'),
    summary: 'Edit a message (within the edit window)',
    description: 'A copy a merge or a split brought keeps the words it had then: 409 `COPIED_MESSAGE`.',
    access: 'signed-in',
    body: schema.editMessageSchema,
    responses: { 200: { description: 'The edited message', schema: messageAnswer } },
    errors: [403, 409],
  });
  docs.route({
    method: 'get',
    path: '/uploads/:fileId',
    token: scope('tickets:read'),
    summary: 'Download an attachment',
    access: 'signed-in',
    responses: {
      200: { description: 'The file, with its type and name', schema: z.string().meta({ format: 'binary' }), contentType: 'application/octet-stream' },
    },
  });
}
