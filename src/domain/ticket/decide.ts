import type { CustomField } from '#contract/categories';
import type { AppliedPolicy } from '../sla/clock';
import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import { type CustomFieldAnswer, answerCustomFields } from '#contract/customFields';
import { isBlankText } from '#contract/text';
import { type LiveTicket, type TicketEvent, type TicketState, canSeeMessage, evolve, initialState } from './ticket';
import { type Attachment, EDIT_WINDOW_MS, MESSAGE_MAX, OUTCOME_MAX, type Platform, type Priority, type TicketStatus, isOpenStatus } from '#contract/tickets';

export interface TicketActor {
  userId: string;
  role: Role;
}

/** What the handler looked up about the chosen category; null when it does not exist. */
export interface CategoryLookup {
  categoryId: string;
  isActive: boolean;
  customFields: CustomField[];
}

/** What the handler looked up about a would-be assignee; null when no such user exists. */
export interface AgentLookup {
  userId: string;
  role: Role;
  isActive: boolean;
}

export type TicketCommand =
  | {
      type: 'OpenTicket';
      ticketId: string;
      number: number;
      customerId: string;
      platform: Platform;
      title: string;
      description: string;
      priority: Priority;
      category: CategoryLookup | null;
      answers: Record<string, CustomFieldAnswer>;
      /** The SLA policy the ticket follows, chosen from the settings as they stand (docs/sla.md); null when none applies. */
      sla?: AppliedPolicy | null;
    }
  | { type: 'ChangeTicketStatus'; ticketId: string; actor: TicketActor; status: TicketStatus }
  | { type: 'AssignTicket'; ticketId: string; actor: TicketActor; agent: AgentLookup | null }
  | { type: 'UnassignTicket'; ticketId: string; actor: TicketActor }
  | { type: 'RecordOutcome'; ticketId: string; actor: TicketActor; outcomeMessage: string }
  | { type: 'DeleteTicket'; ticketId: string; actor: TicketActor }
  | {
      type: 'PostMessage';
      ticketId: string;
      messageId: string;
      actor: TicketActor;
      content: string;
      isInternal: boolean;
      platform: Platform;
      attachments: Attachment[];
      now: Date;
    }
  | { type: 'EditMessage'; ticketId: string; messageId: string; actor: TicketActor; content: string; now: Date }
  | { type: 'MarkMessagesRead'; ticketId: string; actor: TicketActor };

/**
 * The ticket as this actor may know it. A customer asking about someone else's ticket learns
 * nothing, not even that it exists (docs/contract.md: 404, never 403).
 */
function visibleTo(state: TicketState, actor: TicketActor): LiveTicket {
  if (state.kind !== 'live') throw new NotFoundError('Ticket');
  if (!isStaff(actor.role) && state.customerId !== actor.userId) throw new NotFoundError('Ticket');
  return state;
}

/** The ticket, if this actor may see it (404 otherwise) and is staff (403 otherwise). */
export function staffOnly(state: TicketState, actor: TicketActor): LiveTicket {
  const ticket = visibleTo(state, actor);
  if (!isStaff(actor.role)) throw new ForbiddenError('Only agents and admins can do this');
  return ticket;
}

function open(command: Extract<TicketCommand, { type: 'OpenTicket' }>, state: TicketState): TicketEvent[] {
  if (state.kind !== 'none') throw new ConflictError('Ticket already exists', 'TICKET_EXISTS');
  const { category } = command;
  if (!category || !category.isActive)
    throw new ValidationError('Please choose an active category', [{ path: 'category', message: 'Please choose an active category' }]);
  const customFieldValues = answerCustomFields(category.customFields, command.answers);
  const { ticketId, number, title, description, priority, customerId, platform } = command;
  return [
    {
      type: 'TicketOpened',
      data: { ticketId, number, title, description, categoryId: category.categoryId, priority, customerId, customFieldValues, platform },
    },
    ...(command.sla ? [{ type: 'SlaPolicyApplied' as const, data: { ticketId, policy: command.sla } }] : []),
  ];
}

