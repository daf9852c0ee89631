import { type MessagePostedData, renameTag } from '../domain/ticket/ticket';
import { type Attachment, type CustomFieldValue, PRIORITY_WEIGHT, type Platform, type Priority, STATUS_RANK, type TicketStatus } from '#contract/tickets';
import { type Role, isStaff } from '#contract/users';
import type { RecordedEvent } from '../platform/eventstore/port';
import { type BulkOp, type BulkResult, type Collection, type Doc, type ReadStore, TransientStoreError, noWrites } from '../platform/readstore/port';
import { type PersonEntry, loadDirectory } from './directory';
import { type RecordedOf, dispatcher } from './events';
import type { Projection } from './runner';
import { type StatsMove, TICKET_CREATED, TICKET_STATS, applyStatsMoves } from './ticketStats';

export const TICKETS = 'tickets_v1';
export const TICKET_MESSAGES = 'ticket_messages_v1';
export const TICKET_READS = 'ticket_reads_v1';
export const UPLOADS = 'uploads_v1';

interface PersonRef {
  _id: string;
  username: string;
  firstName: string;
  lastName: string;
}

/** An attachment as docs/contract.md returns it: the file is served by GET /api/uploads/<fileId>. */
export interface AttachmentView {
  url: string;
  mimeType: string;
  originalName: string;
  size: number;
}

const uploadUrl = (fileId: string) => `/api/uploads/${fileId}`;
const attachmentView = ({ fileId, mimeType, originalName, size }: Attachment): AttachmentView => ({ url: uploadUrl(fileId), mimeType, originalName, size });

/**
 * One document per live ticket, shaped as docs/contract.md's ticket plus what lists sort, filter and hide
 * by: counts both with and without internal notes (a customer never learns a note exists).
 */
export interface TicketView extends Doc {
  ticketId: number;
  title: string;
  description: string;
  category: { _id: string; name: string; color: string };
  priority: Priority;
  status: TicketStatus;
  customer: PersonRef;
  assignedAgent: PersonRef | null;
  outcomeMessage: string | null;
  outcomeUpdatedAt: string | null;
  outcomeUpdatedBy: { _id: string; username: string; firstName: string } | null;
  customFieldValues: Array<{ fieldName: string; fieldPrompt: string; value: string | number | AttachmentView }>;
  platform: Platform;
  createdAt: string;
  /** The last change of the ticket itself, staff-only ones (the outcome) included. */
  updatedAt: string;
  /** The last change its customer can see: what their view calls `updatedAt`, so a staff-only change never shows through it. */
  publicUpdatedAt: string;
  resolvedAt: string | null;
  closedAt: string | null;
  messageCount: number;
  /** The last conversation position given out: a merge undone takes messages away, never their positions (read marks count them). */
  lastSeq: number;
  lastMessageAt: string | null;
  publicMessageCount: number;
  lastPublicMessageAt: string | null;
  /** When the customer last wrote (the ticket's opening counts as their first words). */
  lastCustomerMessageAt: string | null;
  /** Staff's first public reply (staff-only, not in answers): the teams' first-response time. */
  firstResponseAt: string | null;
  /**
   * Since when the customer waits for the desk: from their first unanswered words (the opening, or
   * a message after a public staff reply) until a public staff reply, or the status moves the ball
   * to them (pending customer) or ends the ticket (resolved, closed). null: not waiting on us.
   */
  waitingSince: string | null;
  /** `waitingSince`, or a value after every date when not waiting: "waiting longest" sorts on it. */
  waitingRank: string;
  priorityWeight: number;
  statusRank: number;
  /** Set while this ticket is merged into another; `sameCustomer` says whether its customer may follow the redirect. */
  mergedInto: { _id: string; ticketId: number; sameCustomer: boolean } | null;
  /** The tickets merged into this one (docs/tickets.md, merging). */
  mergedFrom: MergeRef[];
  /** Related tickets (both directions), for staff. */
  related: MergeRef[];
  /** The team the ticket is with (docs/teams.md), for staff. */
  team: { _id: string; name: string } | null;
  /** Staff's tags (docs/teams.md), in the order they were added. */
  tags: string[];
  _revision: number;
}

