import type { Request, Response, Router } from 'express';
import { create as contentDisposition } from 'content-disposition';
import { NotFoundError } from '#contract/errors';
import { ticketStream } from '../../domain/ticket/ticket';
import { isStaff } from '#contract/users';
import {
  assignTicketSchema,
  createTicketSchema,
  editMessageSchema,
  listMessagesQuery,
  listTicketsQuery,
  mergeTicketSchema,
  splitTicketSchema,
  momentQuery,
  outcomeSchema,
  postMessageSchema,
  statsQuery,
  tagSuggestionsQuery,
  exportTicketsQuery,
  renameTagSchema,
  mergeTagSchema,
  ticketTagSchema,
  updateTicketSchema,
} from '#contract/tickets';
import { BULK_MAX, type BulkFilter, bulkChangeSchema } from '#contract/bulk';
import { UnprocessableError } from '#contract/errors';
import { type Filter, type Sort } from '../../platform/readstore/port';
import { bulkChange, bulkResult, bulkStarted } from '../../app/bulk/service';
import { listFilter } from './listFilter';
import {
  type MessageView,
  type ReadMarkView,
  TICKETS,
  TICKET_MESSAGES,
  TICKET_READS,
  type TicketView,
  UPLOADS,
  type UploadView,
  streamMessageId,
} from '../../projections/tickets';
import type { AppDeps } from '../../app/deps';
import { ticketMails } from '../../app/email/records';
import { activityLines, withActivity } from '../../app/tickets/activity';
import { type AuthUser, commandContext, currentUser, requireRole } from '../http/auth';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import {
  assignTicket,
  changeClassification,
  changeStatus,
  changeTeam,
  customFieldOfFile,
  deleteTicket,
  editMessage,
  markMessagesRead,
  openTicket,
  postMessage,
  projectedTicket,
  recordOutcome,
  storedMessage,
  tagTicket,
  unassignTicket,
} from '../../app/tickets/service';
import { createdIn, idOfKey, once } from '../../app/idempotency';
import { idempotencyKeyOf } from '../http/idempotency';
import { ticketAt, ticketHistory } from '../../projections/history';
import { ticketIdsByDue } from '../../projections/sla';
import { tagSuggestions } from '../../projections/tags';
import { renameTag } from '../../app/tags/service';
import { ticketsCsv } from '../../app/tickets/export';
import { ticketStatistics } from './stats';
import { FILE_ID, type ReceivedFile, discardFiles, uploadsDir } from '../../app/tickets/files';
import { receiveMultipart } from './uploads';
import { mergeTickets, relateTickets, splitTicket, unmergeTicket } from '../../app/tickets/merge';
import { findVisibleMessage, findVisibleTicket, isDisplayNumber, messageFor, seesNotes, ticketFor, visibleMessages } from './views';
import { scope, scopeWithNotes } from '../http/scopes';

const SORTS: Record<string, Sort> = {
  latest: { createdAt: -1, ticketId: -1 },
  oldest: { createdAt: 1, ticketId: 1 },
  priority: { priorityWeight: -1, createdAt: -1 },
  status: { statusRank: 1, createdAt: -1 },
  updated: { updatedAt: -1, ticketId: -1 },
  /** Waiting longest first; tickets nobody waits on after them, newest first. */
  waiting: { waitingRank: 1, createdAt: -1 },
};
/** A customer's "updated" order follows the updatedAt they see, so a staff-only change cannot reorder their list. */
const CUSTOMER_SORTS: Record<string, Sort> = { ...SORTS, updated: { publicUpdatedAt: -1, ticketId: -1 } };
/** The detail view carries the latest messages; older ones are paged through /messages. */
const DETAIL_MESSAGES = 1000;

const isMultipart = (req: Request) => req.is('multipart/form-data') === 'multipart/form-data';
const isMessageFileField = (name: string) => name === 'attachments' || name === 'attachments[]' || name === 'files';

