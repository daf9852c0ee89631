import type { DomainEvent } from '../shared/decider';
import type { BulkAction, BulkTicketResult } from '#contract/bulk';

/** docs/bulk.md: one stream per bulk change, the record that makes a retried or doubled request apply once. */
export const bulkStream = (bulkId: string) => `bulk-${bulkId}`;

export type BulkEvent =
  | DomainEvent<'BulkChangeStarted', { bulkId: string; tickets: string[]; action: BulkAction; startedAt: string }>
  | DomainEvent<'BulkChangeCompleted', { bulkId: string; results: BulkTicketResult[] }>;

export type BulkState =
  | { kind: 'none' }
  | { kind: 'started'; bulkId: string; tickets: string[]; action: BulkAction; startedAt: string }
  | { kind: 'completed'; bulkId: string; action: BulkAction; results: BulkTicketResult[] };

export const initialState: BulkState = { kind: 'none' };

export function evolve(state: BulkState, event: BulkEvent): BulkState {
  switch (event.type) {
    case 'BulkChangeStarted':
      return { kind: 'started', ...event.data };
    case 'BulkChangeCompleted':
      return state.kind === 'started' ? { kind: 'completed', bulkId: state.bulkId, action: state.action, results: event.data.results } : state;
  }
}