interface MergeRef {
  _id: string;
  ticketId: number;
}

/** A merged message's copy in the target: its own record id, so the source keeps its conversation. */
const mergedMessageId = (targetId: string, messageId: string) => `${targetId}~${messageId}`;

/** The message id the ticket's own stream knows a record of its conversation by: a copy's record id less its `<ticket>~`. */
export const streamMessageId = (ticketId: string, recordId: string) => (recordId.startsWith(`${ticketId}~`) ? recordId.slice(ticketId.length + 1) : recordId);

export interface MessageView extends Doc {
  ticket: string;
  seq: number;
  content: string;
  messageType: 'text' | 'file' | 'system';
  isInternal: boolean;
  platform: Platform;
  sender: { _id: string; firstName: string; lastName: string; role: Role };
  createdAt: string;
  editedAt: string | null;
  attachments: AttachmentView[];
  /** A copy brought by a merge: the ticket it came from. */
  mergedFrom?: MergeRef;
  /** A copy from another customer's ticket (an admin's merge): staff only, whatever it was. */
  staffOnly?: true;
  _revision: number;
}

export interface ReadMarkView extends Doc {
  ticket: string;
  user: string;
  upTo: number;
}

/** Who may fetch a stored file: those who may see the ticket, and only staff for a note's files. */
export interface UploadView extends Doc {
  ticket: string;
  customerId: string;
  isInternal: boolean;
  mimeType: string;
  originalName: string;
  size: number;
}

const personRef = ({ userId, username, firstName, lastName }: PersonEntry): PersonRef => ({ _id: userId, username, firstName, lastName });

const customFieldView = ({ fieldName, fieldPrompt, value }: CustomFieldValue) => ({
  fieldName,
  fieldPrompt,
  value: typeof value === 'object' ? attachmentView(value) : value,
});

/** A posted message as the conversation shows it; the write side answers a post with the same view. */
export const postedMessageView = (
  data: MessagePostedData,
  seq: number,
  sender: Pick<PersonEntry, 'firstName' | 'lastName'>,
  at: string,
  revision: number,
): MessageView => ({
  _id: data.messageId,
  ticket: data.ticketId,
  seq,
  content: data.content,
  messageType: data.messageType,
  isInternal: data.isInternal,
  platform: data.platform,
  sender: data.senderName
    ? { _id: data.senderId, firstName: data.senderName, lastName: '', role: data.senderRole }
    : { _id: data.senderId, firstName: sender.firstName, lastName: sender.lastName, role: data.senderRole },
  createdAt: at,
  editedAt: null,
  attachments: data.attachments.map(attachmentView),
  _revision: revision,
});

type Directory = Awaited<ReturnType<typeof loadDirectory>>;

/**
 * What a page of ticket events does, built in memory: the ticket documents it touched (as loaded,
 * and as they are now), the messages, uploads and read marks it wrote, the tickets it deleted, and
 * the statistics moves. `flush` writes each document once.
 */
interface Page {
  directory: Directory;
  tickets: Map<string, { loaded: TicketView | null; now: TicketView | null }>;
  messages: Map<string, MessageView>;
  /** Merged copies an unmerge took out of their target. */
  removedMessages: Set<string>;
  edits: RecordedOf<'MessageEdited'>[];
  reads: Map<string, ReadMarkView>;
  uploads: Map<string, UploadView>;
  deleted: Set<string>;
  moves: StatsMove[];
}

function recordUploads(page: Page, ticket: string, customerId: string, isInternal: boolean, attachments: Attachment[]) {
  for (const { fileId, mimeType, originalName, size } of attachments)
    page.uploads.set(fileId, { _id: fileId, ticket, customerId, isInternal, mimeType, originalName, size });
}

/** The ticket an event changes, when it exists and has not seen the event yet. */
function current(page: Page, event: { data: { ticketId: string }; revision: number }): TicketView | null {
  const ticket = page.tickets.get(event.data.ticketId)?.now ?? null;
  return ticket && ticket._revision < event.revision ? ticket : null;
}

