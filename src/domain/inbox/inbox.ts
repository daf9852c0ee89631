import type { DomainEvent } from '../shared/decider';

/**
 * A staff member's notifications as they read them (docs/notifications.md, "Mentions"): the notices
 * themselves come from the events that raised them (a note's mentions); this stream records only
 * what its owner marked read, so every change of the list is an event with its actor.
 */
export const inboxStream = (userId: string) => `inbox-${userId}`;

export type InboxEvent =
  /** `position`: where the notification was raised in the log, so a later "all read" can forget it. */
  | DomainEvent<'NotificationMarkedRead', { userId: string; notificationId: string; position: number }>
  /** Every notification raised up to log position `upTo` is read. */
  | DomainEvent<'AllNotificationsMarkedRead', { userId: string; upTo: number }>;

export interface InboxState {
  allReadUpTo: number;
  /** Notifications read one by one after `allReadUpTo`, with their positions. */
  read: ReadonlyMap<string, number>;
}

export const initialState: InboxState = { allReadUpTo: 0, read: new Map() };

export function evolve(state: InboxState, event: InboxEvent): InboxState {
  switch (event.type) {
    case 'NotificationMarkedRead':
      return { ...state, read: new Map([...state.read, [event.data.notificationId, event.data.position]]) };
    case 'AllNotificationsMarkedRead':
      return { allReadUpTo: event.data.upTo, read: new Map([...state.read].filter(([, position]) => position > event.data.upTo)) };
  }
}
