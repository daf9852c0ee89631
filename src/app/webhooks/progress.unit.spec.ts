import { deliveryAttempt as attempt } from '../../../test/support/webhooks';
import { type LiveWebhook, evolveWebhook, initialWebhookState } from '../../domain/webhook/webhook';
import { type WebhookProgress, afterAttempt, progressOf } from './progress';

const WEBHOOK = evolveWebhook(initialWebhookState, {
  type: 'WebhookRegistered',
  data: { webhookId: 'w1', url: 'https://example.com/', types: [], includeNotes: false, startAfter: 10 },
}) as LiveWebhook;
const NOTHING_DURABLE = { cursor: null, redelivered: null };
const START = progressOf(WEBHOOK, null, NOTHING_DURABLE);

describe('Webhook delivery progress', () => {
  it('when a delivery fails, then the cursor stays and the retry keeps when the failing began; a success moves the cursor and clears it', () => {
    const first = afterAttempt(START, attempt(11, '2026-01-01T00:00:00Z'), false, '2026-01-01T00:00:10Z');
    const failing = afterAttempt(first, attempt(11, '2026-01-01T00:00:10Z', { attempt: 2 }), false, '2026-01-01T00:00:30Z');
    expect(failing).toMatchObject({ cursor: 10, retrying: { position: 11, attempts: 2, since: '2026-01-01T00:00:00Z' }, failingSince: '2026-01-01T00:00:00Z' });
    const ok = afterAttempt(failing, attempt(11, '2026-01-01T00:00:30Z', { statusCode: 200, attempt: 3 }), true, null);
    expect(ok).toMatchObject({ cursor: 11, retrying: null, failingSince: null, lastDeliveryAt: '2026-01-01T00:00:30Z', logged: 3 });
  });

  it('when the retry window is spent, then the event is given up and the cursor passes it', () => {
    expect(afterAttempt(START, attempt(11, '2026-01-02T00:00:00Z'), false, null)).toMatchObject({ cursor: 11, retrying: null });
  });

  it('when a redelivery is sent, then the cursor stays where it was', () => {
    expect(afterAttempt(START, attempt(4, '2026-01-02T00:00:00Z', { manual: true, statusCode: 200 }), true, null)).toMatchObject({ cursor: 10 });
  });

  it('when the webhook was rewound since the progress was stored, then it starts again from the rewind; the durable cursor of that rewind wins over it', () => {
    const stored: WebhookProgress = { ...START, cursor: 50, failingSince: '2026-01-01T00:00:00Z' };
    const rewound = { ...WEBHOOK, cursor: 3, rewinds: 1 };
    expect(progressOf(rewound, stored, NOTHING_DURABLE)).toMatchObject({ cursor: 3, rewinds: 1, retrying: null });
    expect(progressOf(rewound, stored, { cursor: 7, redelivered: null })).toMatchObject({ cursor: 7 });
  });

  it('when the stored progress is older than the durable cursor (a read store restored from a snapshot), then the durable one wins; lost, the start is the durable one', () => {
    expect(progressOf(WEBHOOK, { ...START, cursor: 20 }, { cursor: 30, redelivered: 2 })).toMatchObject({ cursor: 30, redelivered: 2 });
    expect(progressOf(WEBHOOK, null, { cursor: 30, redelivered: null })).toMatchObject({ cursor: 30 });
  });

  it('when enabled again, then the failing streak and the retry are cleared once', () => {
    const stored: WebhookProgress = { ...START, failingSince: '2026-01-01T00:00:00Z', retrying: { position: 11, attempts: 3, nextTryAt: 'x', since: 'y' } };
    const enabled = progressOf({ ...WEBHOOK, enables: 1 }, stored, NOTHING_DURABLE);
    expect(enabled).toMatchObject({ failingSince: null, retrying: null, enables: 1 });
    const failingAgain = { ...enabled, failingSince: '2026-01-05T00:00:00Z' };
    expect(progressOf({ ...WEBHOOK, enables: 1 }, failingAgain, NOTHING_DURABLE)).toMatchObject({ failingSince: '2026-01-05T00:00:00Z' });
  });
});
