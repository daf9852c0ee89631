import type { CustomField } from '#contract/categories';
import type { AppliedPolicy } from '../sla/clock';
import type { Decider } from '../shared/decider';
import { ConflictError, DomainError, ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import { type CustomFieldAnswer, answerCustomFields } from '#contract/customFields';
import { isBlankText, longerThan } from '#contract/text';
import { MENTIONS_MAX } from '#contract/notifications';
import {
  type AssignmentRule,
  type ReturnedToTeam,
  type LiveTicket,
  type MergeCancelled,
  type MessagesMovedOutData,
  type TicketEvent,
  type TicketOpenedData,
  type TicketState,
  canSeeMessage,
  evolve,
  initialState,
} from './ticket';
import {
  type Attachment,
  DIFFERENT_CUSTOMERS_MESSAGE,
  EDIT_WINDOW_MS,
  MESSAGE_MAX,
  OUTCOME_MAX,
  type Platform,
  type Priority,
  TICKET_CLOSED_MESSAGE,
  TAGS_PER_TICKET,
  TITLE_MAX,
  type TicketStatus,
  isOpenStatus,
} from '#contract/tickets';

export interface TicketActor {
  userId: string;
  role: Role;
}

/** What the handler looked up about the chosen category; null when it does not exist. */
export interface CategoryLookup {
  categoryId: string;
  isActive: boolean;
  customFields: CustomField[];
  /** The category's "Route new tickets to team" (docs/teams.md): the active team its new tickets go to. */
  routeTeam?: TeamLookup | null;
}

/** What the handler looked up about a team; null when no such team exists. */
export interface TeamLookup {
  teamId: string;
  name: string;
  archived: boolean;
}

/** What the handler looked up about a would-be assignee; null when no such user exists. */
export interface AgentLookup {
  userId: string;
  role: Role;
  isActive: boolean;
}

/** One step of a macro: what the agent reads when it is refused (`label`), and the command it runs. */
export interface MacroStep {
  label: string;
  command: Extract<TicketCommand, { type: 'PostMessage' | 'ChangeTicketStatus' | 'ChangeTicketPriority' | 'AssignTicket' | 'ChangeTicketTeam' | 'TagTicket' }>;
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
  /**
   * A macro's reply and actions (docs/macros.md): each step decided on the state the steps before it
   * leave, and all appended together or none, so a refused step leaves nothing applied.
   */
  | { type: 'ApplyMacro'; ticketId: string; actor: TicketActor; steps: MacroStep[] }
  | { type: 'AssignTicket'; ticketId: string; actor: TicketActor; agent: AgentLookup | null }
  | { type: 'UnassignTicket'; ticketId: string; actor: TicketActor }
  /** A team's rule gives the ticket the agent its turns stream chose (docs/teams.md); the handler checked the agent. */
  | { type: 'AssignByRule'; ticketId: string; agentId: string; rule: AssignmentRule }
  | { type: 'ReturnToTeam'; ticketId: string; agentId: string; returned: ReturnedToTeam }
  | { type: 'RecordOutcome'; ticketId: string; actor: TicketActor; outcomeMessage: string }
  /** `team` null: the ticket leaves its team; `teamId` what was asked, to name it when unknown. */
  | { type: 'ChangeTicketTeam'; ticketId: string; actor: TicketActor; teamId: string | null; team: TeamLookup | null }
  /**
   * A new priority or category (docs/sla.md): `sla` is the policy for the ticket's category and priority after the
   * change, chosen by the handler for `slaFor`; the decider refuses it if the ticket moved meanwhile.
   */
  /** `absentIsFine`: taking off a tag the ticket lacks records nothing (a macro's removal) instead of 404. */
  | { type: 'TagTicket'; ticketId: string; actor: TicketActor; tag: string; tagged: boolean; absentIsFine?: boolean }
  /** An admin's rename (or merge, `merged`) of a tag across the desk, on one ticket carrying it. */
  | { type: 'RenameTicketTag'; ticketId: string; actor: TicketActor; from: string; to: string; merged: boolean }
  | { type: 'ChangeTicketPriority'; ticketId: string; actor: TicketActor; priority: Priority; sla: PolicyChoice }
  | { type: 'ChangeTicketCategory'; ticketId: string; actor: TicketActor; category: CategoryLookup | null; sla: PolicyChoice }
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
      /** Active staff the handler found for the text's `@username`s; kept on internal notes only. */
      mentions?: string[];
      /** The handler holds the customer's open-ticket claim for this ticket, which a reply that reopens a resolved ticket needs. */
      openTicketClaimed?: boolean;
      /** The name a message from no person is shown under (a rule's: the desk's name). */
      senderName?: string;
    }
  | { type: 'EditMessage'; ticketId: string; messageId: string; actor: TicketActor; content: string; now: Date }
  | { type: 'MarkMessagesRead'; ticketId: string; actor: TicketActor }
  /** To the source: it continues in `target` (the target's state as the handler loaded it). */
  | { type: 'MergeInto'; ticketId: string; actor: TicketActor; target: TicketState; now: Date }
  /**
   * To the target: the source (as it stands after its `TicketMergedInto`) joins it, its next bounded part
   * per command; `reopen` when its customer's open-ticket claim is held for it; `continuing` for the parts after the first.
   */
  | { type: 'MergeFrom'; ticketId: string; actor: TicketActor; source: TicketState; reopen: boolean; now: Date; continuing?: boolean }
  /** To the target, then to the source: the merge of `sourceId` into `targetId` is undone, within `windowMs` of it. */
  | { type: 'UndoMergeFrom'; ticketId: string; actor: TicketActor; sourceId: string }
  | { type: 'UndoMergeInto'; ticketId: string; actor: TicketActor; windowMs: number; now: Date }
  /**
   * To the source whose target went away before taking it (`target`: its state as the handler last
   * loaded it): the merge is taken back; `reopen` when its customer's open-ticket claim is held for it.
   */
  | { type: 'CancelMergeInto'; ticketId: string; actor: TicketActor; target: TicketState; reopen: boolean }
  /**
   * Split: `messageId` (and, with `withFollowing`, the customer's messages after it) leave for a new
   * ticket `newTicketId` titled `title`; an open ticket is resolved, its customer's open ticket now being the new one.
   */
  | { type: 'MoveOut'; ticketId: string; actor: TicketActor; messageId: string; withFollowing: boolean; newTicketId: string; newNumber: number; title: string }
  /**
   * The new ticket of a split, written from the source's `MessagesMovedOut` and its opening; `sla`: the
   * policy for the source's category and priority under the settings as they stand at the split.
   */
  | {
      type: 'OpenSplit';
      ticketId: string;
      actor: TicketActor;
      sourceOpened: TicketOpenedData;
      movedOut: MessagesMovedOutData;
      sla?: AppliedPolicy | null;
    }
  /** Relates this ticket to `other` (the other's state as the handler loaded it), or undoes that; the handler runs it on both. */
  | { type: 'LinkTicket'; ticketId: string; actor: TicketActor; other: TicketState; linked: boolean };

/** The SLA policy a changed ticket follows, and the category and priority it was chosen for. */
interface PolicyChoice {
  policy: AppliedPolicy | null;
  categoryId: string;
  priority: Priority;
}

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
  const route = category.routeTeam && !category.routeTeam.archived ? category.routeTeam : null;
  return [
    {
      type: 'TicketOpened',
      data: { ticketId, number, title, description, categoryId: category.categoryId, priority, customerId, customFieldValues, platform },
    },
    // The category's rule chose the team, in the opening's append: no moment exists when the ticket is in no team.
    ...(route
      ? [
          {
            type: 'TicketTeamChanged' as const,
            data: {
              ticketId,
              teamId: route.teamId,
              teamName: route.name,
              previousTeamId: null,
              previousTeamName: null,
              reason: 'category-routing' as const,
              categoryId: category.categoryId,
            },
          },
        ]
      : []),
    ...(command.sla ? [{ type: 'SlaPolicyApplied' as const, data: { ticketId, policy: command.sla } }] : []),
  ];
}

