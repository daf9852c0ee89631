import { Map as ImmutableMap } from 'immutable';
import type { DomainEvent } from '../shared/decider';
import type { SatisfactionEvent } from '../satisfaction/satisfaction';
import type { AppliedPolicy } from '../sla/clock';
import type { SlaWarningEvent } from '../sla/warnings';
import type { RuleMode } from '../teamTurns/teamTurns';
import type { Attachment, CustomFieldValue, Platform, Priority, StatusChangeReason, TicketStatus } from '#contract/tickets';
import type { RuleEvent as RuleEventKind } from '#contract/rules';
import { type Role, isStaff } from '#contract/users';

/** One stream per ticket holds its whole life, conversation included: what an auditor replays. */
export const ticketStream = (ticketId: string) => `ticket-${ticketId}`;

/** Display numbers: event n of this stream allocates number 1001 + n to a ticket id (docs/contract.md starts at 1001). */
export const TICKET_NUMBER_STREAM = 'sequence-ticket-number';
export const FIRST_TICKET_NUMBER = 1001;

export interface TicketOpenedData {
  ticketId: string;
  /** The display number (`ticketId` in docs/contract.md), allocated from the ticket-number sequence. */
  number: number;
  title: string;
  description: string;
  categoryId: string;
  priority: Priority;
  customerId: string;
  customFieldValues: CustomFieldValue[];
  platform: Platform;
}

export interface MessagePostedData {
  ticketId: string;
  messageId: string;
  senderId: string;
  senderRole: Role;
  content: string;
  messageType: 'text' | 'file';
  isInternal: boolean;
  platform: Platform;
  attachments: Attachment[];
  /** The decision time, kept in the data because the edit window is measured from it. */
  postedAt: string;
  /** Shown as the sender of a message no person wrote: a rule's messages carry the desk's name (docs/automation.md). */
  senderName?: string;
  /**
   * The colleagues an internal note names with `@username` (docs/notifications.md, "Mentions"), as
   * user ids; only internal notes carry them, so they are seen wherever the note is, and nowhere else.
   */
  mentions?: string[];
}

export interface ReturnedToTeam {
  teamId: string;
  teamName: string;
  reason: 'offline';
  graceSeconds: number;
}

/** A ticket's tags after a rename or merge: `to` where `from` was, never twice. */
export const renameTag = (tags: string[], { from, to }: { from: string; to: string }) =>
  tags.includes(to) ? tags.filter((tag) => tag !== from) : tags.map((tag) => (tag === from ? to : tag));