function changeStatus(command: Extract<TicketCommand, { type: 'ChangeTicketStatus' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  if (ticket.status === command.status) return [];
  return [{ type: 'TicketStatusChanged', data: { ticketId: ticket.ticketId, from: ticket.status, to: command.status } }];
}

/**
 * Agents take tickets for themselves; admins assign any active agent or admin. Taking an open
 * ticket starts work on it (status in_progress, docs/product.md section 4); a resolved or closed ticket
 * keeps its status, since reopening it is a decision of its own.
 *
 * The same rule as unassigning (docs/product.md section 6): only the assignee or an admin may let go of a
 * ticket, so an agent cannot take one another agent holds either. The check runs against the state
 * the events are appended to, so of two agents taking a ticket at once the second gets 409.
 */
function assign(command: Extract<TicketCommand, { type: 'AssignTicket' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  const { agent, actor } = command;
  if (!agent || !agent.isActive || !isStaff(agent.role)) {
    throw new ValidationError('Tickets can only be assigned to an active agent or admin', [
      { path: 'agentId', message: 'Tickets can only be assigned to an active agent or admin' },
    ]);
  }
  if (actor.role !== 'admin' && agent.userId !== actor.userId) throw new ForbiddenError('Agents can only assign tickets to themselves');
  if (actor.role !== 'admin' && ticket.assignedAgentId !== null && ticket.assignedAgentId !== actor.userId) {
    throw new ConflictError('This ticket is already assigned to another agent; only that agent or an admin can unassign it', 'TICKET_ALREADY_ASSIGNED');
  }
  const events: TicketEvent[] = [];
  if (ticket.assignedAgentId !== agent.userId) {
    events.push({ type: 'AgentAssignedToTicket', data: { ticketId: ticket.ticketId, agentId: agent.userId, previousAgentId: ticket.assignedAgentId } });
  }
  if (isOpenStatus(ticket.status) && ticket.status !== 'in_progress') {
    events.push({ type: 'TicketStatusChanged', data: { ticketId: ticket.ticketId, from: ticket.status, to: 'in_progress' } });
  }
  return events;
}

function unassign(command: Extract<TicketCommand, { type: 'UnassignTicket' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  if (ticket.assignedAgentId === null) return [];
  if (command.actor.role !== 'admin' && ticket.assignedAgentId !== command.actor.userId) {
    throw new ForbiddenError('Only an admin or the assigned agent can unassign this ticket');
  }
  return [{ type: 'AgentUnassignedFromTicket', data: { ticketId: ticket.ticketId, agentId: ticket.assignedAgentId } }];
}

function recordOutcome(command: Extract<TicketCommand, { type: 'RecordOutcome' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  const outcomeMessage = command.outcomeMessage.trim();
  if (isBlankText(outcomeMessage)) throw new ValidationError('Outcome is required', [{ path: 'outcomeMessage', message: 'Outcome is required' }]);
  if (outcomeMessage.length > OUTCOME_MAX)
    throw new ValidationError(`Outcome must be at most ${OUTCOME_MAX} characters`, [
      { path: 'outcomeMessage', message: `Outcome must be at most ${OUTCOME_MAX} characters` },
    ]);
  if (ticket.outcomeMessage === outcomeMessage) return [];
  return [{ type: 'TicketOutcomeRecorded', data: { ticketId: ticket.ticketId, outcomeMessage, previous: ticket.outcomeMessage } }];
}

function remove(command: Extract<TicketCommand, { type: 'DeleteTicket' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  if (command.actor.role !== 'admin') throw new ForbiddenError('Only admins can delete tickets');
  return [{ type: 'TicketDeleted', data: { ticketId: ticket.ticketId, number: ticket.number, customerId: ticket.customerId } }];
}

function checkText(content: string, required: boolean): void {
  // Zero-width and direction marks alone show nothing: no text, as spaces are none (the bot's messages skip the HTTP schemas).
  if (required && isBlankText(content)) {
    throw new ValidationError('A message needs text or at least one file', [{ path: 'content', message: 'A message needs text or at least one file' }]);
  }
  if (content.length > MESSAGE_MAX)
    throw new ValidationError(`Message must be at most ${MESSAGE_MAX} characters`, [
      { path: 'content', message: `Message must be at most ${MESSAGE_MAX} characters` },
    ]);
}

function refuseClosedToCustomer(ticket: LiveTicket, actor: TicketActor): void {
  if (!isStaff(actor.role) && ticket.status === 'closed') throw new ForbiddenError('This ticket is closed', 'TICKET_CLOSED');
}

function post(command: Extract<TicketCommand, { type: 'PostMessage' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  const { actor, content, isInternal, attachments } = command;
  // A retried post with a caller-chosen id (a Telegram update handled again) is already done.
  if (ticket.messages.has(command.messageId)) return [];
  if (isInternal && !isStaff(actor.role)) throw new ForbiddenError('Only agents and admins can post internal notes');
  refuseClosedToCustomer(ticket, actor);
  checkText(content, attachments.length === 0);
  const hasText = !isBlankText(content);
  return [
    {
      type: 'MessagePosted',
      data: {
        ticketId: ticket.ticketId,
        messageId: command.messageId,
        senderId: actor.userId,
        senderRole: actor.role,
        content: hasText ? content : '',
        messageType: hasText ? 'text' : 'file',
        isInternal,
        platform: command.platform,
        attachments,
        postedAt: command.now.toISOString(),
      },
    },
  ];
}

function edit(command: Extract<TicketCommand, { type: 'EditMessage' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  const message = ticket.messages.get(command.messageId);
  if (!message || !canSeeMessage(command.actor.role, message)) throw new NotFoundError('Message');
  if (message.senderId !== command.actor.userId) throw new ForbiddenError('You can only edit your own messages', 'NOT_MESSAGE_SENDER');
  if (message.messageType !== 'text') throw new ForbiddenError('Only text messages can be edited', 'NOT_EDITABLE');
  if (command.now.getTime() - Date.parse(message.postedAt) > EDIT_WINDOW_MS) {
    throw new ForbiddenError('Messages can only be edited within 5 minutes of sending', 'EDIT_WINDOW_EXPIRED');
  }
  refuseClosedToCustomer(ticket, command.actor);
  checkText(command.content, true);
  if (command.content === message.content) return [];
  return [
    { type: 'MessageEdited', data: { ticketId: ticket.ticketId, messageId: message.messageId, content: command.content, previousContent: message.content } },
  ];
}

/** Marks read everything the reader may see; nothing is recorded when there is nothing new. */
function markRead(command: Extract<TicketCommand, { type: 'MarkMessagesRead' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  const upTo = isStaff(command.actor.role) ? ticket.lastSeq : ticket.lastPublicSeq;
  if (upTo <= (ticket.readMarks[command.actor.userId] ?? 0)) return [];
  return [{ type: 'MessagesRead', data: { ticketId: ticket.ticketId, readerId: command.actor.userId, upTo } }];
}

export function decide(command: TicketCommand, state: TicketState): TicketEvent[] {
  switch (command.type) {
    case 'OpenTicket':
      return open(command, state);
    case 'ChangeTicketStatus':
      return changeStatus(command, state);
    case 'AssignTicket':
      return assign(command, state);
    case 'UnassignTicket':
      return unassign(command, state);
    case 'RecordOutcome':
      return recordOutcome(command, state);
    case 'DeleteTicket':
      return remove(command, state);
    case 'PostMessage':
      return post(command, state);
    case 'EditMessage':
      return edit(command, state);
    case 'MarkMessagesRead':
      return markRead(command, state);
  }
}

export const ticketDecider: Decider<TicketCommand, TicketEvent, TicketState> = { decide, evolve, initialState };