/** Replaces a ticket with its changed copy; `countsForStats` moves the dashboard sums with it. */
function save(page: Page, event: { revision: number; position: number }, before: TicketView, changes: Partial<TicketView>, countsForStats = true) {
  const after: TicketView = { ...before, ...changes, _revision: event.revision };
  page.tickets.get(before._id)!.now = after;
  if (countsForStats) page.moves.push({ position: event.position, before, after });
}

/** Sorts after every ISO date: a ticket nobody waits on comes after all that wait. */
const NOT_WAITING = '~';
const waiting = (since: string | null) => ({ waitingSince: since, waitingRank: since ?? NOT_WAITING });
/** Statuses that leave the next move to the customer, or end the ticket: the desk owes no answer. */
const BALL_ELSEWHERE: readonly TicketStatus[] = ['pending_customer', 'resolved', 'closed'];

/** Each ticket event folded into the page (pure: no I/O). */
const evolve = dispatcher<Page, void>({
  TicketOpened(event, page) {
    const entry = page.tickets.get(event.data.ticketId)!;
    if (entry.now || page.deleted.has(event.data.ticketId)) return;
    const { ticketId: id, number, title, description, priority, customFieldValues, platform, customerId, categoryId } = event.data;
    const at = event.metadata.occurredAt;
    const ref = personRef(page.directory.person(customerId));
    const category = page.directory.category(categoryId);
    const view: TicketView = {
      _id: id,
      ticketId: number,
      title,
      description,
      category: { _id: categoryId, name: category.name, color: category.color },
      priority,
      status: 'open',
      customer: ref,
      assignedAgent: null,
      outcomeMessage: null,
      outcomeUpdatedAt: null,
      outcomeUpdatedBy: null,
      customFieldValues: customFieldValues.map(customFieldView),
      platform,
      createdAt: at,
      updatedAt: at,
      publicUpdatedAt: at,
      resolvedAt: null,
      closedAt: null,
      messageCount: 0,
      lastSeq: 0,
      lastMessageAt: null,
      publicMessageCount: 0,
      lastPublicMessageAt: null,
      lastCustomerMessageAt: at,
      firstResponseAt: null,
      ...waiting(at),
      priorityWeight: PRIORITY_WEIGHT[priority],
      statusRank: STATUS_RANK.open,
      mergedInto: null,
      mergedFrom: [],
      related: [],
      team: null,
      tags: [],
      _revision: event.revision,
    };
    entry.now = view;
    recordUploads(
      page,
      id,
      customerId,
      false,
      customFieldValues.flatMap(({ value }) => (typeof value === 'object' ? [value] : [])),
    );
    page.moves.push({ position: event.position, before: null, after: view });
  },
  TicketStatusChanged(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { to } = event.data;
    const at = event.metadata.occurredAt;
    save(page, event, before, {
      status: to,
      statusRank: STATUS_RANK[to],
      updatedAt: at,
      publicUpdatedAt: at,
      ...(to === 'resolved' ? { resolvedAt: at } : {}),
      ...(to === 'closed' ? { closedAt: at } : {}),
      ...(BALL_ELSEWHERE.includes(to) ? waiting(null) : {}),
    });
  },
  AgentAssignedToTicket(event, page) {
    const before = current(page, event);
    const at = event.metadata.occurredAt;
    if (before) save(page, event, before, { assignedAgent: personRef(page.directory.person(event.data.agentId)), updatedAt: at, publicUpdatedAt: at });
  },
  AgentUnassignedFromTicket(event, page) {
    const before = current(page, event);
    const at = event.metadata.occurredAt;
    if (before) save(page, event, before, { assignedAgent: null, updatedAt: at, publicUpdatedAt: at });
  },
  TicketOutcomeRecorded(event, page) {
    const before = current(page, event);
    if (!before) return;
    const at = event.metadata.occurredAt;
    const { _id, username, firstName } = personRef(page.directory.person(event.metadata.actor?.userId ?? ''));
    save(page, event, before, {
      outcomeMessage: event.data.outcomeMessage,
      outcomeUpdatedAt: at,
      outcomeUpdatedBy: { _id, username, firstName },
      // Staff-only (docs/product.md section 6): the customer's updatedAt stays where it was.
      updatedAt: at,
    });
  },
  TicketTeamChanged(event, page) {
    const before = current(page, event);
    const { teamId, teamName } = event.data;
    // Staff-only, as the outcome: the customer's updatedAt stays where it was. It moves the ticket between the teams' sums.
    if (before) save(page, event, before, { team: teamId === null ? null : { _id: teamId, name: teamName ?? '' }, updatedAt: event.metadata.occurredAt });
  },
  // Staff-only, as the team: the customer's updatedAt stays where it was.
  TicketTagAdded(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, { tags: [...before.tags, event.data.tag], updatedAt: event.metadata.occurredAt }, false);
  },
  TicketTagRemoved(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, { tags: before.tags.filter((tag) => tag !== event.data.tag), updatedAt: event.metadata.occurredAt }, false);
  },
  TicketTagRenamed(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, { tags: renameTag(before.tags, event.data), updatedAt: event.metadata.occurredAt }, false);
  },
  TicketPriorityChanged(event, page) {
    const before = current(page, event);
    const at = event.metadata.occurredAt;
    const { priority } = event.data;
    if (before) save(page, event, before, { priority, priorityWeight: PRIORITY_WEIGHT[priority], updatedAt: at, publicUpdatedAt: at });
  },
  TicketCategoryChanged(event, page) {
    const before = current(page, event);
    const at = event.metadata.occurredAt;
    const { categoryId } = event.data;
    const category = page.directory.category(categoryId);
    if (before) save(page, event, before, { category: { _id: categoryId, name: category.name, color: category.color }, updatedAt: at, publicUpdatedAt: at });
  },
  TicketDeleted(event, page) {
    const before = current(page, event);
    if (!before) return;
    page.moves.push({ position: event.position, before, after: null });
    page.tickets.get(before._id)!.now = null;
    page.deleted.add(before._id);
  },
  MessagePosted(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { ticketId: id, messageId, senderId, senderRole, isInternal, attachments } = event.data;
    const at = event.metadata.occurredAt;
    const seq = before.lastSeq + 1;
    const fromCustomer = senderId === before.customer._id;
    const waitingNow = isInternal
      ? {}
      : fromCustomer
        ? { lastCustomerMessageAt: at, ...waiting(before.waitingSince ?? at) }
        : isStaff(senderRole)
          ? waiting(null)
          : {};
    // Staff's first public reply: the teams' first-response time (docs/teams.md), the one message that moves the sums.
    const firstResponse = !isInternal && !fromCustomer && isStaff(senderRole) && before.firstResponseAt === null;
    page.messages.set(messageId, postedMessageView(event.data, seq, page.directory.person(senderId), at, event.revision));
    recordUploads(page, id, before.customer._id, isInternal, attachments);
    // A conversation does not make a ticket "updated": updatedAt drives the response-time statistic.
    save(
      page,
      event,
      before,
      {
        messageCount: before.messageCount + 1,
        lastSeq: seq,
        lastMessageAt: at,
        ...(isInternal ? {} : { publicMessageCount: before.publicMessageCount + 1, lastPublicMessageAt: at }),
        ...waitingNow,
        ...(firstResponse ? { firstResponseAt: at } : {}),
      },
      firstResponse,
    );
  },
  /**
   * Closed with the redirect. Not a resolution: resolvedAt and closedAt stay as they were, and so does
   * updatedAt (the response-time statistic), so the dashboard does not count a merge as work done.
   */
  TicketMergedInto(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { targetId, targetNumber } = event.data;
    const sameCustomer = event.data.targetCustomerId === before.customer._id;
    save(page, event, before, {
      status: 'closed',
      statusRank: STATUS_RANK.closed,
      publicUpdatedAt: event.metadata.occurredAt,
      mergedInto: { _id: targetId, ticketId: targetNumber, sameCustomer },
      ...waiting(null),
    });
  },
  TicketMergedFrom(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { sourceId, sourceNumber, reopenedFrom } = event.data;
    const at = event.metadata.occurredAt;
    save(page, event, before, {
      ...copiedMessages(page, event, before),
      mergedFrom: [...before.mergedFrom, { _id: sourceId, ticketId: sourceNumber }],
      ...(reopenedFrom ? { status: 'open', statusRank: STATUS_RANK.open, updatedAt: at, publicUpdatedAt: at } : {}),
    });
  },
  /** The rest of a large merge's copy: more messages, as the merge's first event adds them. */
  MergedMessagesCopied(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, copiedMessages(page, event, before), false);
  },
  TicketMergeFromUndone(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { sourceId, restoredStatus } = event.data;
    const at = event.metadata.occurredAt;
    save(page, event, before, {
      ...removedCopies(page, event, before),
      mergedFrom: before.mergedFrom.filter((link) => link._id !== sourceId),
      ...(restoredStatus ? { status: restoredStatus, statusRank: STATUS_RANK[restoredStatus], updatedAt: at, publicUpdatedAt: at, ...waiting(null) } : {}),
    });
  },
  /** Part of an undone large merge's copies leaving, before the event that ends the merge. */
  MergedMessagesRemoved(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, removedCopies(page, event, before), false);
  },
  /** The moved messages leave; their positions are not given back (read marks count them). The "Moved to" line is ticket activity. */
  MessagesMovedOut(event, page) {
    const before = current(page, event);
    if (!before) return;
    const copies = new Set(event.data.copies);
    for (const { messageId } of event.data.messages) {
      const record = copies.has(messageId) ? mergedMessageId(event.data.ticketId, messageId) : messageId;
      page.messages.delete(record);
      page.removedMessages.add(record);
    }
    save(
      page,
      event,
      before,
      { messageCount: before.messageCount - event.data.messages.length, publicMessageCount: before.publicMessageCount - event.data.publicCount },
      false,
    );
  },
  /** The new ticket's own conversation, under record ids of its own (`<ticket>~<message>`): the source removes the originals. */
  MessagesMovedIn(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { ticketId: id, messages } = event.data;
    let { messageCount, lastSeq, publicMessageCount } = before;
    let lastMessageAt = before.lastMessageAt;
    let lastPublicMessageAt = before.lastPublicMessageAt;
    for (const { sourceSeq: _seq, ...message } of messages) {
      messageCount += 1;
      lastSeq += 1;
      const view = postedMessageView({ ...message, ticketId: id }, lastSeq, page.directory.person(message.senderId), message.postedAt, event.revision);
      page.messages.set(mergedMessageId(id, message.messageId), { ...view, _id: mergedMessageId(id, message.messageId) });
      lastMessageAt = message.postedAt;
      if (!message.isInternal) {
        publicMessageCount += 1;
        lastPublicMessageAt = message.postedAt;
      }
    }
    save(page, event, before, { messageCount, lastSeq, publicMessageCount, lastMessageAt, lastPublicMessageAt }, false);
  },
  TicketLinked(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, { related: [...before.related, { _id: event.data.otherId, ticketId: event.data.otherNumber }] }, false);
  },
  TicketUnlinked(event, page) {
    const before = current(page, event);
    if (before) save(page, event, before, { related: before.related.filter((link) => link._id !== event.data.otherId) }, false);
  },
  TicketMergeIntoUndone(event, page) {
    const before = current(page, event);
    if (!before) return;
    const status = event.data.restoredStatus;
    save(page, event, before, { status, statusRank: STATUS_RANK[status], publicUpdatedAt: event.metadata.occurredAt, mergedInto: null });
  },
  MessageEdited(event, page) {
    const before = current(page, event);
    if (!before) return;
    const posted = page.messages.get(event.data.messageId);
    if (!posted) page.edits.push(event);
    else if (posted._revision < event.revision)
      page.messages.set(posted._id, { ...posted, content: event.data.content, editedAt: event.metadata.occurredAt, _revision: event.revision });
    save(page, event, before, {}, false);
  },
  MessagesRead(event, page) {
    const before = current(page, event);
    if (!before) return;
    const { ticketId: ticket, readerId: user, upTo } = event.data;
    const key = `${ticket}:${user}`;
    page.reads.set(key, { _id: key, ticket, user, upTo: Math.max(upTo, page.reads.get(key)?.upTo ?? upTo) });
    save(page, event, before, {}, false);
  },
});

