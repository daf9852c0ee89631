import { Map as ImmutableMap } from 'immutable';
import type { DomainEvent } from '../shared/decider';
import type { SatisfactionEvent } from '../satisfaction/satisfaction';
import type { AppliedPolicy } from '../sla/clock';
import type { SlaWarningEvent } from '../sla/warnings';
import type { Attachment, CustomFieldValue, Platform, Priority, TicketStatus } from '#contract/tickets';
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
}

export type TicketEvent =
  | DomainEvent<'TicketOpened', TicketOpenedData>
  | DomainEvent<'TicketStatusChanged', { ticketId: string; from: TicketStatus; to: TicketStatus }>
  | DomainEvent<'AgentAssignedToTicket', { ticketId: string; agentId: string; previousAgentId: string | null }>
  | DomainEvent<'AgentUnassignedFromTicket', { ticketId: string; agentId: string }>
  | DomainEvent<'TicketOutcomeRecorded', { ticketId: string; outcomeMessage: string; previous: string | null }>
  | DomainEvent<'TicketDeleted', { ticketId: string; number: number; customerId: string }>
  | DomainEvent<'MessagePosted', MessagePostedData>
  /** Keeps the replaced text, so every earlier version of a message stays in the log. */
  | DomainEvent<'MessageEdited', { ticketId: string; messageId: string; content: string; previousContent: string }>
  /** The reader has seen every message they may see up to `upTo` (a message's position in the conversation). */
  | DomainEvent<'MessagesRead', { ticketId: string; readerId: string; upTo: number }>
  /** The SLA policy the ticket follows from its opening (docs/sla.md): a copy of it, so later settings leave the ticket alone. */
  | DomainEvent<'SlaPolicyApplied', { ticketId: string; policy: AppliedPolicy }>
  | SlaWarningEvent
  /** The customer's rating of a resolution (docs/satisfaction.md): in this stream, changes nothing of the ticket itself. */
  | SatisfactionEvent;

export interface MessageState {
  messageId: string;
  /** 1-based position in the conversation. */
  seq: number;
  senderId: string;
  messageType: 'text' | 'file';
  isInternal: boolean;
  content: string;
  postedAt: string;
}

export interface LiveTicket {
  kind: 'live';
  ticketId: string;
  number: number;
  customerId: string;
  status: TicketStatus;
  assignedAgentId: string | null;
  outcomeMessage: string | null;
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
}

export type TicketState = { kind: 'none' } | LiveTicket | { kind: 'deleted'; ticketId: string };

export const initialState: TicketState = { kind: 'none' };

export function evolve(state: TicketState, event: TicketEvent): TicketState {
  if (event.type === 'TicketOpened') {
    const { ticketId, number, customerId } = event.data;
    return {
      kind: 'live',
      ticketId,
      number,
      customerId,
      status: 'open',
      assignedAgentId: null,
      outcomeMessage: null,
      messages: ImmutableMap(),
      lastSeq: 0,
      lastPublicSeq: 0,
      readMarks: {},
    };
  }
  if (event.type === 'TicketDeleted') return { kind: 'deleted', ticketId: event.data.ticketId };
  if (state.kind !== 'live') return state;
  switch (event.type) {
    case 'TicketStatusChanged':
      return { ...state, status: event.data.to };
    case 'AgentAssignedToTicket':
      return { ...state, assignedAgentId: event.data.agentId };
    case 'AgentUnassignedFromTicket':
      return { ...state, assignedAgentId: null };
    case 'TicketOutcomeRecorded':
      return { ...state, outcomeMessage: event.data.outcomeMessage };
    case 'MessagePosted': {
      const { messageId, senderId, messageType, isInternal, content, postedAt } = event.data;
      const seq = state.lastSeq + 1;
      return {
        ...state,
        messages: state.messages.set(messageId, { messageId, seq, senderId, messageType, isInternal, content, postedAt }),
        lastSeq: seq,
        lastPublicSeq: isInternal ? state.lastPublicSeq : seq,
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
    case 'SlaWarningRaised':
      return state;
  }
}

/** Internal notes are for staff only: a customer never sees one, by any call or socket. */
export const canSeeMessage = (role: Role, message: Pick<MessageState, 'isInternal'>) => isStaff(role) || !message.isInternal;
