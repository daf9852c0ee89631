import { DeciderSpecification } from '../../../test/support/decider';
import { ForbiddenError, NotFoundError } from '#contract/errors';
import { type CannedEvent, evolve, initialState } from './canned';
import { decide } from './decide';
import { createCannedSchema, updateCannedSchema } from '#contract/canned';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const DETAILS = { shortcode: 'refund', title: 'Refund issued', content: 'We have refunded your payment.', categoryId: null };
const CREATED: CannedEvent = { type: 'CannedMessageCreated', data: { cannedId: 'c1', createdBy: 'agent-1', ...DETAILS } };
const INPUT = { shortcode: 'refund', title: 'Refund issued', content: 'We have refunded your payment.' };
const firstIssue = (result: { error?: { issues: Array<{ message: string }> } }) => result.error?.issues[0]?.message;

describe('Canned message', () => {
  describe('when created', () => {
    it('records its details and creator', () =>
      given([]).when({ type: 'CreateCannedMessage', cannedId: 'c1', createdBy: 'agent-1', details: DETAILS }).then([CREATED]));

    it('lower-cases the shortcode and drops a leading hash', () =>
      expect(createCannedSchema.parse({ ...INPUT, shortcode: '#Refund_Now' }).shortcode).toBe('refund_now'));

    it('uses the wordings of docs/product.md section 5', () => {
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, shortcode: '' }))).toBe('Shortcode is required');
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, shortcode: 'no way' }))).toBe(
        'Shortcode can only contain lowercase letters, numbers, underscores, and hyphens',
      );
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, shortcode: 'r' }))).toBe('Shortcode must be between 2 and 50 characters');
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, shortcode: 'r'.repeat(51) }))).toBe('Shortcode must be between 2 and 50 characters');
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, title: ' ' }))).toBe('Title is required');
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, title: 't'.repeat(100) }))).toBe('Title must be less than 100 characters');
      expect(createCannedSchema.safeParse({ ...INPUT, title: 't'.repeat(99) }).success).toBe(true);
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, content: '' }))).toBe('Content is required');
      expect(firstIssue(createCannedSchema.safeParse({ ...INPUT, content: 'c'.repeat(2001) }))).toBe('Content must be less than 2000 characters');
      expect(createCannedSchema.safeParse({ ...INPUT, content: 'c'.repeat(2000) }).success).toBe(true);
    });

    it("takes 'none' as no category", () => expect(createCannedSchema.parse({ ...INPUT, category: 'none' }).category).toBeNull());
  });

  describe('when updated', () => {
    it('records only what changed with the earlier values', () =>
      given([CREATED])
        .when({ type: 'UpdateCannedMessage', cannedId: 'c1', changes: { title: 'Refund sent', content: DETAILS.content } })
        .then([{ type: 'CannedMessageUpdated', data: { cannedId: 'c1', changes: { title: 'Refund sent' }, previous: { title: 'Refund issued' } } }]));

    it('can clear the category', () => expect(updateCannedSchema.parse({ category: null })).toEqual({ category: null }));

    it('is not found once deleted', () =>
      given([CREATED, { type: 'CannedMessageDeleted', data: { cannedId: 'c1', shortcode: 'refund' } }])
        .when({ type: 'UpdateCannedMessage', cannedId: 'c1', changes: { title: 'x' } })
        .thenThrows(NotFoundError));
  });

  describe('when used', () => {
    it('records each use', () =>
      given([CREATED])
        .when({ type: 'UseCannedMessage', cannedId: 'c1', usedBy: 'agent-1' })
        .then([{ type: 'CannedMessageUsed', data: { cannedId: 'c1', usedBy: 'agent-1' } }]));
  });

  describe('when deleted', () => {
    it('an admin deletes it', () =>
      given([CREATED])
        .when({ type: 'DeleteCannedMessage', cannedId: 'c1', actorRole: 'admin' })
        .then([{ type: 'CannedMessageDeleted', data: { cannedId: 'c1', shortcode: 'refund' } }]));
    it('an agent may not', () => given([CREATED]).when({ type: 'DeleteCannedMessage', cannedId: 'c1', actorRole: 'agent' }).thenThrows(ForbiddenError));
  });
});