export type TicketEvent =
  | DomainEvent<'TicketOpened', TicketOpenedData>
  /** `reason` when nobody chose the status: the customer's reply reopened the ticket (appended before that `MessagePosted`). */
  | DomainEvent<'TicketStatusChanged', { ticketId: string; from: TicketStatus; to: TicketStatus; reason?: StatusChangeReason }>
  /** `rule`: a team's automatic assignment chose the agent (docs/teams.md), the actor being the system. */
  | DomainEvent<'AgentAssignedToTicket', { ticketId: string; agentId: string; previousAgentId: string | null; rule?: AssignmentRule }>
  /** `returned`: the system gave the ticket back to its team, its agent Offline past the grace period (docs/teams.md). */
  | DomainEvent<'AgentUnassignedFromTicket', { ticketId: string; agentId: string; returned?: ReturnedToTeam }>
  | DomainEvent<'TicketOutcomeRecorded', { ticketId: string; outcomeMessage: string; previous: string | null }>
  /**
   * The team the ticket is with (docs/teams.md), names carried so the history reads without the team's
   * stream. `reason: 'category-routing'`: the category's "Route new tickets to team" chose it, appended with the opening.
   */
  | DomainEvent<'TicketTeamChanged', TicketTeamChangedData>
  /** A tag staff put on the ticket or took off it (docs/teams.md): staff's, as the team. */
  | DomainEvent<'TicketTagAdded', { ticketId: string; tag: string }>
  | DomainEvent<'TicketTagRemoved', { ticketId: string; tag: string }>
  /**
   * An admin renamed a tag across the desk, or merged it into another (docs/teams.md): `from` leaves the
   * ticket and `to` takes its place, unless the ticket carried `to` already (`alreadyTagged`: `from` just goes).
   */
  | DomainEvent<'TicketTagRenamed', { ticketId: string; from: string; to: string; merged: boolean; alreadyTagged: boolean }>
  | DomainEvent<'TicketPriorityChanged', { ticketId: string; priority: Priority; previous: Priority }>
  | DomainEvent<'TicketCategoryChanged', { ticketId: string; categoryId: string; previous: string }>
  /**
   * The SLA policy chosen again after a change of priority or category (docs/sla.md): running episodes keep
   * the business time they counted and take the new targets; decided ones stay as they were.
   */
  | DomainEvent<'SlaPolicyReapplied', { ticketId: string; policy: AppliedPolicy; reason: 'priority' | 'category' }>
  | DomainEvent<'TicketDeleted', { ticketId: string; number: number; customerId: string }>
  | DomainEvent<'MessagePosted', MessagePostedData>
  /** Keeps the replaced text, so every earlier version of a message stays in the log. */
  | DomainEvent<'MessageEdited', { ticketId: string; messageId: string; content: string; previousContent: string }>
  /** The reader has seen every message they may see up to `upTo` (a message's position in the conversation). */
  | DomainEvent<'MessagesRead', { ticketId: string; readerId: string; upTo: number }>
  /**
   * The SLA policy the ticket follows from its opening (docs/sla.md): a copy of it, so later settings
   * leave the ticket alone. `startsAt`: where its clocks start when not at this event (a split ticket's
   * customer already waiting since then).
   */
  | DomainEvent<'SlaPolicyApplied', { ticketId: string; policy: AppliedPolicy; startsAt?: string }>
  | SlaWarningEvent
  /** The customer's rating of a resolution (docs/satisfaction.md): in this stream, changes nothing of the ticket itself. */
  | SatisfactionEvent
  /** This ticket (the source) now continues in `targetId` (docs/tickets.md, merging): it is closed and redirects there. */
  | DomainEvent<'TicketMergedInto', TicketMergedIntoData>
  /** The source's conversation joins this ticket (the target), copied into this stream so that it replays and time-travels alone. */
  | DomainEvent<'TicketMergedFrom', TicketMergedFromData>
  /**
   * More of the source's messages of a merge whose copy did not fit one event (`TicketMergedFrom` names
   * how many it brings in all): each such event is bounded in size, appended after the one before.
   */
  | DomainEvent<'MergedMessagesCopied', MergedMessagesCopiedData>
  /** The merge is undone on the target: the copied messages leave it; a status the merge changed goes back. */
  | DomainEvent<
      'TicketMergeFromUndone',
      /** `publicCount`: how many of the messages its customer could see here. */
      { ticketId: string; sourceId: string; sourceNumber: number; messageIds: string[]; publicCount: number; restoredStatus: TicketStatus | null }
    >
  /** Part of an undone large merge's copies leave this ticket (the rest, and the end of the merge, follow in `TicketMergeFromUndone`). */
  | DomainEvent<'MergedMessagesRemoved', { ticketId: string; sourceId: string; sourceNumber: number; messageIds: string[]; publicCount: number }>
  /** The merge is undone on the source: it stands alone again with the status it had. */
  /**
   * Split (docs/tickets.md): messages leave this ticket for a new one, carried whole with the new
   * ticket's title, so that the new ticket can be written from this event alone if its append was cut short.
   */
  | DomainEvent<'MessagesMovedOut', MessagesMovedOutData>
  /** The new ticket of a split receives the moved messages as its own conversation. */
  | DomainEvent<'MessagesMovedIn', { ticketId: string; sourceId: string; sourceNumber: number; messages: MergedMessage[] }>
  /** "Related tickets" without merging: recorded on both tickets, each naming the other. */
  | DomainEvent<'TicketLinked', { ticketId: string; otherId: string; otherNumber: number }>
  | DomainEvent<'TicketUnlinked', { ticketId: string; otherId: string; otherNumber: number }>
  | DomainEvent<'TicketMergeIntoUndone', TicketMergeIntoUndoneData>
  /**
   * A rule's conditions held on this ticket for a triggering event (docs/automation.md): appended with the
   * changes the rule made, which follow it in the same append. Its `(rule.id, trigger.position)` is the
   * claim that makes a rule run once per triggering event, whichever process and however often it is tried.
   */
  | DomainEvent<'RuleFired', RuleFiredData>
  /** A chain of rules reached its bound: the rules that would have run next did not (docs/automation.md, no loops). */
  | DomainEvent<'RuleChainStopped', { ticketId: string; trigger: RuleTriggerRef; depth: number; rules: RuleRef[] }>;

