import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError } from '#contract/errors';
import type { BulkAction } from '#contract/bulk';
import { type BulkEvent, evolve, initialState } from './bulk';
import { BULK_STARTED, decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const NOW = new Date('2026-11-28T10:00:00.000Z');
const CLOSE: BulkAction = { type: 'status', status: 'closed' };
const START = { type: 'StartBulkChange' as const, bulkId: 'b1', role: 'agent' as const, tickets: ['t1', 't2'], action: CLOSE, now: NOW };
const STARTED: BulkEvent = { type: 'BulkChangeStarted', data: { bulkId: 'b1', tickets: ['t1', 't2'], action: CLOSE, startedAt: NOW.toISOString() } };
const RESULTS = [
  { _id: 't1', ticketId: 1001, outcome: 'applied' as const },
  { _id: 't2', ticketId: 1002, outcome: 'failed' as const, status: 409, code: 'TICKET_MERGED', error: 'This ticket was merged' },
];
const COMPLETED: BulkEvent = { type: 'BulkChangeCompleted', data: { bulkId: 'b1', results: RESULTS } };

describe('Bulk change', () => {
  it('when staff start one, then it records the tickets and the action', () => given([]).when(START).then([STARTED]));

  it('when a customer starts one, then it is refused', () =>
    given([])
      .when({ ...START, role: 'customer' })
      .thenThrows(ForbiddenError));

  it('when it has already started, then a second start is a conflict the caller waits on', () =>
    given([STARTED]).when(START).thenThrowsCode(ConflictError, BULK_STARTED));

  it('when completed, then the results per ticket are recorded', () =>
    given([STARTED]).when({ type: 'CompleteBulkChange', bulkId: 'b1', results: RESULTS }).then([COMPLETED]));

  it('when completed twice, then the first results stay', () =>
    given([STARTED, COMPLETED]).when({ type: 'CompleteBulkChange', bulkId: 'b1', results: [] }).then([]));
});