/** A merged ticket only redirects: its conversation and status go on in the target until the merge is undone. */
function refuseMerged(ticket: LiveTicket): void {
  if (ticket.mergedInto) throw new ConflictError(`This ticket is merged into #${ticket.mergedInto.number}; continue there`, 'TICKET_MERGED');
}

function changeStatus(command: Extract<TicketCommand, { type: 'ChangeTicketStatus' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  refuseMerged(ticket);
  if (ticket.status === command.status) return [];
  return [{ type: 'TicketStatusChanged', data: { ticketId: ticket.ticketId, from: ticket.status, to: command.status } }];
}

/** A refused step keeps its status and code, and says which action it was: `The macro's action "assign to me" was refused: ...`. */
function applyMacro(command: Extract<TicketCommand, { type: 'ApplyMacro' }>, state: TicketState): TicketEvent[] {
  staffOnly(state, command.actor);
  const events: TicketEvent[] = [];
  let current = state;
  for (const [index, step] of command.steps.entries()) {
    let decided: TicketEvent[];
    try {
      decided = decide(step.command, current);
    } catch (error) {
      if (error instanceof DomainError) {
        error.message = `The macro's action "${step.label}" was refused, so nothing was applied: ${error.message}`;
        Object.assign(error.extra, { refusedAction: { index, label: step.label } });
      }
      throw error;
    }
    events.push(...decided);
    current = decided.reduce(evolve, current);
  }
  return events;
}

/**
 * Agents take tickets for themselves; admins assign any active agent or admin. Taking an open
 * ticket starts work on it (status in_progress, docs/product.md section 4); a resolved or closed ticket
 * keeps its status, since reopening it is a decision of its own.
 *
 * The same rule as unassigning (docs/product.md section 6): only the assignee or an admin may let go of a
 * ticket, so an agent cannot take one another agent holds either. The check runs against the state
 * the events are appended to, so of two agents taking a ticket at once the second gets 409. A merged
 * ticket is worked on in its target, so nobody is assigned to it until the merge is undone.
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
  refuseMerged(ticket);
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

/**
 * The rule assigns only a ticket still open and with nobody: an agent who took it first keeps it, and
 * the turns stream releases the claim when it next looks.
 */
function assignByRule(command: Extract<TicketCommand, { type: 'AssignByRule' }>, state: TicketState): TicketEvent[] {
  if (state.kind !== 'live' || !isOpenStatus(state.status) || state.assignedAgentId !== null) return [];
  return [{ type: 'AgentAssignedToTicket', data: { ticketId: state.ticketId, agentId: command.agentId, previousAgentId: null, rule: command.rule } }];
}

/** Returns the ticket to its team only while it is still open, in that team and with that agent: done once, whoever asks again. */
function returnToTeam(command: Extract<TicketCommand, { type: 'ReturnToTeam' }>, state: TicketState): TicketEvent[] {
  if (state.kind !== 'live' || !isOpenStatus(state.status) || state.assignedAgentId !== command.agentId) return [];
  if (state.team?.teamId !== command.returned.teamId) return [];
  return [{ type: 'AgentUnassignedFromTicket', data: { ticketId: state.ticketId, agentId: command.agentId, returned: command.returned } }];
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
  if (longerThan(outcomeMessage, OUTCOME_MAX))
    throw new ValidationError(`Outcome must be at most ${OUTCOME_MAX} characters`, [
      { path: 'outcomeMessage', message: `Outcome must be at most ${OUTCOME_MAX} characters` },
    ]);
  if (ticket.outcomeMessage === outcomeMessage) return [];
  return [{ type: 'TicketOutcomeRecorded', data: { ticketId: ticket.ticketId, outcomeMessage, previous: ticket.outcomeMessage } }];
}

const NO_TEAM = 'Please choose an active team';

/** Staff put a ticket with a team or take it out of one; an archived or unknown team is refused. */
function changeTeam(command: Extract<TicketCommand, { type: 'ChangeTicketTeam' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  refuseMerged(ticket);
  const { team } = command;
  if (command.teamId !== null && (!team || team.archived)) throw new ValidationError(NO_TEAM, [{ path: 'team', message: NO_TEAM }]);
  const next = command.teamId === null ? null : team;
  if ((ticket.team?.teamId ?? null) === (next?.teamId ?? null)) return [];
  return [
    {
      type: 'TicketTeamChanged',
      data: {
        ticketId: ticket.ticketId,
        teamId: next?.teamId ?? null,
        teamName: next?.name ?? null,
        previousTeamId: ticket.team?.teamId ?? null,
        previousTeamName: ticket.team?.name ?? null,
      },
    },
  ];
}

/** Staff put a tag on a ticket or take it off (docs/teams.md); the same tag twice records nothing. */
function tag(command: Extract<TicketCommand, { type: 'TagTicket' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  const has = ticket.tags.includes(command.tag);
  if (!command.tagged) {
    if (!has && command.absentIsFine) return [];
    if (!has) throw new NotFoundError('Tag');
    return [{ type: 'TicketTagRemoved', data: { ticketId: ticket.ticketId, tag: command.tag } }];
  }
  if (has) return [];
  if (ticket.tags.length >= TAGS_PER_TICKET) throw new UnprocessableError(`A ticket can have at most ${TAGS_PER_TICKET} tags`, 'TOO_MANY_TAGS');
  return [{ type: 'TicketTagAdded', data: { ticketId: ticket.ticketId, tag: command.tag } }];
}

/** An admin's rename or merge reaches this ticket: nothing when it no longer carries the tag. */
function renameTicketTag(command: Extract<TicketCommand, { type: 'RenameTicketTag' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  if (command.actor.role !== 'admin') throw new ForbiddenError('Only admins can rename or merge tags');
  const { from, to, merged } = command;
  if (from === to || !ticket.tags.includes(from)) return [];
  return [{ type: 'TicketTagRenamed', data: { ticketId: ticket.ticketId, from, to, merged, alreadyTagged: ticket.tags.includes(to) } }];
}

/**
 * The policy chosen again after a change (docs/sla.md): only for the category and priority the ticket
 * has after it, so a change of the other one in between makes the handler choose again.
 */
function reapplied(ticket: LiveTicket, choice: PolicyChoice, categoryId: string, priority: Priority, reason: 'priority' | 'category'): TicketEvent[] {
  if (choice.categoryId !== categoryId || choice.priority !== priority)
    throw new ConflictError('This ticket was changed at the same moment; please try again', 'CONCURRENT_CHANGE');
  return choice.policy ? [{ type: 'SlaPolicyReapplied', data: { ticketId: ticket.ticketId, policy: choice.policy, reason } }] : [];
}

function changePriority(command: Extract<TicketCommand, { type: 'ChangeTicketPriority' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  refuseMerged(ticket);
  if (ticket.priority === command.priority) return [];
  return [
    { type: 'TicketPriorityChanged', data: { ticketId: ticket.ticketId, priority: command.priority, previous: ticket.priority } },
    ...reapplied(ticket, command.sla, ticket.categoryId, command.priority, 'priority'),
  ];
}

/** A ticket moves to another active category; its custom-field answers stay as the customer gave them. */
function changeCategory(command: Extract<TicketCommand, { type: 'ChangeTicketCategory' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  refuseMerged(ticket);
  const { category } = command;
  if (!category || !category.isActive)
    throw new ValidationError('Please choose an active category', [{ path: 'category', message: 'Please choose an active category' }]);
  if (ticket.categoryId === category.categoryId) return [];
  return [
    { type: 'TicketCategoryChanged', data: { ticketId: ticket.ticketId, categoryId: category.categoryId, previous: ticket.categoryId } },
    ...reapplied(ticket, command.sla, category.categoryId, ticket.priority, 'category'),
  ];
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
  if (longerThan(content, MESSAGE_MAX))
    throw new ValidationError(`Message must be at most ${MESSAGE_MAX} characters`, [
      { path: 'content', message: `Message must be at most ${MESSAGE_MAX} characters` },
    ]);
}

function refuseClosedToCustomer(ticket: LiveTicket, actor: TicketActor): void {
  if (!isStaff(actor.role) && ticket.status === 'closed') throw new ForbiddenError(TICKET_CLOSED_MESSAGE, 'TICKET_CLOSED');
}

/** The statuses a customer's message takes back to open: the desk owes the next move again (docs/tickets.md, reopening). */
const REOPENED_BY_REPLY: readonly TicketStatus[] = ['pending_customer', 'resolved'];

/**
 * The decider's answer when a customer's reply would reopen a resolved ticket and the handler does not
 * hold their open-ticket claim for it: the handler claims it and asks again (a claim is taken only
 * when needed, and a status moved under the handler between its read and the decision is caught here).
 */
export const OPEN_TICKET_CLAIM_NEEDED = 'OPEN_TICKET_CLAIM_NEEDED';

function post(command: Extract<TicketCommand, { type: 'PostMessage' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  const { actor, content, isInternal, attachments } = command;
  // A retried post with a caller-chosen id (a Telegram update handled again) is already done.
  if (ticket.messages.has(command.messageId)) return [];
  if (isInternal && !isStaff(actor.role)) throw new ForbiddenError('Only agents and admins can post internal notes');
  refuseMerged(ticket);
  refuseClosedToCustomer(ticket, actor);
  checkText(content, attachments.length === 0);
  const hasText = !isBlankText(content);
  // A public reply reaches the customer: a colleague is asked in a note, so only a note notifies (docs/notifications.md).
  const mentions = isInternal ? [...new Set(command.mentions ?? [])].filter((userId) => userId !== actor.userId).slice(0, MENTIONS_MAX) : [];
  // A customer's words put the ticket back in front of the desk: in the same append, before the message, so every fold sees it land in an open ticket.
  const reopens = !isStaff(actor.role) && REOPENED_BY_REPLY.includes(ticket.status);
  if (reopens && !isOpenStatus(ticket.status) && !command.openTicketClaimed)
    throw new ConflictError("Reopening this ticket needs its customer's open-ticket claim", OPEN_TICKET_CLAIM_NEEDED);
  return [
    ...(reopens
      ? [
          {
            type: 'TicketStatusChanged' as const,
            data: { ticketId: ticket.ticketId, from: ticket.status, to: 'open' as const, reason: 'customer-replied' as const },
          },
        ]
      : []),
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
        ...(command.senderName ? { senderName: command.senderName } : {}),
        ...(mentions.length > 0 ? { mentions } : {}),
      },
    },
  ];
}

function edit(command: Extract<TicketCommand, { type: 'EditMessage' }>, state: TicketState): TicketEvent[] {
  const ticket = visibleTo(state, command.actor);
  const message = ticket.messages.get(command.messageId);
  if (!message || !canSeeMessage(command.actor.role, message)) throw new NotFoundError('Message');
  if (message.senderId !== command.actor.userId) throw new ForbiddenError('You can only edit your own messages', 'NOT_MESSAGE_SENDER');
  // A copy reads as the message did when the merge or split brought it; the same words stay in the other ticket's history (docs/tickets.md).
  if (message.copy)
    throw new ConflictError('This message was brought here by a merge or a split and keeps the words it had then; it cannot be edited', 'COPIED_MESSAGE');
  if (message.messageType !== 'text') throw new ForbiddenError('Only text messages can be edited', 'NOT_EDITABLE');
  if (command.now.getTime() - Date.parse(message.postedAt) > EDIT_WINDOW_MS) {
    throw new ForbiddenError('Messages can only be edited within 5 minutes of sending', 'EDIT_WINDOW_EXPIRED');
  }
  refuseMerged(ticket);
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

/**
 * Merging rules (docs/tickets.md, merging): staff only; the tickets of one customer, unless an admin
 * merges across customers; neither side merged already (a ticket merged into another redirects, and a
 * chain would hide where the conversation went). A repeated merge of the same pair decides nothing,
 * so a merge interrupted between its two appends is completed by running it again, even once the
 * target has gone (its second half then takes the merge back). The target is as the handler loaded it
 * before this append; the source is as it stands: a target that has been merged into it meanwhile
 * is refused here, before a cycle is written.
 */
function mergeInto(command: Extract<TicketCommand, { type: 'MergeInto' }>, state: TicketState): TicketEvent[] {
  const source = staffOnly(state, command.actor);
  if (command.target.kind !== 'none' && source.mergedInto?.ticketId === command.target.ticketId) return [];
  if (command.target.kind !== 'live') throw new NotFoundError('Target ticket');
  const target = command.target;
  if (target.ticketId === source.ticketId)
    throw new ValidationError('A ticket cannot be merged into itself', [{ path: 'targetId', message: 'A ticket cannot be merged into itself' }]);
  if (source.mergedInto) throw new ConflictError(`This ticket is already merged into #${source.mergedInto.number}`, 'TICKET_MERGED');
  if (target.mergedInto) throw new ConflictError(`Ticket #${target.number} is merged into #${target.mergedInto.number}; merge into that one`, 'TICKET_MERGED');
  // Its own conversation is still growing by a merge's copies: merged on now, those still to come would miss the ticket it goes to.
  const taking = source.mergedFrom.find((link) => link.remaining > 0);
  if (taking) throw new ConflictError(`This ticket is still taking the messages of #${taking.number}; try again in a moment`, 'MERGE_CONFLICT');
  if (source.mergedFrom.some((link) => link.ticketId === target.ticketId))
    throw new ConflictError(`Ticket #${target.number} was merged into this ticket at the same time; nothing was merged`, 'MERGE_CONFLICT');
  if (target.customerId !== source.customerId && command.actor.role !== 'admin') throw new ForbiddenError(DIFFERENT_CUSTOMERS_MESSAGE, 'DIFFERENT_CUSTOMERS');
  // A message moved on from a merge's copy is in both once the merge is undone: one conversation cannot hold it twice.
  if ([...source.messages.keys()].some((id) => target.messages.has(id)))
    throw new ConflictError(
      `#${source.number} and #${target.number} hold the same messages (moved between them by a split); they cannot be merged`,
      'SHARED_MESSAGES',
    );
  return [
    {
      type: 'TicketMergedInto',
      data: {
        ticketId: source.ticketId,
        targetId: target.ticketId,
        targetNumber: target.number,
        targetCustomerId: target.customerId,
        previousStatus: source.status,
        mergedBy: command.actor.userId,
        mergedAt: command.now.toISOString(),
      },
    },
  ];
}

/**
 * Where each reader's mark goes when `count` messages join after `target.lastSeq`: a reader who had
 * read all of the target they may see moves past the joined messages they had read in the source
 * (those up to their mark there), so a merge makes nothing unread that was read; anyone else keeps
 * their mark and finds the joined messages unread, as they find the target's.
 */
function mergedReadMarks(target: LiveTicket, source: LiveTicket, joined: Array<{ sourceSeq: number }>): Record<string, number> {
  const marks: Record<string, number> = {};
  for (const reader of new Set([...Object.keys(target.readMarks), ...Object.keys(source.readMarks)])) {
    const mark = target.readMarks[reader] ?? 0;
    const caughtUp = mark >= (reader === target.customerId ? target.lastPublicSeq : target.lastSeq);
    const readThere = joined.filter(({ sourceSeq }) => sourceSeq <= (source.readMarks[reader] ?? 0)).length;
    if (caughtUp && readThere > 0) marks[reader] = target.lastSeq + joined.findLastIndex(({ sourceSeq }) => sourceSeq <= (source.readMarks[reader] ?? 0)) + 1;
  }
  return marks;
}

/**
 * The most bytes of copied messages one merge event carries: a quarter of the smallest append a
 * production log takes (EventStoreDB and KurrentDB refuse an append over 1 MiB by default), leaving
 * room for the event's other fields and metadata. One message (at most 2000 characters and its files'
 * names) is far below it, so every event holds at least one.
 */
export const MERGE_COPY_BYTES = 256 * 1024;

/** The next items from the start of `items` whose JSON as a list stays within `budget` bytes (at least one). */
function nextBatch<Item>(items: Item[], budget: number): Item[] {
  let bytes = 1;
  let count = 0;
  for (const item of items) {
    bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
    if (count > 0 && bytes > budget) break;
    count += 1;
  }
  return items.slice(0, count);
}

/**
 * The target takes the source's conversation, a bounded event at a time (`MERGE_COPY_BYTES`): the
 * first, `TicketMergedFrom`, carries the merge and the first messages; each `MergedMessagesCopied`
 * the next ones, decided again on the target as it then stands. Running it again after each append
 * decides the next event, and nothing once every message is copied, so a merge cut short anywhere
 * between its appends is completed by running it again. `continuing`: only further messages of a merge
 * already begun (an unmerge between two of its appends ends it, rather than starting it again).
 */
function mergeFrom(command: Extract<TicketCommand, { type: 'MergeFrom' }>, state: TicketState): TicketEvent[] {
  if (state.kind === 'deleted') throw new ConflictError('The ticket to merge into was deleted at the same time; nothing was merged', 'MERGE_CONFLICT');
  const target = staffOnly(state, command.actor);
  if (command.source.kind !== 'live') throw new NotFoundError('Source ticket');
  const source = command.source;
  const link = target.mergedFrom.find((merged) => merged.ticketId === source.ticketId);
  if (link ? link.remaining === 0 : command.continuing) return [];
  if (source.mergedInto?.ticketId !== target.ticketId) throw new ConflictError(`Ticket #${source.number} is not merged into this ticket`, 'NOT_MERGED');
  // Refused, not followed: the source's handler takes its own half back (`CancelMergeInto`). A target that took the source carries it along.
  if (!link && target.mergedInto)
    throw new ConflictError(
      `Ticket #${target.number} was merged into #${target.mergedInto.number} at the same time; nothing was merged, try again`,
      'MERGE_CONFLICT',
    );
  const all = [...source.messages.values()]
    .sort((a, b) => a.seq - b.seq)
    .filter((message) => message.seq > (link?.copiedUpTo ?? 0))
    .map(({ seq, origin: _origin, staffOnly: _staff, copy: _copy, ...message }) => ({ ...message, sourceSeq: seq }));
  const messages = nextBatch(all, MERGE_COPY_BYTES);
  const crossCustomer = source.customerId !== target.customerId;
  const readMarks = mergedReadMarks(target, source, messages);
  const ids = { ticketId: target.ticketId, sourceId: source.ticketId, sourceNumber: source.number };
  if (link) return [{ type: 'MergedMessagesCopied', data: { ...ids, messages, crossCustomer, readMarks } }];
  return [
    {
      type: 'TicketMergedFrom',
      data: {
        ...ids,
        sourceCustomerId: source.customerId,
        mergedBy: command.actor.userId,
        mergedAt: command.now.toISOString(),
        messages,
        ...(all.length > messages.length ? { messageCount: all.length } : {}),
        reopenedFrom: command.reopen && !isOpenStatus(target.status) ? target.status : null,
        crossCustomer,
        readMarks,
      },
    },
  ];
}

/**
 * Undoing a merge, the target first: the copied messages leave it (those written in it since stay);
 * a status the merge reopened goes back while it is still open. Nothing when already undone. The ids
 * of a large merge's copies leave in bounded parts (`MergedMessagesRemoved`, each appended on its
 * own) before the `TicketMergeFromUndone` that ends the merge, so undoing again after a crash between
 * them goes on with the ids left.
 */
function undoMergeFrom(command: Extract<TicketCommand, { type: 'UndoMergeFrom' }>, state: TicketState): TicketEvent[] {
  const target = staffOnly(state, command.actor);
  const link = target.mergedFrom.find(({ ticketId }) => ticketId === command.sourceId);
  if (!link) return [];
  const ids = { ticketId: target.ticketId, sourceId: link.ticketId, sourceNumber: link.number };
  const leaving = nextBatch(link.messageIds, MERGE_COPY_BYTES);
  if (leaving.length < link.messageIds.length) {
    const publicCount = leaving.filter((id) => {
      const message = target.messages.get(id);
      return message !== undefined && !message.isInternal && !message.staffOnly;
    }).length;
    return [{ type: 'MergedMessagesRemoved', data: { ...ids, messageIds: leaving, publicCount } }];
  }
  const restoredStatus = link.reopenedFrom && isOpenStatus(target.status) ? link.reopenedFrom : null;
  return [{ type: 'TicketMergeFromUndone', data: { ...ids, messageIds: link.messageIds, publicCount: link.publicCount, restoredStatus } }];
}

/** Then the source: it stands alone again with the status it had, within the window after the merge. */
function undoMergeInto(command: Extract<TicketCommand, { type: 'UndoMergeInto' }>, state: TicketState): TicketEvent[] {
  const source = staffOnly(state, command.actor);
  const merged = source.mergedInto;
  if (!merged) throw new ConflictError('This ticket is not merged', 'NOT_MERGED');
  if (command.now.getTime() - Date.parse(merged.mergedAt) > command.windowMs)
    throw new ForbiddenError(`A merge can only be undone within ${Math.round(command.windowMs / 86_400_000)} days`, 'UNMERGE_WINDOW_EXPIRED');
  return [
    {
      type: 'TicketMergeIntoUndone',
      data: { ticketId: source.ticketId, targetId: merged.ticketId, targetNumber: merged.number, restoredStatus: merged.previousStatus },
    },
  ];
}

interface ConversationMessage {
  seq: number;
  senderId: string;
  senderRole: Role;
  isInternal: boolean;
  staffOnly?: boolean;
}

/** The position of the last message staff wrote to the customer (an internal note answers nothing); 0 when none. */
const lastPublicReply = (messages: Iterable<ConversationMessage>) =>
  Math.max(0, ...[...messages].filter((message) => isStaff(message.senderRole) && !message.isInternal).map((message) => message.seq));

/**
 * Whether what stays of the ticket leaves the customer's words unanswered: the opening (their first
 * words) or a message of theirs after both the last public staff reply among `staying` and the last
 * resolution (words the desk resolved the ticket after were settled then, such as a "thanks, it works").
 * What another customer's ticket brought (staff only here) is neither a question nor an answer of this customer's.
 */
function leavesQuestionUnanswered(ticket: LiveTicket, staying: ConversationMessage[]): boolean {
  const seen = staying.filter((message) => !message.staffOnly);
  const settled = Math.max(lastPublicReply(seen), ticket.settledSeq);
  return settled === 0 || seen.some((message) => message.senderId === ticket.customerId && !message.isInternal && message.seq > settled);
}

/**
 * Why a target cannot take `sourceId` any more, checked on the target as it stands: it was merged on
 * into another ticket (or is being merged: its own `TicketMergedInto` comes first) or deleted since
 * the source was merged into it. Taking the source then would strand its words in a ticket that only
 * redirects, or close a cycle of tickets that all redirect. Null while it can, or once it has.
 */
export function mergeTargetGone(target: TicketState, sourceId: string): MergeCancelled | null {
  if (target.kind === 'deleted') return { reason: 'target_deleted' };
  if (target.kind !== 'live' || !target.mergedInto || target.mergedFrom.some((link) => link.ticketId === sourceId)) return null;
  return { reason: 'target_merged', targetMergedInto: target.mergedInto.number };
}

/**
 * Takes a merge back on its source when the target went away before taking it (`mergeTargetGone`):
 * the source stands alone again with the status it had, or resolved when that was open and another
 * ticket of its customer holds their open-ticket claim by then. Nothing when the source is no longer
 * merged into that target (undone or taken back already).
 */
function cancelMergeInto(command: Extract<TicketCommand, { type: 'CancelMergeInto' }>, state: TicketState): TicketEvent[] {
  const source = staffOnly(state, command.actor);
  const merged = source.mergedInto;
  if (!merged || command.target.kind === 'none' || command.target.ticketId !== merged.ticketId) return [];
  const cancelled = mergeTargetGone(command.target, source.ticketId);
  if (!cancelled) throw new ConflictError(`Ticket #${merged.number} can still take this ticket; the merge stands`, 'TICKET_MERGED');
  const restoredStatus = isOpenStatus(merged.previousStatus) && !command.reopen ? 'resolved' : merged.previousStatus;
  return [
    {
      type: 'TicketMergeIntoUndone',
      data: { ticketId: source.ticketId, targetId: merged.ticketId, targetNumber: merged.number, restoredStatus, cancelled },
    },
  ];
}

function moveOut(command: Extract<TicketCommand, { type: 'MoveOut' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  refuseMerged(ticket);
  const chosen = ticket.messages.get(command.messageId);
  if (!chosen) throw new NotFoundError('Message');
  if (chosen.staffOnly)
    throw new ConflictError(
      `This message came from another customer's ticket #${chosen.origin} and is for staff only here; it cannot be moved to a ticket of this customer`,
      'MERGED_MESSAGE',
    );
  const title = command.title.trim();
  if (isBlankText(title)) throw new ValidationError('Title is required', [{ path: 'title', message: 'Title is required' }]);
  if (longerThan(title, TITLE_MAX))
    throw new ValidationError(`Title must be at most ${TITLE_MAX} characters`, [{ path: 'title', message: `Title must be at most ${TITLE_MAX} characters` }]);
  const moving = [...ticket.messages.values()]
    .filter(
      (message) => message === chosen || (command.withFollowing && message.seq > chosen.seq && message.senderId === ticket.customerId && !message.staffOnly),
    )
    .sort((a, b) => a.seq - b.seq);
  const staying = [...ticket.messages.values()].filter((message) => !moving.includes(message));
  // A split resolves an open ticket, so the question it leaves behind must have had its answer: resolving it would close an
  // unanswered question (and survey the customer about it). The agent answers it first, or moves it to the new ticket too.
  if (isOpenStatus(ticket.status) && leavesQuestionUnanswered(ticket, staying))
    throw new ConflictError(
      `Moving these messages out resolves #${ticket.number}, and the customer's question left there has no reply yet; answer it first, or move it to the new ticket too`,
      'UNANSWERED_QUESTION',
    );
  const copies = moving.filter((message) => message.copy).map((message) => message.messageId);
  const messages = moving.map(({ seq, origin: _origin, staffOnly: _staff, copy: _copy, ...message }) => ({ ...message, sourceSeq: seq }));
  // The customer waits since their first message after the last public staff reply here: what the new ticket's clocks start from.
  const lastReply = lastPublicReply(ticket.messages.values());
  const waiting = messages.find((message) => message.senderId === ticket.customerId && !message.isInternal && message.sourceSeq > lastReply);
  const events: TicketEvent[] = [
    {
      type: 'MessagesMovedOut',
      data: {
        ticketId: ticket.ticketId,
        newTicketId: command.newTicketId,
        newNumber: command.newNumber,
        title,
        messages,
        publicCount: messages.filter((message) => !message.isInternal).length,
        ...(copies.length > 0 ? { copies } : {}),
        waitingSince: waiting?.postedAt ?? null,
      },
    },
  ];
  if (isOpenStatus(ticket.status)) events.push({ type: 'TicketStatusChanged', data: { ticketId: ticket.ticketId, from: ticket.status, to: 'resolved' } });
  return events;
}

/**
 * Decides nothing once the new ticket exists, so a split cut short between its appends is completed by
 * running it again. The new ticket follows its policy as a ticket opened now would, its clocks started
 * where its customer began waiting among the moved messages, if they were (docs/sla.md).
 */
function openSplit(command: Extract<TicketCommand, { type: 'OpenSplit' }>, state: TicketState): TicketEvent[] {
  if (state.kind !== 'none') return [];
  if (!isStaff(command.actor.role)) throw new ForbiddenError('Only agents and admins can do this');
  const { sourceOpened: source, movedOut, sla } = command;
  // The description is the customer's to read: the first moved message they may see, never an internal note's words.
  const first = movedOut.messages.find((message) => !message.isInternal);
  const startsAt = movedOut.waitingSince ? { startsAt: movedOut.waitingSince } : {};
  return [
    {
      type: 'TicketOpened',
      data: {
        ticketId: movedOut.newTicketId,
        number: movedOut.newNumber,
        title: movedOut.title,
        description: first && !isBlankText(first.content) ? first.content : movedOut.title,
        categoryId: source.categoryId,
        priority: source.priority,
        customerId: source.customerId,
        customFieldValues: [],
        platform: source.platform,
      },
    },
    ...(sla ? [{ type: 'SlaPolicyApplied' as const, data: { ticketId: movedOut.newTicketId, policy: sla, ...startsAt } }] : []),
    { type: 'MessagesMovedIn', data: { ticketId: movedOut.newTicketId, sourceId: source.ticketId, sourceNumber: source.number, messages: movedOut.messages } },
  ];
}

/** Staff relate any two live tickets (of any customers: the link is for staff); nothing when it already is as asked. */
function link(command: Extract<TicketCommand, { type: 'LinkTicket' }>, state: TicketState): TicketEvent[] {
  const ticket = staffOnly(state, command.actor);
  if (command.other.kind !== 'live') throw new NotFoundError('Related ticket');
  const other = command.other;
  if (other.ticketId === ticket.ticketId)
    throw new ValidationError('A ticket cannot be related to itself', [{ path: 'target', message: 'A ticket cannot be related to itself' }]);
  if (ticket.related.includes(other.ticketId) === command.linked) return [];
  const data = { ticketId: ticket.ticketId, otherId: other.ticketId, otherNumber: other.number };
  return [command.linked ? { type: 'TicketLinked', data } : { type: 'TicketUnlinked', data }];
}

export function decide(command: TicketCommand, state: TicketState): TicketEvent[] {
  switch (command.type) {
    case 'OpenTicket':
      return open(command, state);
    case 'ChangeTicketStatus':
      return changeStatus(command, state);
    case 'ApplyMacro':
      return applyMacro(command, state);
    case 'AssignTicket':
      return assign(command, state);
    case 'ReturnToTeam':
      return returnToTeam(command, state);
    case 'AssignByRule':
      return assignByRule(command, state);
    case 'UnassignTicket':
      return unassign(command, state);
    case 'RecordOutcome':
      return recordOutcome(command, state);
    case 'ChangeTicketTeam':
      return changeTeam(command, state);
    case 'TagTicket':
      return tag(command, state);
    case 'RenameTicketTag':
      return renameTicketTag(command, state);
    case 'ChangeTicketPriority':
      return changePriority(command, state);
    case 'ChangeTicketCategory':
      return changeCategory(command, state);
    case 'DeleteTicket':
      return remove(command, state);
    case 'PostMessage':
      return post(command, state);
    case 'EditMessage':
      return edit(command, state);
    case 'MarkMessagesRead':
      return markRead(command, state);
    case 'MergeInto':
      return mergeInto(command, state);
    case 'MergeFrom':
      return mergeFrom(command, state);
    case 'UndoMergeFrom':
      return undoMergeFrom(command, state);
    case 'UndoMergeInto':
      return undoMergeInto(command, state);
    case 'CancelMergeInto':
      return cancelMergeInto(command, state);
    case 'LinkTicket':
      return link(command, state);
    case 'MoveOut':
      return moveOut(command, state);
    case 'OpenSplit':
      return openSplit(command, state);
  }
}

export const ticketDecider: Decider<TicketCommand, TicketEvent, TicketState> = { decide, evolve, initialState };