export interface RuleRef {
  id: string;
  name: string;
  version: number;
}

/**
 * The event a rule ran for: its id, its place in the log and what kind of event it was. For a time
 * rule (`event: 'time'`) it is the event that made the ticket match, where its wait started.
 */
export interface RuleTriggerRef {
  eventId: string;
  position: number;
  event: RuleEventKind | 'time';
}

/** A notice a rule sent to staff, with the names as they were. */
export type RuleNotice = { to: 'team'; teamId: string; teamName: string; text: string } | { to: 'agent'; agentId: string; text: string };

export interface RuleFiredData {
  ticketId: string;
  number: number;
  rule: RuleRef;
  trigger: RuleTriggerRef;
  /** 1 for an event people made; one more for each rule in the chain before. */
  depth: number;
  /** The event and conditions that held, in words. */
  matched: string[];
  /** Actions refused on this ticket (a rule runs what it can): each with the reason. */
  skipped: Array<{ label: string; reason: string }>;
  notify: RuleNotice[];
}

interface TicketTeamChangedData {
  ticketId: string;
  teamId: string | null;
  teamName: string | null;
  previousTeamId: string | null;
  previousTeamName: string | null;
  reason?: 'category-routing';
  /** With `category-routing`: the category whose rule routed the ticket. */
  categoryId?: string;
}

export interface MessagesMovedOutData {
  ticketId: string;
  newTicketId: string;
  newNumber: number;
  title: string;
  messages: MergedMessage[];
  /** How many of them its customer could see here. */
  publicCount: number;
  /** Those of them that were copies here (brought by a merge or a split, kept under `<ticket>~<message>` in the read model); absent when none. */
  copies?: string[];
  /**
   * When the customer began waiting among them: the earliest moved message of the customer that no
   * public staff reply followed here; null when none waits (absent in splits recorded before it was kept).
   */
  waitingSince?: string | null;
}

/**
 * Why a merge was taken back on its source without anyone asking (docs/tickets.md, merges under
 * races): its target went away before taking it, merged on into another ticket or deleted meanwhile.
 */
export type MergeCancelled = { reason: 'target_merged'; targetMergedInto: number } | { reason: 'target_deleted' };

interface TicketMergeIntoUndoneData {
  ticketId: string;
  targetId: string;
  targetNumber: number;
  restoredStatus: TicketStatus;
  /** Set when the merge could not be completed and was taken back; absent for an unmerge staff asked for. */
  cancelled?: MergeCancelled;
}

interface TicketMergedIntoData {
  ticketId: string;
  targetId: string;
  targetNumber: number;
  targetCustomerId: string;
  /** The status before the merge, which an unmerge gives back. */
  previousStatus: TicketStatus;
  mergedBy: string;
  mergedAt: string;
}

/** A source message as it reads at the merge (its latest text), with its place in the source. */
export interface MergedMessage extends Omit<MessagePostedData, 'ticketId'> {
  sourceSeq: number;
}

interface MergedMessagesCopiedData {
  ticketId: string;
  sourceId: string;
  sourceNumber: number;
  /** The next of the source's messages in its order, each taking the next position of this conversation. */
  messages: MergedMessage[];
  crossCustomer: boolean;
  /** Read marks moved past these messages, by the rule of the merge's first event, applied to them. */
  readMarks: Record<string, number>;
}

