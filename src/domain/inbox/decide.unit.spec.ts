import { ForbiddenError } from '#contract/errors';
import { DeciderSpecification } from '../../../test/support/decider';
import type { InboxEvent } from './inbox';
import { decide } from './decide';
import { evolve, initialState } from './inbox';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const ANA = 'ana';
const markOne = (notificationId: string, position: number, actorId = ANA) =>
  ({ type: 'MarkNotificationRead', userId: ANA, actorId, notificationId, position }) as const;
const markAll = (upTo: number, actorId = ANA) => ({ type: 'MarkAllNotificationsRead', userId: ANA, actorId, upTo }) as const;
const readOne = (notificationId: string, position: number): InboxEvent => ({
  type: 'NotificationMarkedRead',
  data: { userId: ANA, notificationId, position },
});
const readAll = (upTo: number): InboxEvent => ({ type: 'AllNotificationsMarkedRead', data: { userId: ANA, upTo } });

describe('Inbox', () => {
  describe('when a notification is marked read', () => {
    it('records it once', () => {
      given([])
        .when(markOne('m1', 10))
        .then([readOne('m1', 10)]);
      given([readOne('m1', 10)])
        .when(markOne('m1', 10))
        .then([]);
    });

    it('records nothing for one an earlier "all read" covered', () => {
      given([readAll(12)])
        .when(markOne('m1', 10))
        .then([]);
      given([readAll(12)])
        .when(markOne('m2', 14))
        .then([readOne('m2', 14)]);
    });

    it("refuses a colleague's", () => {
      given([])
        .when(markOne('m1', 10, 'bob'))
        .thenThrows(ForbiddenError, 'You can only mark your own notifications read');
    });
  });

  describe('when all are marked read', () => {
    it('records the position they reach, and nothing when an earlier mark reached as far', () => {
      given([])
        .when(markAll(20))
        .then([readAll(20)]);
      given([readAll(20)])
        .when(markAll(20))
        .then([]);
      given([readAll(20)])
        .when(markAll(30))
        .then([readAll(30)]);
    });

    it("refuses a colleague's", () => {
      given([]).when(markAll(20, 'bob')).thenThrows(ForbiddenError);
    });
  });
});
