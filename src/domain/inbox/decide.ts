import { ForbiddenError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { type InboxEvent, type InboxState, evolve, initialState } from './inbox';

/** The handler found the notification in the owner's list: its id and where it was raised. */
export type InboxCommand =
  | { type: 'MarkNotificationRead'; userId: string; actorId: string; notificationId: string; position: number }
  | { type: 'MarkAllNotificationsRead'; userId: string; actorId: string; upTo: number };

/** Only the owner reads their notifications: nobody marks a colleague's. */
function owned(command: InboxCommand): void {
  if (command.actorId !== command.userId) throw new ForbiddenError('You can only mark your own notifications read');
}

export function decide(command: InboxCommand, state: InboxState): InboxEvent[] {
  owned(command);
  switch (command.type) {
    case 'MarkNotificationRead': {
      const { userId, notificationId, position } = command;
      if (position <= state.allReadUpTo || state.read.has(notificationId)) return [];
      return [{ type: 'NotificationMarkedRead', data: { userId, notificationId, position } }];
    }
    case 'MarkAllNotificationsRead': {
      if (command.upTo <= state.allReadUpTo) return [];
      return [{ type: 'AllNotificationsMarkedRead', data: { userId: command.userId, upTo: command.upTo } }];
    }
  }
}

export const inboxDecider: Decider<InboxCommand, InboxEvent, InboxState> = { decide, evolve, initialState };