/** A merge's copied messages join the target under record ids of their own (`<ticket>~<message>`), with their read marks; answers the ticket's new counts. */
function copiedMessages(page: Page, event: RecordedOf<'TicketMergedFrom' | 'MergedMessagesCopied'>, before: TicketView) {
  const { ticketId: id, sourceId, sourceNumber, messages, crossCustomer, readMarks } = event.data;
  const origin = { _id: sourceId, ticketId: sourceNumber };
  let { messageCount, lastSeq, publicMessageCount, lastMessageAt, lastPublicMessageAt } = before;
  const later = (a: string | null, b: string) => (a === null || b > a ? b : a);
  for (const { sourceSeq: _seq, ...message } of messages) {
    messageCount += 1;
    lastSeq += 1;
    const view = postedMessageView({ ...message, ticketId: id }, lastSeq, page.directory.person(message.senderId), message.postedAt, event.revision);
    page.messages.set(mergedMessageId(id, message.messageId), {
      ...view,
      _id: mergedMessageId(id, message.messageId),
      mergedFrom: origin,
      ...(crossCustomer ? { staffOnly: true as const } : {}),
    });
    lastMessageAt = later(lastMessageAt, message.postedAt);
    if (!message.isInternal && !crossCustomer) {
      publicMessageCount += 1;
      lastPublicMessageAt = later(lastPublicMessageAt, message.postedAt);
    }
  }
  for (const [user, upTo] of Object.entries(readMarks)) {
    const key = `${id}:${user}`;
    page.reads.set(key, { _id: key, ticket: id, user, upTo: Math.max(upTo, page.reads.get(key)?.upTo ?? upTo) });
  }
  return { messageCount, lastSeq, publicMessageCount, lastMessageAt, lastPublicMessageAt };
}