/** Runs `work` with the files of a multipart request, removing them again if it fails. */
async function withUploads<T>(
  deps: AppDeps,
  req: Request,
  res: Response,
  acceptField: (name: string) => boolean,
  work: (files: ReceivedFile[]) => Promise<T>,
): Promise<T> {
  const files = isMultipart(req) ? await receiveMultipart(deps, req, res, acceptField) : [];
  try {
    return await work(files);
  } catch (error) {
    await discardFiles(deps, files);
    throw error;
  }
}

async function unreadCount(deps: AppDeps, ticket: TicketView, user: AuthUser): Promise<number> {
  const mark = await deps.readStore.collection<ReadMarkView>(TICKET_READS).findOne({ _id: `${ticket._id}:${user.id}` });
  return deps.readStore
    .collection<MessageView>(TICKET_MESSAGES)
    .count({ ticket: ticket._id, seq: { $gt: mark?.upTo ?? 0 }, 'sender._id': { $ne: user.id }, ...visibleMessages(user) });
}

/**
 * The unread counts of a page of tickets: the reader's marks in one read, then one grouped count of
 * the messages past them, asked only for the tickets that have any (a read or quiet ticket costs
 * nothing). Tickets read up to the same mark (most often none) share one branch of the count.
 */
async function unreadCounts(deps: AppDeps, tickets: TicketView[], user: AuthUser): Promise<number[]> {
  if (tickets.length === 0) return [];
  const marks = await deps.readStore
    .collection<ReadMarkView>(TICKET_READS)
    .find({ _id: { $in: tickets.map((ticket) => `${ticket._id}:${user.id}`) } }, { limit: tickets.length });
  const upTo = new Map(marks.map((mark) => [mark.ticket, mark.upTo]));
  const byMark = new Map<number, string[]>();
  for (const ticket of tickets) {
    const mark = upTo.get(ticket._id) ?? 0;
    if (ticket.lastSeq <= mark) continue;
    const ids = byMark.get(mark);
    if (ids) ids.push(ticket._id);
    else byMark.set(mark, [ticket._id]);
  }
  if (byMark.size === 0) return tickets.map(() => 0);
  const counted = await deps.readStore.collection<MessageView>(TICKET_MESSAGES).aggregate<{ _id: string; unread: number }>([
    {
      $match: {
        // Messages are numbered from 1: past no mark is all of them.
        $or: [...byMark].map(([mark, ids]) => (mark === 0 ? { ticket: { $in: ids } } : { ticket: { $in: ids }, seq: { $gt: mark } })),
        'sender._id': { $ne: user.id },
        ...visibleMessages(user),
      },
    },
    { $group: { _id: '$ticket', unread: { $sum: 1 } } },
  ]);
  const unread = new Map(counted.map((row) => [row._id, row.unread]));
  return tickets.map((ticket) => unread.get(ticket._id) ?? 0);
}