interface TicketMergedFromData {
  ticketId: string;
  sourceId: string;
  sourceNumber: number;
  sourceCustomerId: string;
  mergedBy: string;
  mergedAt: string;
  /** The source's messages in its order (the first of them, when `messageCount` says more follow); each takes the next position of this conversation. */
  messages: MergedMessage[];
  /** How many messages the merge brings in all, when more than `messages` (the rest follow in `MergedMessagesCopied` events). */
  messageCount?: number;
  /** The status before the merge when the merge reopened this ticket, else null. */
  reopenedFrom: TicketStatus | null;
  /**
   * An admin merged another customer's ticket: its messages are for staff only here, so a customer
   * never sees another customer's words through a merge.
   */
  crossCustomer: boolean;
  /** Read marks moved past the copied messages that each reader had read in the source (see `mergedReadMarks`). */
  readMarks: Record<string, number>;
}

interface MessageState extends Omit<MessagePostedData, 'ticketId'> {
  /** 1-based position in the conversation. */
  seq: number;
  /** The number of the ticket a merged message came from. */
  origin?: number;
  /** Merged from another customer's ticket: staff only here. */
  staffOnly?: boolean;
  /** Brought by a merge or a split: the read model keeps it under a record id of its own (`<ticket>~<message>`). */
  copy?: true;
}

interface MergeLink {
  ticketId: string;
  number: number;
}

/** The team rule that chose an agent: the team as named then and its mode. */
export interface AssignmentRule {
  teamId: string;
  teamName: string;
  mode: RuleMode;
}

export interface LiveTicket {
  kind: 'live';
  ticketId: string;
  number: number;
  customerId: string;
  status: TicketStatus;
  assignedAgentId: string | null;
  /** Whether a team rule has assigned it once: an unassigned ticket so marked no longer waits for its rule's agent. */
  assignedByRule: boolean;
  outcomeMessage: string | null;
  categoryId: string;
  priority: Priority;
  team: { teamId: string; name: string } | null;
  tags: string[];
  /**
   * The conversation by message id, in a persistent map: a post or an edit makes a new state that
   * shares all but a few nodes with the one before, so a command's cost does not grow with the
   * conversation (an array was copied whole at every message, then searched from its start).
   */
  messages: ImmutableMap<string, MessageState>;
  /** The position of the last message, and of the last one a customer sees (not an internal note). */
  lastSeq: number;
  lastPublicSeq: number;
  /** Per reader, the last conversation position they have read. */
  readMarks: Record<string, number>;
  /** The conversation position when the ticket was last resolved or closed: the customer's words up to it were settled then. */
  settledSeq: number;
  /** Set while this ticket is merged into another (it redirects there). */
  mergedInto: (MergeLink & { previousStatus: TicketStatus; mergedAt: string }) | null;
  /** The tickets merged into this one, with the ids of the messages each brought. */
  /** Messages split out of this ticket: message id to the ticket they went to. */
  movedOut: Record<string, MergeLink>;
  /** Related tickets by id (both directions, each side records its own). */
  related: string[];
  mergedFrom: Array<
    MergeLink & {
      messageIds: string[];
      publicCount: number;
      reopenedFrom: TicketStatus | null;
      /** The source position of the last message copied, and how many are still to come (0: the merge is complete). */
      copiedUpTo: number;
      remaining: number;
    }
  >;
}

export type TicketState = { kind: 'none' } | LiveTicket | { kind: 'deleted'; ticketId: string };

export const initialState: TicketState = { kind: 'none' };