/** An undone merge's copies leave the target; answers the ticket's new counts. */
function removedCopies(page: Page, event: RecordedOf<'TicketMergeFromUndone' | 'MergedMessagesRemoved'>, before: TicketView) {
  const { ticketId: id, messageIds, publicCount } = event.data;
  for (const messageId of messageIds) {
    page.messages.delete(mergedMessageId(id, messageId));
    page.removedMessages.add(mergedMessageId(id, messageId));
  }
  return { messageCount: before.messageCount - messageIds.length, publicMessageCount: before.publicMessageCount - publicCount };
}

/** The people and categories whose names a page of ticket events shows. */
function mentioned(events: RecordedEvent[]) {
  const people = new Set<string>();
  const categories = new Set<string>();
  for (const { type, data, metadata } of events) {
    if (type === 'TicketOpened') {
      people.add(String(data.customerId));
      categories.add(String(data.categoryId));
    } else if (type === 'TicketCategoryChanged') categories.add(String(data.categoryId));
    else if (type === 'AgentAssignedToTicket') people.add(String(data.agentId));
    else if (type === 'MessagePosted') people.add(String(data.senderId));
    else if (type === 'TicketOutcomeRecorded') people.add(metadata.actor?.userId ?? '');
    else if (type === 'TicketMergedFrom' || type === 'MergedMessagesCopied' || type === 'MessagesMovedIn')
      for (const message of data.messages as Array<{ senderId: string }>) people.add(message.senderId);
  }
  return { people, categories };
}

