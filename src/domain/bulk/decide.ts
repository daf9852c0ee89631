import { ConflictError, ForbiddenError } from '#contract/errors';
import type { BulkAction, BulkTicketResult } from '#contract/bulk';
import { type Role, isStaff } from '#contract/users';
import type { Decider } from '../shared/decider';
import { type BulkEvent, type BulkState, evolve, initialState } from './bulk';

export type BulkCommand =
  | { type: 'StartBulkChange'; bulkId: string; role: Role; tickets: string[]; action: BulkAction; now: Date }
  | { type: 'CompleteBulkChange'; bulkId: string; results: BulkTicketResult[] };

/** Thrown to the second of two requests that would start one bulk change: it waits for the first's results instead. */
export const BULK_STARTED = 'BULK_STARTED';

function start(command: Extract<BulkCommand, { type: 'StartBulkChange' }>, state: BulkState): BulkEvent[] {
  if (!isStaff(command.role)) throw new ForbiddenError('Only staff can change tickets in bulk');
  if (state.kind !== 'none') throw new ConflictError('This bulk change has already started', BULK_STARTED);
  const { bulkId, tickets, action, now } = command;
  return [{ type: 'BulkChangeStarted', data: { bulkId, tickets, action, startedAt: now.toISOString() } }];
}

/** Completing twice records the first results only: a resumed change that finds them done changes nothing. */
function complete(command: Extract<BulkCommand, { type: 'CompleteBulkChange' }>, state: BulkState): BulkEvent[] {
  if (state.kind !== 'started') return [];
  return [{ type: 'BulkChangeCompleted', data: { bulkId: command.bulkId, results: command.results } }];
}

export function decide(command: BulkCommand, state: BulkState): BulkEvent[] {
  switch (command.type) {
    case 'StartBulkChange':
      return start(command, state);
    case 'CompleteBulkChange':
      return complete(command, state);
  }
}

export const bulkDecider: Decider<BulkCommand, BulkEvent, BulkState> = { decide, evolve, initialState };