export function evolve(state: TicketState, event: TicketEvent): TicketState {
  if (event.type === 'TicketOpened') {
    const { ticketId, number, customerId, categoryId, priority } = event.data;
    return {
      kind: 'live',
      ticketId,
      number,
      customerId,
      status: 'open',
      assignedAgentId: null,
      assignedByRule: false,
      outcomeMessage: null,
      categoryId,
      priority,
      team: null,
      tags: [],
      messages: ImmutableMap(),
      lastSeq: 0,
      lastPublicSeq: 0,
      readMarks: {},
      settledSeq: 0,
      mergedInto: null,
      mergedFrom: [],
      related: [],
      movedOut: {},
    };
  }
  if (event.type === 'TicketDeleted') return { kind: 'deleted', ticketId: event.data.ticketId };
  if (state.kind !== 'live') return state;
  switch (event.type) {
    case 'TicketStatusChanged': {
      const { to } = event.data;
      return { ...state, status: to, ...(to === 'resolved' || to === 'closed' ? { settledSeq: state.lastSeq } : {}) };
    }
    case 'AgentAssignedToTicket':
      return { ...state, assignedAgentId: event.data.agentId, assignedByRule: state.assignedByRule || event.data.rule !== undefined };
    case 'AgentUnassignedFromTicket':
      return { ...state, assignedAgentId: null };
    case 'TicketOutcomeRecorded':
      return { ...state, outcomeMessage: event.data.outcomeMessage };
    case 'TicketTeamChanged': {
      const { teamId, teamName } = event.data;
      return { ...state, team: teamId === null ? null : { teamId, name: teamName ?? '' } };
    }
    case 'TicketPriorityChanged':
      return { ...state, priority: event.data.priority };
    case 'TicketTagAdded':
      return { ...state, tags: [...state.tags, event.data.tag] };
    case 'TicketTagRemoved':
      return { ...state, tags: state.tags.filter((tag) => tag !== event.data.tag) };
    case 'TicketTagRenamed':
      return { ...state, tags: renameTag(state.tags, event.data) };
    case 'TicketCategoryChanged':
      return { ...state, categoryId: event.data.categoryId };
    case 'MessagePosted': {
      const { ticketId: _ticket, ...message } = event.data;
      const seq = state.lastSeq + 1;
      return {
        ...state,
        messages: state.messages.set(message.messageId, { ...message, seq }),
        lastSeq: seq,
        lastPublicSeq: message.isInternal ? state.lastPublicSeq : seq,
      };
    }
    case 'MessageEdited': {
      const message = state.messages.get(event.data.messageId);
      return message ? { ...state, messages: state.messages.set(message.messageId, { ...message, content: event.data.content }) } : state;
    }
    case 'MessagesRead':
      return { ...state, readMarks: { ...state.readMarks, [event.data.readerId]: event.data.upTo } };
    case 'SatisfactionRated':
    case 'SatisfactionCommented':
    case 'SlaPolicyApplied':
    case 'SlaPolicyReapplied':
    case 'SlaWarningRaised':
    case 'RuleFired':
    case 'RuleChainStopped':
      return state;
    case 'TicketMergedInto': {
      const { targetId, targetNumber, previousStatus, mergedAt } = event.data;
      return { ...state, status: 'closed', mergedInto: { ticketId: targetId, number: targetNumber, previousStatus, mergedAt } };
    }
    case 'TicketMergedFrom': {
      const { sourceId, sourceNumber, messages, reopenedFrom, messageCount } = event.data;
      const link = {
        ticketId: sourceId,
        number: sourceNumber,
        messageIds: [],
        publicCount: 0,
        reopenedFrom,
        copiedUpTo: 0,
        remaining: messageCount ?? messages.length,
      };
      return copyMerged({ ...state, status: reopenedFrom ? 'open' : state.status, mergedFrom: [...state.mergedFrom, link] }, event.data);
    }
    case 'MergedMessagesCopied':
      return copyMerged(state, event.data);
    case 'TicketMergeFromUndone':
      return {
        ...state,
        status: event.data.restoredStatus ?? state.status,
        messages: state.messages.deleteAll(event.data.messageIds),
        mergedFrom: state.mergedFrom.filter((link) => link.ticketId !== event.data.sourceId),
      };
    case 'MergedMessagesRemoved': {
      const leaving = new Set(event.data.messageIds);
      return {
        ...state,
        messages: state.messages.deleteAll(event.data.messageIds),
        mergedFrom: state.mergedFrom.map((link) =>
          link.ticketId === event.data.sourceId
            ? { ...link, messageIds: link.messageIds.filter((id) => !leaving.has(id)), publicCount: link.publicCount - event.data.publicCount }
            : link,
        ),
      };
    }
    case 'TicketMergeIntoUndone':
      return { ...state, status: event.data.restoredStatus, mergedInto: null };
    case 'MessagesMovedOut': {
      const ids = event.data.messages.map((message) => message.messageId);
      const to = { ticketId: event.data.newTicketId, number: event.data.newNumber };
      // Merged copies moved on are no longer the merge's to take back: an unmerge leaves them where they went.
      const moved = new Set(ids);
      const publicMoved = new Set(event.data.messages.filter((message) => !message.isInternal).map((message) => message.messageId));
      const mergedFrom = state.mergedFrom.map((link) =>
        link.messageIds.some((id) => moved.has(id))
          ? {
              ...link,
              messageIds: link.messageIds.filter((id) => !moved.has(id)),
              publicCount: link.publicCount - link.messageIds.filter((id) => publicMoved.has(id)).length,
            }
          : link,
      );
      return {
        ...state,
        messages: state.messages.deleteAll(ids),
        movedOut: { ...state.movedOut, ...Object.fromEntries(ids.map((id) => [id, to])) },
        mergedFrom,
      };
    }
    case 'MessagesMovedIn': {
      let { lastSeq, lastPublicSeq } = state;
      let conversation = state.messages;
      for (const { sourceSeq: _at, ...message } of event.data.messages) {
        lastSeq += 1;
        if (!message.isInternal) lastPublicSeq = lastSeq;
        conversation = conversation.set(message.messageId, { ...message, seq: lastSeq, copy: true });
      }
      return { ...state, messages: conversation, lastSeq, lastPublicSeq };
    }
    case 'TicketLinked':
      return { ...state, related: [...state.related, event.data.otherId] };
    case 'TicketUnlinked':
      return { ...state, related: state.related.filter((id) => id !== event.data.otherId) };
  }
}