/** One read per collection for the tickets a run of ticket events touches, then one write per changed document. */
async function applyTicketEvents(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const tickets = store.collection<TicketView>(TICKETS);
  const ids = [...new Set(events.map((event) => String(event.data.ticketId)))];
  const { people, categories } = mentioned(events);
  const [loaded, directory] = await Promise.all([tickets.find({ _id: { $in: ids } }), loadDirectory(store, people, categories)]);
  const page: Page = {
    directory,
    tickets: new Map(),
    messages: new Map(),
    removedMessages: new Set(),
    edits: [],
    reads: new Map(),
    uploads: new Map(),
    deleted: new Set(),
    moves: [],
  };
  for (const id of ids) page.tickets.set(id, { loaded: null, now: null });
  for (const ticket of loaded) page.tickets.set(ticket._id, { loaded: ticket, now: ticket });
  for (const event of events) evolve.handle(event, page);

  // Children before parents. The sums first: their own position guards make them exactly once. Then
  // the messages, uploads and read marks, each write idempotent; the ticket documents, whose
  // `_revision` says which events are applied, last. A crash or a failed write anywhere in between
  // leaves the tickets at their old revisions, so the next apply folds the same events again and
  // writes the same children again. One ordered bulk write per collection.
  await applyStatsMoves(store, page.moves);
  const live = (ticket: string) => !page.deleted.has(ticket);
  const clearDeleted = [...page.deleted].map((ticket) => ({ deleteMany: { filter: { ticket } } }));
  await writeAll(store.collection<UploadView>(UPLOADS), [
    ...[...page.uploads.values()]
      .filter((upload) => live(upload.ticket))
      .map((upload) => ({ replaceOne: { filter: { _id: upload._id }, replacement: upload, upsert: true } })),
    ...clearDeleted,
  ]);
  await writeAll(store.collection<MessageView>(TICKET_MESSAGES), [
    ...[...page.messages.values()]
      .filter((message) => live(message.ticket))
      .map((message) => ({ replaceOne: { filter: { _id: message._id }, replacement: message, upsert: true } })),
    ...page.edits
      .filter(({ data }) => live(data.ticketId))
      .map(({ data, metadata, revision }) => ({
        updateOne: {
          filter: { _id: data.messageId, _revision: { $lt: revision } },
          update: { $set: { content: data.content, editedAt: metadata.occurredAt, _revision: revision } },
        },
      })),
    ...[...page.removedMessages].map((id) => ({ deleteOne: { filter: { _id: id } } })),
    ...clearDeleted,
  ]);
  await writeAll(store.collection<ReadMarkView>(TICKET_READS), [
    ...[...page.reads.values()]
      .filter((mark) => live(mark.ticket))
      .map(({ _id, ticket, user, upTo }) => ({ updateOne: { filter: { _id }, update: { $set: { ticket, user }, $max: { upTo } }, upsert: true } })),
    ...clearDeleted,
  ]);
  const changed = [...page.tickets.values()].filter(({ loaded, now }) => now && now !== loaded);
  const written = await writeAll(tickets, [
    ...changed.map(({ loaded: before, now }) => ({
      replaceOne: before
        ? { filter: { _id: now!._id, _revision: before._revision }, replacement: now! }
        : { filter: { _id: now!._id }, replacement: now!, upsert: true },
    })),
    ...[...page.deleted].map((id) => ({ deleteOne: { filter: { _id: id } } })),
  ]);
  // A ticket replaced under the revision it was read at matches nothing if another writer moved it on
  // meanwhile (a leader that lost its lease, mid-page): the page is tried again from a fresh read, or
  // the ticket would miss this page's events for good.
  if (written.matched + written.upserted < changed.length) {
    throw new TransientStoreError(TICKETS, new Error(`${changed.length - written.matched - written.upserted} ticket(s) moved on while the page was applied`));
  }
}

