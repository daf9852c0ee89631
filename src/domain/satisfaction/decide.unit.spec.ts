import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import type { DomainEvent } from '../shared/decider';
import { type Rater, type SatisfactionCommand, decide } from './decide';
import type { SatisfactionChannel } from '#contract/satisfaction';
import { type SatisfactionEvent, evolve, initialState } from './satisfaction';

type Given = DomainEvent & { metadata?: { occurredAt: string } };

const given = DeciderSpecification.for({ decide, evolve, initialState });

const T = 't1';
const CUSTOMER: Rater = { userId: 'cust-1', role: 'customer' };
const OTHER_CUSTOMER: Rater = { userId: 'cust-2', role: 'customer' };
const AGENT: Rater = { userId: 'agent-1', role: 'agent' };
const ADMIN: Rater = { userId: 'admin-1', role: 'admin' };
const RESOLVED_AT = new Date('2026-11-21T10:00:00.000Z');
const daysAfter = (days: number) => new Date(RESOLVED_AT.getTime() + days * 24 * 3600 * 1000);

const opened: Given = { type: 'TicketOpened', data: { ticketId: T, customerId: CUSTOMER.userId } };
const status = (from: string, to: string, at = RESOLVED_AT): Given => ({
  type: 'TicketStatusChanged',
  data: { ticketId: T, from, to },
  metadata: { occurredAt: at.toISOString() },
});
const resolved = status('in_progress', 'resolved');
const rated = (score: number, episode = 1, previousScore: number | null = null, channel: SatisfactionChannel = 'web'): SatisfactionEvent => ({
  type: 'SatisfactionRated',
  data: { ticketId: T, episode, score, previousScore, raterId: CUSTOMER.userId, channel },
});
const rate = (score: number, overrides: Partial<SatisfactionCommand> = {}): SatisfactionCommand =>
  ({ type: 'RateTicket', ticketId: T, actor: CUSTOMER, channel: 'web', score, now: daysAfter(1), ...overrides }) as SatisfactionCommand;
const comment = (text: string, overrides: Partial<SatisfactionCommand> = {}): SatisfactionCommand =>
  ({ type: 'CommentOnRating', ticketId: T, actor: CUSTOMER, channel: 'email', comment: text, now: daysAfter(1), ...overrides }) as SatisfactionCommand;

