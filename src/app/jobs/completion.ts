import type { Actor } from '../../platform/eventstore/port';

/** Merges and splits to complete if their second append never came: one job per first event, checked after a delay. */
export const COMPLETION_QUEUE = 'completion';

export interface CompletionJob {
  /** Who started it: the rest is written in their name, as their retry would. */
  actor: Actor;
  step:
    { type: 'TicketMergedInto'; sourceId: string; targetId: string } | { type: 'MessagesMovedOut'; sourceId: string; newTicketId: string; messageId: string };
}