/** One round trip for a collection's writes of a page, none when it has none. */
async function writeAll<T extends Doc>(collection: Collection<T>, ops: BulkOp<T>[]): Promise<BulkResult> {
  return ops.length > 0 ? collection.bulkWrite(ops) : noWrites();
}

/** Names shown on tickets and messages follow a rename, as a help desk user expects. */
const rename = dispatcher<ReadStore, Promise<void>>({
  async UserDetailsUpdated(event, store) {
    const tickets = store.collection<TicketView>(TICKETS);
    const { userId, changes } = event.data;
    const names = Object.fromEntries(
      Object.entries({ username: changes.username, firstName: changes.firstName, lastName: changes.lastName }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(names).length === 0) return;
    const prefixed = (prefix: string, keys: string[]) =>
      Object.fromEntries(
        Object.entries(names)
          .filter(([key]) => keys.includes(key))
          .map(([key, value]) => [`${prefix}.${key}`, value]),
      );
    await tickets.updateMany({ 'customer._id': userId }, { $set: prefixed('customer', ['username', 'firstName', 'lastName']) });
    await tickets.updateMany({ 'assignedAgent._id': userId }, { $set: prefixed('assignedAgent', ['username', 'firstName', 'lastName']) });
    const outcome = prefixed('outcomeUpdatedBy', ['username', 'firstName']);
    if (Object.keys(outcome).length > 0) await tickets.updateMany({ 'outcomeUpdatedBy._id': userId }, { $set: outcome });
    const sender = prefixed('sender', ['firstName', 'lastName']);
    if (Object.keys(sender).length > 0) await store.collection(TICKET_MESSAGES).updateMany({ 'sender._id': userId }, { $set: sender });
  },
  async CategoryUpdated(event, store) {
    const { categoryId, changes } = event.data;
    const set = Object.fromEntries(Object.entries({ 'category.name': changes.name, 'category.color': changes.color }).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length > 0) await store.collection<TicketView>(TICKETS).updateMany({ 'category._id': categoryId }, { $set: set });
  },
  async TeamRenamed(event, store) {
    await store.collection<TicketView>(TICKETS).updateMany({ 'team._id': event.data.teamId }, { $set: { 'team.name': event.data.name } });
  },
});

/**
 * A page in runs: ticket events are folded in memory a run at a time; a rename (rare) is applied
 * to the stored documents between runs, so it sees every ticket the run before it wrote.
 */
async function applyTicketsPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  let run: RecordedEvent[] = [];
  for (const event of events) {
    if (evolve.types.has(event.type)) {
      run.push(event);
      continue;
    }
    if (run.length > 0) await applyTicketEvents(run, store);
    run = [];
    await rename.handle(event, store);
  }
  if (run.length > 0) await applyTicketEvents(run, store);
}