describe('Satisfaction', () => {
  describe('when a ticket is resolved', () => {
    it('records the customer rating of the episode with its channel and rater', () => {
      given([opened, resolved])
        .when(rate(5, { channel: 'telegram' }))
        .then([rated(5, 1, null, 'telegram')]);
    });
    it('refuses a score outside 1 to 5 or not whole', () => {
      given([opened, resolved]).when(rate(0)).thenThrows(ValidationError, 'from 1 to 5');
      given([opened, resolved]).when(rate(6)).thenThrows(ValidationError);
      given([opened, resolved]).when(rate(3.5)).thenThrows(ValidationError);
    });
    it('refuses staff, who cannot rate', () => {
      given([opened, resolved])
        .when(rate(5, { actor: AGENT }))
        .thenThrows(ForbiddenError, 'Only the customer');
      given([opened, resolved])
        .when(rate(5, { actor: ADMIN }))
        .thenThrows(ForbiddenError);
    });
    it('answers 404 to another customer, who must not learn the ticket exists', () => {
      given([opened, resolved])
        .when(rate(5, { actor: OTHER_CUSTOMER }))
        .thenThrows(NotFoundError);
    });
  });

  describe('when the episode has a rating', () => {
    it('changes it, keeping the earlier score', () => {
      given([opened, resolved, rated(2)])
        .when(rate(4, { now: daysAfter(6.9) }))
        .then([rated(4, 1, 2)]);
    });
    it('records nothing for the same score again', () => {
      given([opened, resolved, rated(4)])
        .when(rate(4))
        .then([]);
    });
    it('refuses a change after 7 days', () => {
      given([opened, resolved, rated(2)])
        .when(rate(4, { now: daysAfter(7.01) }))
        .thenThrows(ConflictError, '7 days');
    });
    it('refuses a change once the ticket is closed', () => {
      given([opened, resolved, rated(2), status('resolved', 'closed', daysAfter(1))])
        .when(rate(4, { now: daysAfter(2) }))
        .thenThrows(ConflictError, 'closed');
    });
    it('takes a comment, trimmed, and a changed comment with the earlier one', () => {
      given([opened, resolved, rated(3)])
        .when(comment('  slow but fine  '))
        .then([
          {
            type: 'SatisfactionCommented',
            data: { ticketId: T, episode: 1, comment: 'slow but fine', previousComment: null, raterId: CUSTOMER.userId, channel: 'email' },
          },
        ]);
      const first: SatisfactionEvent = {
        type: 'SatisfactionCommented',
        data: { ticketId: T, episode: 1, comment: 'a', previousComment: null, raterId: CUSTOMER.userId, channel: 'web' },
      };
      given([opened, resolved, rated(3), first])
        .when(comment('b'))
        .then([
          { type: 'SatisfactionCommented', data: { ticketId: T, episode: 1, comment: 'b', previousComment: 'a', raterId: CUSTOMER.userId, channel: 'email' } },
        ]);
    });
    it('refuses an empty comment and one over the message limit', () => {
      given([opened, resolved, rated(3)])
        .when(comment('   '))
        .thenThrows(ValidationError, 'empty');
      given([opened, resolved, rated(3)])
        .when(comment('x'.repeat(2001)))
        .thenThrows(ValidationError, '2000');
      given([opened, resolved, rated(3)])
        .when(comment('x'.repeat(2000)))
        .then([
          {
            type: 'SatisfactionCommented',
            data: { ticketId: T, episode: 1, comment: 'x'.repeat(2000), previousComment: null, raterId: CUSTOMER.userId, channel: 'email' },
          },
        ]);
    });
  });

  describe('when a comment holds a control or bidi character', () => {
    it('refuses NUL and a right-to-left override, whatever the channel, as every text field of the API', () => {
      for (const text of ['fine\u0000', '\u202E=1+1', 'a\u0007b'])
        given([opened, resolved, rated(3)])
          .when(comment(text))
          .thenThrows(ValidationError, 'The comment cannot contain control characters');
    });
  });

  describe('when there is no rating yet', () => {
    it('refuses a comment before the rating', () => {
      given([opened, resolved]).when(comment('hi')).thenThrows(ConflictError, 'Rate the ticket');
    });
    it('refuses a rating for a ticket never resolved', () => {
      given([opened]).when(rate(5)).thenThrows(ConflictError, 'not been resolved');
    });
    it('refuses a rating of a deleted ticket', () => {
      given([opened, resolved, { type: 'TicketDeleted', data: { ticketId: T } }])
        .when(rate(5))
        .thenThrows(NotFoundError);
    });
  });

  describe('when the ticket is reopened', () => {
    it('ends the episode: its link is refused and nothing can be rated until the next resolution', () => {
      const reopened = status('resolved', 'in_progress', daysAfter(1));
      given([opened, resolved, reopened])
        .when(rate(5, { now: daysAfter(2) }))
        .thenThrows(ConflictError, 'reopened');
      given([opened, resolved, reopened])
        .when(rate(5, { now: daysAfter(2), episode: 1 }))
        .thenThrows(ConflictError, 'reopened');
    });
    it('starts a new episode at the next resolution, with its own rating', () => {
      const again = [opened, resolved, rated(1), status('resolved', 'open', daysAfter(1)), status('open', 'resolved', daysAfter(10))];
      given(again)
        .when(rate(5, { now: daysAfter(11), episode: 2 }))
        .then([rated(5, 2)]);
      given(again)
        .when(rate(5, { now: daysAfter(11), episode: 1 }))
        .thenThrows(ConflictError, 'earlier resolution');
      given(again)
        .when(comment('better', { now: daysAfter(11) }))
        .thenThrows(ConflictError, 'Rate the ticket');
    });
  });
});