/** Copied messages of a merge join the conversation at its next positions, and are counted on the merge's link. */
function copyMerged(state: LiveTicket, copy: MergedMessagesCopiedData): LiveTicket {
  const { sourceId, sourceNumber, messages, readMarks, crossCustomer } = copy;
  let { lastSeq, lastPublicSeq } = state;
  let conversation = state.messages;
  for (const { sourceSeq: _at, ...message } of messages) {
    lastSeq += 1;
    if (!message.isInternal && !crossCustomer) lastPublicSeq = lastSeq;
    conversation = conversation.set(message.messageId, {
      ...message,
      seq: lastSeq,
      origin: sourceNumber,
      copy: true,
      ...(crossCustomer ? { staffOnly: true } : {}),
    });
  }
  // A message moved out of here earlier and now merged back is here again, not "moved".
  const back = new Set(messages.map((message) => message.messageId));
  const publicCount = crossCustomer ? 0 : messages.filter((m) => !m.isInternal).length;
  return {
    ...state,
    movedOut: Object.fromEntries(Object.entries(state.movedOut).filter(([id]) => !back.has(id))),
    messages: conversation,
    lastSeq,
    lastPublicSeq,
    readMarks: { ...state.readMarks, ...readMarks },
    mergedFrom: state.mergedFrom.map((link) =>
      link.ticketId === sourceId
        ? {
            ...link,
            messageIds: [...link.messageIds, ...messages.map((m) => m.messageId)],
            publicCount: link.publicCount + publicCount,
            copiedUpTo: messages.at(-1)?.sourceSeq ?? link.copiedUpTo,
            remaining: Math.max(0, link.remaining - messages.length),
          }
        : link,
    ),
  };
}

/** Internal notes are for staff only: a customer never sees one, by any call or socket. */
export const canSeeMessage = (role: Role, message: { isInternal: boolean; staffOnly?: boolean }) =>
  isStaff(role) || (!message.isInternal && !message.staffOnly);
