import type { CategoryEvent } from '../domain/category/category';
import type { TicketEvent } from '../domain/ticket/ticket';
import { type Attachment, type CustomFieldValue, PRIORITY_WEIGHT, type Platform, type Priority, STATUS_RANK, type TicketStatus } from '#contract/tickets';
import type { UserEvent } from '../domain/user/user';
import type { Role } from '#contract/users';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { type PersonEntry, findCategory, findPerson } from './directory';
import type { Projection } from './runner';
import { TICKET_CREATED, TICKET_STATS, moveStats } from './ticketStats';

export const TICKETS = 'tickets_v1';
export const TICKET_MESSAGES = 'ticket_messages_v1';
export const TICKET_READS = 'ticket_reads_v1';
export const UPLOADS = 'uploads_v1';

export interface PersonRef {
  _id: string;
  username: string;
  firstName: string;
  lastName: string;
}

/** An attachment as API.md returns it: the file is served by GET /api/uploads/<fileId>. */
export interface AttachmentView {
  url: string;
  mimeType: string;
  originalName: string;
  size: number;
}

export const uploadUrl = (fileId: string) => `/api/uploads/${fileId}`;
const attachmentView = ({ fileId, mimeType, originalName, size }: Attachment): AttachmentView => ({ url: uploadUrl(fileId), mimeType, originalName, size });

/**
 * One document per live ticket, shaped as API.md's ticket plus what lists sort, filter and hide
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
  updatedAt: string;
  resolvedAt: string | null;
  closedAt: string | null;
  messageCount: number;
  lastMessageAt: string | null;
  publicMessageCount: number;
  lastPublicMessageAt: string | null;
  priorityWeight: number;
  statusRank: number;
  search: string;
  _revision: number;
}

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

const searchText = (number: number, title: string, description: string, customer: PersonRef) =>
  `#${number} ${title} ${description} ${customer.firstName} ${customer.lastName} ${customer.username}`.toLowerCase();

async function recordUploads(store: ReadStore, ticket: string, customerId: string, isInternal: boolean, attachments: Attachment[]) {
  const uploads = store.collection<UploadView>(UPLOADS);
  for (const { fileId, mimeType, originalName, size } of attachments) {
    await uploads.replaceOne({ _id: fileId }, { _id: fileId, ticket, customerId, isInternal, mimeType, originalName, size }, { upsert: true });
  }
}

async function applyTicketEvent(recorded: RecordedEvent, store: ReadStore): Promise<void> {
  const event = recorded as unknown as RecordedEvent & TicketEvent;
  const tickets = store.collection<TicketView>(TICKETS);
  const messages = store.collection<MessageView>(TICKET_MESSAGES);
  const at = recorded.metadata.occurredAt;
  const rev = recorded.revision;
  const id = event.data.ticketId;

  if (event.type === 'TicketOpened') {
    if (await tickets.findOne({ _id: id })) return;
    const { number, title, description, priority, customFieldValues, platform, customerId, categoryId } = event.data;
    const [customer, category] = await Promise.all([findPerson(store, customerId), findCategory(store, categoryId)]);
    const ref = personRef(customer);
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
      resolvedAt: null,
      closedAt: null,
      messageCount: 0,
      lastMessageAt: null,
      publicMessageCount: 0,
      lastPublicMessageAt: null,
      priorityWeight: PRIORITY_WEIGHT[priority],
      statusRank: STATUS_RANK.open,
      search: searchText(number, title, description, ref),
      _revision: rev,
    };
    await tickets.insertOne(view);
    const files = customFieldValues.flatMap(({ value }) => (typeof value === 'object' ? [value] : []));
    await recordUploads(store, id, customerId, false, files);
    await moveStats(store, null, view);
    return;
  }

  const before = await tickets.findOne({ _id: id });
  if (!before || before._revision >= rev) return;
  const save = async (changes: Partial<TicketView>, countsForStats = true) => {
    const after: TicketView = { ...before, ...changes, _revision: rev };
    await tickets.replaceOne({ _id: id, _revision: before._revision }, after);
    if (countsForStats) await moveStats(store, before, after);
  };

  switch (event.type) {
    case 'TicketStatusChanged': {
      const { to } = event.data;
      await save({
        status: to,
        statusRank: STATUS_RANK[to],
        updatedAt: at,
        ...(to === 'resolved' ? { resolvedAt: at } : {}),
        ...(to === 'closed' ? { closedAt: at } : {}),
      });
      return;
    }
    case 'AgentAssignedToTicket':
      await save({ assignedAgent: personRef(await findPerson(store, event.data.agentId)), updatedAt: at });
      return;
    case 'AgentUnassignedFromTicket':
      await save({ assignedAgent: null, updatedAt: at });
      return;
    case 'TicketOutcomeRecorded': {
      const author = await findPerson(store, recorded.metadata.actor?.userId ?? '');
      const { _id, username, firstName } = personRef(author);
      await save({ outcomeMessage: event.data.outcomeMessage, outcomeUpdatedAt: at, outcomeUpdatedBy: { _id, username, firstName }, updatedAt: at });
      return;
    }
    case 'TicketDeleted':
      await tickets.deleteOne({ _id: id });
      await messages.deleteMany({ ticket: id });
      await store.collection(TICKET_READS).deleteMany({ ticket: id });
      await store.collection(UPLOADS).deleteMany({ ticket: id });
      await moveStats(store, before, null);
      return;
    case 'MessagePosted': {
      const { messageId, senderId, content, messageType, isInternal, platform, attachments } = event.data;
      const sender = await findPerson(store, senderId);
      const seq = before.messageCount + 1;
      await messages.replaceOne(
        { _id: messageId },
        {
          _id: messageId,
          ticket: id,
          seq,
          content,
          messageType,
          isInternal,
          platform,
          sender: { _id: senderId, firstName: sender.firstName, lastName: sender.lastName, role: event.data.senderRole },
          createdAt: at,
          editedAt: null,
          attachments: attachments.map(attachmentView),
          _revision: rev,
        },
        { upsert: true },
      );
      await recordUploads(store, id, before.customer._id, isInternal, attachments);
      // A conversation does not make a ticket "updated": updatedAt drives the response-time statistic.
      await save(
        {
          messageCount: seq,
          lastMessageAt: at,
          ...(isInternal ? {} : { publicMessageCount: before.publicMessageCount + 1, lastPublicMessageAt: at }),
        },
        false,
      );
      return;
    }
    case 'MessageEdited':
      await messages.updateOne({ _id: event.data.messageId, _revision: { $lt: rev } }, { $set: { content: event.data.content, editedAt: at, _revision: rev } });
      await save({}, false);
      return;
    case 'MessagesRead': {
      const { readerId, upTo } = event.data;
      const key = `${id}:${readerId}`;
      await store.collection<ReadMarkView>(TICKET_READS).updateOne({ _id: key }, { $set: { ticket: id, user: readerId }, $max: { upTo } }, { upsert: true });
      await save({}, false);
      return;
    }
  }
}

/** Names shown on tickets and messages follow a rename, as a help desk user expects. */
async function applyRename(recorded: RecordedEvent, store: ReadStore): Promise<void> {
  const event = recorded as unknown as RecordedEvent & (UserEvent | CategoryEvent);
  const tickets = store.collection<TicketView>(TICKETS);
  if (event.type === 'UserDetailsUpdated') {
    const { userId, changes } = event.data;
    const names = Object.fromEntries(Object.entries({ username: changes.username, firstName: changes.firstName, lastName: changes.lastName }).filter(([, v]) => v !== undefined));
    if (Object.keys(names).length === 0) return;
    const prefixed = (prefix: string, keys: string[]) => Object.fromEntries(Object.entries(names).filter(([key]) => keys.includes(key)).map(([key, value]) => [`${prefix}.${key}`, value]));
    await tickets.updateMany({ 'customer._id': userId }, { $set: prefixed('customer', ['username', 'firstName', 'lastName']) });
    await tickets.updateMany({ 'assignedAgent._id': userId }, { $set: prefixed('assignedAgent', ['username', 'firstName', 'lastName']) });
    const outcome = prefixed('outcomeUpdatedBy', ['username', 'firstName']);
    if (Object.keys(outcome).length > 0) await tickets.updateMany({ 'outcomeUpdatedBy._id': userId }, { $set: outcome });
    const sender = prefixed('sender', ['firstName', 'lastName']);
    if (Object.keys(sender).length > 0) await store.collection(TICKET_MESSAGES).updateMany({ 'sender._id': userId }, { $set: sender });
  } else if (event.type === 'CategoryUpdated') {
    const { categoryId, changes } = event.data;
    const set = Object.fromEntries(Object.entries({ 'category.name': changes.name, 'category.color': changes.color }).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length > 0) await tickets.updateMany({ 'category._id': categoryId }, { $set: set });
  }
}