async function latestMessages(deps: AppDeps, ticket: TicketView, user: AuthUser, page: number, limit: number) {
  const messages = deps.readStore.collection<MessageView>(TICKET_MESSAGES);
  const filter = { ticket: ticket._id, ...visibleMessages(user) };
  const [found, total] = await Promise.all([messages.find(filter, { sort: { seq: -1 }, skip: (page - 1) * limit, limit }), messages.count(filter)]);
  return { messages: found.reverse().map(messageFor), pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
}

/**
 * Live Tickets' "due" order (docs/sla.md): tickets with a running SLA target, earliest due first,
 * then the others, newest first. The due times live in the SLA read model, so its order is joined here.
 */
async function dueFirstPage(deps: AppDeps, filter: Filter, { page, limit }: { page: number; limit: number }) {
  const tickets = deps.readStore.collection<TicketView>(TICKETS);
  const order = await ticketIdsByDue(deps.readStore);
  const rank = new Map(order.map((id, index) => [id, index]));
  const [withDue, total] = await Promise.all([tickets.find({ $and: [filter, { _id: { $in: order } }] }), tickets.count(filter)]);
  withDue.sort((a, b) => rank.get(a._id)! - rank.get(b._id)!);
  const skip = (page - 1) * limit;
  const items = withDue.slice(skip, skip + limit);
  if (items.length < limit)
    items.push(
      ...(await tickets.find(
        { $and: [filter, { _id: { $nin: order } }] },
        { sort: SORTS.latest!, skip: Math.max(0, skip - withDue.length), limit: limit - items.length },
      )),
    );
  return { items, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
}

export const ticketRoutes = (deps: AppDeps) => (router: Router) => {
  const tickets = () => deps.readStore.collection<TicketView>(TICKETS);
  const visible = (req: Request) => findVisibleTicket(deps.readStore, req.params.id as string, currentUser(req));
  /**
   * The record id a command goes to. The command's decider is what checks that the caller may see the
   * ticket (a 404 "Ticket not found" as the read model would give), so the read model is asked only to
   * turn a display number into the id, and before receiving files (none is stored for a ticket the
   * caller cannot see).
   */
  const commandTarget = async (req: Request) => {
    const key = req.params.id as string;
    return isDisplayNumber(key) || isMultipart(req) ? (await visible(req))._id : key;
  };
  const answerTicket = async (req: Request, res: Response, ticketId: string, position: number, status = 200) =>
    res.status(status).json({ ticket: ticketFor(await projectedTicket(deps, ticketId, position), currentUser(req)) });

  router.get('/tickets/stats', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const { tz } = parse(statsQuery, req.query);
    res.json(await ticketStatistics(deps.readStore, deps.clock(), tz));
  });

  router.get('/tickets/export.csv', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const query = parse(exportTicketsQuery, req.query);
    const csv = await ticketsCsv(deps.readStore, await listFilter(deps, query, currentUser(req)));
    res.type('text/csv').attachment(`tickets-${deps.clock().toISOString().slice(0, 10)}.csv`);
    res.send(csv);
  });

  router.get('/tickets', scope('tickets:read'), requireRole(), async (req, res) => {
    const query = parse(listTicketsQuery, req.query);
    const user = currentUser(req);
    const filter = await listFilter(deps, query, user);
    const { items, pagination } =
      query.sort === 'due'
        ? await dueFirstPage(deps, filter, query)
        : await findPage(tickets(), filter, (isStaff(user.role) ? SORTS : CUSTOMER_SORTS)[query.sort]!, query);
    const unread = await unreadCounts(deps, items, user);
    // Each item is ticketFor's own new object: the count is set on it, not spread into another copy.
    res.json({ tickets: items.map((ticket, index) => Object.assign(ticketFor(ticket, user), { unreadCount: unread[index]! })), pagination });
  });

  /**
   * One action on many tickets (docs/bulk.md): listed, or all that match the list's filters (at most BULK_MAX). Answers
   * how each ticket fared; with an Idempotency-Key a retried or doubled request applies once.
   */
  router.post('/tickets/bulk', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const input = parse(bulkChangeSchema, req.body);
    const key = idempotencyKeyOf(req, input);
    const context = commandContext(deps, req);
    const bulkId = key ? idOfKey(key, 'bulk') : deps.newId();
    const bulk = await once(deps, key, context, {
      create: async () => bulkChange(deps, input.tickets ?? (await matchingTickets(input.filter!)), input.action, context, bulkId),
      idOf: (changed) => changed._id,
      answer: (changedId) => bulkResult(deps, changedId, context),
      earlier: () => (key ? bulkStarted(deps, bulkId) : Promise.resolve(null)),
    });
    res.json({ bulk });

    async function matchingTickets(query: BulkFilter): Promise<string[]> {
      const filter = await listFilter(deps, query, currentUser(req));
      const found = await tickets().find(filter, { sort: SORTS.latest!, limit: BULK_MAX + 1 });
      if (found.length === 0) throw new UnprocessableError('No tickets match these filters', 'BULK_NO_TICKETS');
      if (found.length > BULK_MAX)
        throw new UnprocessableError(
          `${await tickets().count(filter)} tickets match; a bulk change takes at most ${BULK_MAX}: narrow the filters`,
          'BULK_TOO_MANY',
        );
      return found.map((ticket) => ticket._id);
    }
  });

  router.post('/tickets', scope('tickets:write'), requireRole(), async (req, res) => {
    await withUploads(
      deps,
      req,
      res,
      (name) => customFieldOfFile(name) !== null,
      async (files) => {
        const input = parse(createTicketSchema, req.body);
        const key = idempotencyKeyOf(req, input, files);
        const ticketId = key ? idOfKey(key, 'ticket') : undefined;
        const ticket = await once(deps, key, commandContext(deps, req), {
          create: () => openTicket(deps, { ...input, files, platform: 'web', ...(ticketId ? { ticketId } : {}) }, commandContext(deps, req)),
          idOf: (created) => created._id,
          answer: (createdId) => projectedTicket(deps, createdId, 0),
          earlier: () => createdIn(deps, ticketStream(ticketId!), ticketId!),
        });
        res.status(201).json({ ticket: ticketFor(ticket, currentUser(req)) });
      },
    );
  });

  router.get('/tickets/:id', scope('tickets:read'), requireRole(), async (req, res) => {
    const user = currentUser(req);
    const ticket = await visible(req);
    const [{ messages, pagination }, unread] = await Promise.all([latestMessages(deps, ticket, user, 1, DETAIL_MESSAGES), unreadCount(deps, ticket, user)]);
    // Status and assignment changes join the conversation as system lines (issue 25), back to the oldest message shown.
    const lines = await activityLines(deps, ticket._id, pagination.pages > 1 ? (messages[0]?.createdAt ?? null) : null, user.role);
    res.json({ ticket: ticketFor(ticket, user), messages: withActivity(messages, lines), unreadCount: unread });
  });

  /** The mails of an e-mail ticket (docs/email.md): who sent each, the authenticity warning, and the whole original (staff). */
  router.get('/tickets/:id/mail', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const ticket = await visible(req);
    res.json({ mails: await ticketMails(deps, ticket._id) });
  });

  /** The auditor's view: every event of the ticket's stream, also after deletion (staff). */
  router.get('/tickets/:id/history', scopeWithNotes('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    res.json(await ticketHistory(deps.events, req.params.id as string));
  });

  /**
   * The ticket and its conversation as they were at a revision or a time. A customer may look back
   * at their own ticket: without internal notes, the outcome, or where the moment sits in the stream.
   */
  router.get('/tickets/:id/at', scopeWithNotes('tickets:read'), requireRole(), async (req, res) => {
    const query = parse(momentQuery, req.query);
    const user = currentUser(req);
    const moment = query.revision !== undefined ? { revision: query.revision } : { time: query.time! };
    const found = await ticketAt(deps.events, req.params.id as string, moment, user);
    const ticket = ticketFor(found.ticket, user);
    const messages = found.messages.map(({ versions, ...message }) => ({ ...messageFor(message), ...(versions ? { versions } : {}) }));
    if (!isStaff(user.role)) return res.json({ ticket, messages, satisfaction: found.satisfaction });
    res.json({
      revision: found.revision,
      position: found.position,
      at: found.at,
      latestRevision: found.latestRevision,
      deleted: found.deleted,
      ticket,
      messages,
      satisfaction: found.satisfaction,
      sla: found.sla,
    });
  });

  router.put('/tickets/:id', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { status, assignedAgent, team, priority, category } = parse(updateTicketSchema, req.body);
    const ticket = await visible(req);
    const context = commandContext(deps, req);
    let position = 0;
    // The assignment first, so an explicit status in the same call has the last word.
    if (assignedAgent === null) position = await unassignTicket(deps, ticket._id, context);
    else if (assignedAgent !== undefined) position = await assignTicket(deps, ticket._id, assignedAgent, context);
    if (team !== undefined) position = Math.max(position, await changeTeam(deps, ticket._id, team, context));
    if (category !== undefined) position = Math.max(position, await changeClassification(deps, ticket._id, { category }, context));
    if (priority !== undefined) position = Math.max(position, await changeClassification(deps, ticket._id, { priority }, context));
    if (status !== undefined) position = Math.max(position, await changeStatus(deps, ticket._id, status, context));
    await answerTicket(req, res, ticket._id, position);
  });

  router.post('/tickets/:id/assign', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { agentId } = parse(assignTicketSchema, req.body);
    const ticket = await visible(req);
    await answerTicket(req, res, ticket._id, await assignTicket(deps, ticket._id, agentId, commandContext(deps, req)));
  });

  router.post('/tickets/:id/merge', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { target } = parse(mergeTicketSchema, req.body);
    const user = currentUser(req);
    const [source, into] = await Promise.all([visible(req), findVisibleTicket(deps.readStore, target, user)]);
    await answerTicket(req, res, into._id, await mergeTickets(deps, source._id, into._id, commandContext(deps, req)));
  });

  router.post('/tickets/:id/unmerge', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const ticket = await visible(req);
    await answerTicket(req, res, ticket._id, await unmergeTicket(deps, ticket._id, commandContext(deps, req)));
  });

  router.post('/tickets/:id/split', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const asked = parse(splitTicketSchema, req.body);
    const ticket = await visible(req);
    // A copy a merge or a split brought is asked for by its record id; the ticket's stream knows it by the message's own.
    const request = { ...asked, messageId: streamMessageId(ticket._id, asked.messageId) };
    const { newTicketId, position } = await splitTicket(deps, ticket._id, request, commandContext(deps, req));
    await answerTicket(req, res, newTicketId, position, 201);
  });

  router.post('/tickets/:id/related', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { target } = parse(mergeTicketSchema, req.body);
    const [ticket, other] = await Promise.all([visible(req), findVisibleTicket(deps.readStore, target, currentUser(req))]);
    await answerTicket(req, res, ticket._id, await relateTickets(deps, ticket._id, other._id, true, commandContext(deps, req)));
  });

  router.delete('/tickets/:id/related/:other', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const [ticket, other] = await Promise.all([visible(req), findVisibleTicket(deps.readStore, req.params.other as string, currentUser(req))]);
    await answerTicket(req, res, ticket._id, await relateTickets(deps, ticket._id, other._id, false, commandContext(deps, req)));
  });

  router.post('/tickets/:id/tags', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { tag } = parse(ticketTagSchema, req.body);
    const ticket = await visible(req);
    await answerTicket(req, res, ticket._id, await tagTicket(deps, ticket._id, tag, true, commandContext(deps, req)));
  });

  router.delete('/tickets/:id/tags/:tag', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { tag } = parse(ticketTagSchema, { tag: req.params.tag });
    const ticket = await visible(req);
    await answerTicket(req, res, ticket._id, await tagTicket(deps, ticket._id, tag, false, commandContext(deps, req)));
  });

  /** Suggestions for the tag field: tags in use that start with `q`, most used first. */
  router.get('/tags', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const { q, limit } = parse(tagSuggestionsQuery, req.query);
    res.json({ tags: await tagSuggestions(deps.readStore, q, limit) });
  });

  router.post('/tags/:tag/rename', scope('admin'), requireRole('admin'), async (req, res) => {
    const { tag } = parse(ticketTagSchema, { tag: req.params.tag });
    const { to } = parse(renameTagSchema, req.body);
    res.json({ change: await renameTag(deps, tag, to, false, commandContext(deps, req)) });
  });

  router.post('/tags/:tag/merge', scope('admin'), requireRole('admin'), async (req, res) => {
    const { tag } = parse(ticketTagSchema, { tag: req.params.tag });
    const { into } = parse(mergeTagSchema, req.body);
    res.json({ change: await renameTag(deps, tag, into, true, commandContext(deps, req)) });
  });

  router.put('/tickets/:id/outcome', scope('tickets:write'), requireRole('agent', 'admin'), async (req, res) => {
    const { outcomeMessage } = parse(outcomeSchema, req.body);
    const ticket = await visible(req);
    await answerTicket(req, res, ticket._id, await recordOutcome(deps, ticket._id, outcomeMessage, commandContext(deps, req)));
  });

  router.delete('/tickets/:id', scope('tickets:write'), requireRole('admin'), async (req, res) => {
    const ticket = await visible(req);
    await deleteTicket(deps, ticket._id, commandContext(deps, req));
    res.status(204).end();
  });

  router.get('/tickets/:id/messages', scope('tickets:read'), requireRole(), async (req, res) => {
    const { page, limit } = parse(listMessagesQuery, req.query);
    const user = currentUser(req);
    const ticket = await visible(req);
    const [listed, unread] = await Promise.all([latestMessages(deps, ticket, user, page, limit), unreadCount(deps, ticket, user)]);
    res.json({ ...listed, unreadCount: unread });
  });

  router.post('/tickets/:id/messages', scope('messages:write'), requireRole(), async (req, res) => {
    const ticketId = await commandTarget(req);
    await withUploads(deps, req, res, isMessageFileField, async (files) => {
      const { content, isInternal } = parse(postMessageSchema, req.body);
      const attachments = files.map((file) => file.attachment);
      const key = idempotencyKeyOf(req, { ticketId, content, isInternal }, files);
      const post = { content, isInternal, attachments, platform: 'web' as const, ...(key ? { messageId: idOfKey(key, 'message') } : {}) };
      // A post decides nothing for a message id the conversation already has, so a retry before the record is safe as it is.
      const message = await once(deps, key, commandContext(deps, req), {
        create: () => postMessage(deps, ticketId, post, commandContext(deps, req)),
        idOf: (posted) => posted._id,
        answer: (messageId) => storedMessage(deps, messageId),
        earlier: async () => null,
      });
      res.status(201).json({ message: messageFor(message) });
    });
  });

  router.post('/tickets/:id/messages/read', scope('tickets:write'), requireRole(), async (req, res) => {
    await markMessagesRead(deps, await commandTarget(req), commandContext(deps, req));
    res.status(204).end();
  });

  router.put('/messages/:id', scope('messages:write'), requireRole(), async (req, res) => {
    const { content } = parse(editMessageSchema, req.body);
    const { message } = await findVisibleMessage(deps.readStore, req.params.id as string, currentUser(req));
    const edited = await editMessage(deps, message.ticket, streamMessageId(message.ticket, message._id), content, commandContext(deps, req));
    res.json({ message: messageFor(edited) });
  });

  router.get('/uploads/:fileId', scope('tickets:read'), requireRole(), async (req, res) => {
    const fileId = req.params.fileId as string;
    const user = currentUser(req);
    const upload = FILE_ID.test(fileId) ? await deps.readStore.collection<UploadView>(UPLOADS).findOne({ _id: fileId }) : null;
    const allowed = upload && (seesNotes(user) || !upload.isInternal) && (isStaff(user.role) || upload.customerId === user.id);
    if (!upload || !allowed) throw new NotFoundError('File');
    const inline = upload.mimeType.startsWith('image/');
    res.setHeader('Content-Type', upload.mimeType.startsWith('text/') ? `${upload.mimeType}; charset=utf-8` : upload.mimeType);
    res.setHeader('Content-Disposition', contentDisposition(upload.originalName, { type: inline ? 'inline' : 'attachment' }));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', 'private, max-age=3600');
    await new Promise<void>((resolve, reject) =>
      res.sendFile(fileId, { root: uploadsDir(deps), dotfiles: 'deny' }, (error) => {
        if (!error) return resolve();
        if (res.headersSent) return resolve();
        reject((error as NodeJS.ErrnoException).code === 'ENOENT' ? new NotFoundError('File') : error);
      }),
    );
  });
};
