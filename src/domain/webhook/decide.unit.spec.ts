import { NotFoundError } from '#contract/errors';
import { decideWebhook } from './decide';
import { deliveryAttempt as attempt } from '../../../test/support/webhooks';
import { type WebhookEvent, type WebhookState, evolveWebhook, initialWebhookState } from './webhook';

const REGISTERED: WebhookEvent = {
  type: 'WebhookRegistered',
  data: { webhookId: 'w1', url: 'https://example.com/', types: [], includeNotes: false, startAfter: 10 },
};
const after = (events: WebhookEvent[]): WebhookState => events.reduce(evolveWebhook, initialWebhookState);

const SEALED = { kid: 'k1', iv: 'iv', data: 'data', tag: 'tag' };
const RESEALED = { kid: 'k1', iv: 'iv2', data: 'data2', tag: 'tag2' };

describe('Webhook', () => {
  it('when its secret is rotated, then the new one is current and the one it replaces signs until the grace ends; a second rotation drops the oldest', () => {
    const registered = after([{ ...REGISTERED, data: { ...REGISTERED.data, secret: SEALED } }]);
    const rotated = decideWebhook({ type: 'RotateWebhookSecret', secret: RESEALED, previousValidUntil: '2026-01-02T00:00:00Z' }, registered);
    expect(rotated).toEqual([{ type: 'WebhookSecretRotated', data: { webhookId: 'w1', secret: RESEALED, previousValidUntil: '2026-01-02T00:00:00Z' } }]);
    const state = rotated.reduce(evolveWebhook, registered);
    expect(state).toMatchObject({ secret: RESEALED, previousSecret: { secret: SEALED, until: '2026-01-02T00:00:00Z' } });
    const again = decideWebhook({ type: 'RotateWebhookSecret', secret: SEALED, previousValidUntil: '2026-01-03T00:00:00Z' }, state).reduce(
      evolveWebhook,
      state,
    );
    expect(again).toMatchObject({ secret: SEALED, previousSecret: { secret: RESEALED, until: '2026-01-03T00:00:00Z' } });
  });

  it('when registered before secrets were its own, then its secret is the derived one (null) until rotated, and stays previous for the grace', () => {
    const legacy = after([REGISTERED]);
    expect(legacy).toMatchObject({ secret: null, previousSecret: null });
    const rotated = decideWebhook({ type: 'RotateWebhookSecret', secret: SEALED, previousValidUntil: '2026-01-02T00:00:00Z' }, legacy);
    expect(rotated.reduce(evolveWebhook, legacy)).toMatchObject({ secret: SEALED, previousSecret: { secret: null, until: '2026-01-02T00:00:00Z' } });
    expect(() => decideWebhook({ type: 'RotateWebhookSecret', secret: SEALED, previousValidUntil: 'x' }, initialWebhookState)).toThrow(NotFoundError);
  });

  it('when its stream holds attempts recorded before progress moved out of it, then they still move its start, retry and failing streak', () => {
    const failed: WebhookEvent = { type: 'WebhookDeliveryFailed', data: { ...attempt(11, '2026-01-01T00:00:00Z'), nextTryAt: '2026-01-01T00:00:10Z' } };
    expect(after([REGISTERED, failed])).toMatchObject({ cursor: 10, retrying: { position: 11, attempts: 1 }, failingSince: '2026-01-01T00:00:00Z' });
    const delivered: WebhookEvent = { type: 'WebhookDelivered', data: attempt(11, '2026-01-01T00:00:10Z', { statusCode: 200, attempt: 2 }) };
    expect(after([REGISTERED, failed, delivered])).toMatchObject({ cursor: 11, retrying: null, failingSince: null });
  });

  it('when rewound or enabled again, then the cursor goes back and each is counted, so the sender starts its progress again', () => {
    const rewound = decideWebhook({ type: 'RewindWebhook', after: 3 }, after([REGISTERED]));
    expect(rewound).toEqual([{ type: 'WebhookRewound', data: { webhookId: 'w1', after: 3, previous: 10 } }]);
    expect(after([REGISTERED, ...rewound, ...rewound])).toMatchObject({ cursor: 3, rewinds: 2, enables: 0 });
    const disabled = after([REGISTERED, { type: 'WebhookDisabled', data: { webhookId: 'w1', reason: 'x' } }]);
    expect(decideWebhook({ type: 'EnableWebhook' }, disabled).reduce(evolveWebhook, disabled)).toMatchObject({ status: 'active', enables: 1 });
  });

  it('when a redelivery asks for an event the webhook has not tried to send, or the webhook is gone, then it is refused', () => {
    expect(() => decideWebhook({ type: 'RequestRedelivery', position: 5, tried: false }, after([REGISTERED]))).toThrow(
      expect.objectContaining({ status: 409, code: 'NOT_REDELIVERABLE' }),
    );
    const requested = decideWebhook({ type: 'RequestRedelivery', position: 5, tried: true }, after([REGISTERED]));
    expect(requested).toHaveLength(1);
    // Each request numbered in order: the sender counts those it has handled.
    expect(after([REGISTERED, ...requested, ...requested])).toMatchObject({ redeliveries: [{ position: 5, seq: 2 }], requests: 2 });
    expect(() => decideWebhook({ type: 'RewindWebhook', after: 1 }, initialWebhookState)).toThrow(NotFoundError);
  });

  it('when a requested redelivery is refused at send time, then it leaves the queue; refusing one not queued records nothing', () => {
    const requested = after([REGISTERED, { type: 'WebhookRedeliveryRequested', data: { webhookId: 'w1', position: 5 } }]);
    const refused = decideWebhook({ type: 'RefuseRedelivery', position: 5, reason: 'Not an event this webhook carries' }, requested);
    expect(refused).toEqual([{ type: 'WebhookRedeliveryRefused', data: { webhookId: 'w1', position: 5, reason: 'Not an event this webhook carries' } }]);
    expect(after([REGISTERED, { type: 'WebhookRedeliveryRequested', data: { webhookId: 'w1', position: 5 } }, ...refused])).toMatchObject({ redeliveries: [] });
    expect(decideWebhook({ type: 'RefuseRedelivery', position: 6, reason: 'x' }, requested)).toEqual([]);
  });
});