/** Serves the ticket list, ticket detail, conversation, unread counts, uploads and dashboard statistics. */
export const ticketsProjection: Projection = {
  name: 'tickets',
  version: 2,
  collections: [TICKETS, TICKET_MESSAGES, TICKET_READS, UPLOADS, TICKET_STATS, TICKET_CREATED],
  async setup(store: ReadStore) {
    const tickets = store.collection(TICKETS);
    await tickets.createIndex({ keys: { ticketId: 1 }, unique: true });
    await tickets.createIndex({ keys: { createdAt: -1 } });
    await tickets.createIndex({ keys: { 'customer._id': 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { status: 1, createdAt: -1 } });
    await tickets.createIndex({ keys: { 'assignedAgent._id': 1, createdAt: -1 } });
    await store.collection(TICKET_MESSAGES).createIndex({ keys: { ticket: 1, seq: 1 } });
    await store.collection(TICKET_MESSAGES).createIndex({ keys: { 'sender._id': 1 } });
    await store.collection(TICKET_READS).createIndex({ keys: { ticket: 1 } });
    await store.collection(UPLOADS).createIndex({ keys: { ticket: 1 } });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (recorded.streamId.startsWith('ticket-')) return applyTicketEvent(recorded, store);
    if (recorded.type === 'UserDetailsUpdated' || recorded.type === 'CategoryUpdated') return applyRename(recorded, store);
  },
};
