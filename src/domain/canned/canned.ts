import type { DomainEvent } from '../shared/decider';

export const cannedStream = (cannedId: string) => `canned-${cannedId}`;

export interface CannedDetails {
  shortcode: string;
  title: string;
  content: string;
  categoryId: string | null;
}

export type CannedEvent =
  | DomainEvent<'CannedMessageCreated', { cannedId: string; createdBy: string } & CannedDetails>
  | DomainEvent<'CannedMessageUpdated', { cannedId: string; changes: Partial<CannedDetails>; previous: Partial<CannedDetails> }>
  /** Someone inserted it into a reply: the usage count and last-used date follow from these. */
  | DomainEvent<'CannedMessageUsed', { cannedId: string; usedBy: string }>
  | DomainEvent<'CannedMessageDeleted', { cannedId: string; shortcode: string }>;

export type CannedState = { status: 'none' } | ({ status: 'active'; cannedId: string } & CannedDetails) | { status: 'deleted'; cannedId: string };

export const initialState: CannedState = { status: 'none' };

export function evolve(state: CannedState, event: CannedEvent): CannedState {
  switch (event.type) {
    case 'CannedMessageCreated': {
      const { cannedId, shortcode, title, content, categoryId } = event.data;
      return { status: 'active', cannedId, shortcode, title, content, categoryId };
    }
    case 'CannedMessageUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes } : state;
    case 'CannedMessageUsed':
      return state;
    case 'CannedMessageDeleted':
      return { status: 'deleted', cannedId: event.data.cannedId };
  }
}
