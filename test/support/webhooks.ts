import type { DeliveryAttempt } from '../../src/domain/webhook/webhook';

/** One delivery attempt of webhook w1 that failed with 500, as the domain and the sender's progress record it. */
export const deliveryAttempt = (position: number, at: string, overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  webhookId: 'w1',
  position,
  eventType: 'MessagePosted',
  subject: 't1',
  statusCode: 500,
  error: null,
  durationMs: 3,
  attempt: 1,
  at,
  manual: false,
  ...overrides,
});
