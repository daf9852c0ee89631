import { NotFoundError } from '#contract/errors';
import { decideWebhook } from './decide';
import { type DeliveryAttempt, type WebhookEvent, type WebhookState, evolveWebhook, initialWebhookState } from './webhook';

const REGISTERED: WebhookEvent = {
  type: 'WebhookRegistered',
  data: { webhookId: 'w1', url: 'https://example.com/', types: [], includeNotes: false, startAfter: 10 },
};
const after = (events: WebhookEvent[]): WebhookState => events.reduce(evolveWebhook, initialWebhookState);
const attempt = (position: number, at: string, overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
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

  it('when a delivery fails, then the cursor stays and the retry keeps when the failing began; a success moves the cursor and clears it', () => {
    const first = decideWebhook(
      { type: 'RecordDelivery', attempt: attempt(11, '2026-01-01T00:00:00Z'), ok: false, nextTryAt: '2026-01-01T00:00:10Z' },
      after([REGISTERED]),
    );
    const second = decideWebhook(
      { type: 'RecordDelivery', attempt: attempt(11, '2026-01-01T00:00:10Z', { attempt: 2 }), ok: false, nextTryAt: '2026-01-01T00:00:30Z' },
      after([REGISTERED, ...first]),
    );
    const failing = after([REGISTERED, ...first, ...second]);
    expect(failing).toMatchObject({ cursor: 10, retrying: { position: 11, attempts: 2, since: '2026-01-01T00:00:00Z' }, failingSince: '2026-01-01T00:00:00Z' });
    const ok = decideWebhook(
      { type: 'RecordDelivery', attempt: attempt(11, '2026-01-01T00:00:30Z', { statusCode: 200, attempt: 3 }), ok: true, nextTryAt: null },
      failing,
    );
    expect(after([REGISTERED, ...first, ...second, ...ok])).toMatchObject({ cursor: 11, retrying: null, failingSince: null });
  });

  it('when the retry window is spent, then the event is given up and the cursor passes it', () => {
    const gaveUp = decideWebhook({ type: 'RecordDelivery', attempt: attempt(11, '2026-01-02T00:00:00Z'), ok: false, nextTryAt: null }, after([REGISTERED]));
    expect(after([REGISTERED, ...gaveUp])).toMatchObject({ cursor: 11, retrying: null });
  });

  it('when rewound, then the cursor goes back; an attempt at or before the cursor of a stale round records nothing', () => {
    const rewound = decideWebhook({ type: 'RewindWebhook', after: 3 }, after([REGISTERED]));
    expect(rewound).toEqual([{ type: 'WebhookRewound', data: { webhookId: 'w1', after: 3, previous: 10 } }]);
    expect(decideWebhook({ type: 'RecordDelivery', attempt: attempt(9, '2026-01-01T00:00:00Z'), ok: true, nextTryAt: null }, after([REGISTERED]))).toEqual([]);
  });

  it('when a redelivery asks for an event the webhook has not tried to send, or the webhook is gone, then it is refused', () => {
    expect(() => decideWebhook({ type: 'RequestRedelivery', position: 5, tried: false }, after([REGISTERED]))).toThrow(
      expect.objectContaining({ status: 409, code: 'NOT_REDELIVERABLE' }),
    );
    expect(decideWebhook({ type: 'RequestRedelivery', position: 5, tried: true }, after([REGISTERED]))).toHaveLength(1);
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