/** Serves the ticket list, ticket detail, conversation, unread counts, uploads and dashboard statistics. */
export const ticketsProjection: Projection = {
  name: 'tickets',
  version: 10,
  // The names of a page's people and categories are looked up in the directory while applying.
  reads: ['directory'],
  collections: [TICKETS, TICKET_MESSAGES, TICKET_READS, UPLOADS, TICKET_STATS, TICKET_CREATED],
  async setup(store: ReadStore) {
    const tickets = store.collection(TICKETS);
    await tickets.createIndex({ keys: { ticketId: 1 }, unique: true });
    // The orders of the list's sorts (latest and oldest, priority, status, updated) and of the dashboard's newest tickets.
    await tickets.createIndex({ keys: { createdAt: -1, ticketId: -1 } });
    await tickets.createIndex({ keys: { priorityWeight: -1, createdAt: -1 } });
    await tickets.createIndex({ keys: { statusRank: 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { updatedAt: -1, ticketId: -1 } });
    await tickets.createIndex({ keys: { waitingRank: 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { 'customer._id': 1, publicUpdatedAt: -1 } });
    await tickets.createIndex({ keys: { 'customer._id': 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { status: 1, createdAt: -1 } });
    // Live Tickets' usual page: one status, by priority (on SQLite its rows in order, not all the status's rows sorted).
    await tickets.createIndex({ keys: { status: 1, priorityWeight: -1, createdAt: -1 } });
    await tickets.createIndex({ keys: { 'assignedAgent._id': 1, createdAt: -1 } });
    // The list filtered (and its total counted) by category or priority, and a category's rename: without them SQLite reads every ticket.
    await tickets.createIndex({ keys: { 'category._id': 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { priority: 1, createdAt: -1 } });
    // Live Tickets by team and "My teams" (docs/teams.md), and a team's rename.
    await tickets.createIndex({ keys: { 'team._id': 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { tags: 1, createdAt: -1 } });
    await store.collection(TICKET_MESSAGES).createIndex({ keys: { ticket: 1, seq: 1 } });
    // A page's unread counts (messages of these tickets not the reader's own): on SQLite read from this index alone.
    await store.collection(TICKET_MESSAGES).createIndex({ keys: { ticket: 1, 'sender._id': 1 } });
    await store.collection(TICKET_MESSAGES).createIndex({ keys: { 'sender._id': 1 } });
    await store.collection(TICKET_READS).createIndex({ keys: { ticket: 1 } });
    await store.collection(UPLOADS).createIndex({ keys: { ticket: 1 } });
  },
  types: new Set([...evolve.types, ...rename.types]),
  apply: (event: RecordedEvent, store: ReadStore) => applyTicketsPage([event], store),
  applyPage: applyTicketsPage,
};
