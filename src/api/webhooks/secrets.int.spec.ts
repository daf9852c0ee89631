import { createHmac } from 'node:crypto';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startReceiver, verifies } from '../../../test/support/webhookReceiver';
import { WEBHOOK_SECRET_GRACE_MS } from '../../app/webhooks/service';

const ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '100' };
const JWT_A = 'a'.repeat(48);
const JWT_B = 'b'.repeat(48);
/** How webhooks registered before secrets were their own got theirs. */
const derived = (jwtSecret: string, webhookId: string) => `whsec_${createHmac('sha256', jwtSecret).update(`webhook-signing:${webhookId}`).digest('base64url')}`;

describe('Webhook signing secrets', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The server's clock runs this far ahead of the real one (to pass a rotation's grace); the receiver's clock with it. */
  let ahead = 0;
  const now = () => Date.now() + ahead;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, JWT_SECRET: JWT_A }, clock: () => new Date(now()) });
    receiver = await startReceiver(now);
    admin = await server.login();
  }, 60_000);
  afterEach(() => {
    ahead = 0;
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  /** Opens a ticket and answers the delivery of its TicketOpened to that webhook. */
  const nextDelivery = async (target: TestServer, token: string, webhookId: string) => {
    const ticket = await openTicket(target, await addMember(target, token, 'customer'), await addCategory(target, token));
    return eventually(() => receiver.received.find((item) => item.webhookId === webhookId && item.subject === ticket._id), {
      describe: 'the ticket delivered',
    });
  };
  const register = async () => {
    const created = await server.request('POST', '/api/webhooks', { token: admin, body: { url: receiver.url, types: ['TicketOpened'] } });
    expect(created.status).toBe(201);
    return created.body as { webhook: { _id: string }; secret: string };
  };
  const rotate = (webhookId: string, token = admin) => server.request('POST', `/api/webhooks/${webhookId}/rotate-secret`, { token });
  const verifiesWith = (secret: string, item: { signature: string; body: string }) => verifies(secret, item.signature, item.body, now());

  it('when registered, then its random secret is shown once, signs the deliveries, and is in no read model nor in clear in the log', async () => {
    const { webhook, secret } = await register();
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(secret).not.toBe(derived(JWT_A, webhook._id));
    expect(verifiesWith(secret, await nextDelivery(server, admin, webhook._id))).toBe(true);
    expect(JSON.stringify((await server.request('GET', '/api/webhooks', { token: admin })).body)).not.toContain(secret);
    const stored = JSON.stringify(await server.deps.events.readStream(`webhook-${webhook._id}`));
    expect(stored).toContain('"secret":{"kid":"k1"');
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when its secret is rotated, then both secrets verify during the grace, only the new one after it; each rotation is recorded with its admin', async () => {
    const { webhook, secret: first } = await register();
    const agent = await addMember(server, admin, 'agent');
    expect(await rotate(webhook._id, agent.token)).toMatchObject({ status: 403 });
    expect(await rotate('no-such-webhook')).toMatchObject({ status: 404 });

    const rotated = await rotate(webhook._id);
    expect(rotated).toMatchObject({
      status: 200,
      body: { secret: expect.stringMatching(/^whsec_/), webhook: { secretRotatedAt: expect.any(String), previousSecretValidUntil: expect.any(String) } },
    });
    const second: string = rotated.body.secret;
    expect(second).not.toBe(first);
    expect(Date.parse(rotated.body.webhook.previousSecretValidUntil) - Date.parse(rotated.body.webhook.secretRotatedAt)).toBe(WEBHOOK_SECRET_GRACE_MS);
    const recorded = (await server.deps.events.readStream(`webhook-${webhook._id}`)).find((event) => event.type === 'WebhookSecretRotated')!;
    expect(recorded.metadata.actor).toMatchObject({ userId: expect.any(String), role: 'admin', platform: 'web' });
    expect(JSON.stringify(recorded)).not.toContain(second);

    const during = await nextDelivery(server, admin, webhook._id);
    expect(during.signature.match(/v1=/g)).toHaveLength(2);
    expect({ first: verifiesWith(first, during), second: verifiesWith(second, during) }).toEqual({ first: true, second: true });

    ahead = WEBHOOK_SECRET_GRACE_MS + 60_000;
    admin = await server.login();
    const after = await nextDelivery(server, admin, webhook._id);
    expect(after.signature.match(/v1=/g)).toHaveLength(1);
    expect({ first: verifiesWith(first, after), second: verifiesWith(second, after) }).toEqual({ first: false, second: true });
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when a webhook was registered before secrets were its own, then it keeps its derived secret until rotated, and that one signs through the grace', async () => {
    const webhookId = 'legacy-webhook';
    const head = await server.deps.events.headPosition();
    // The event as the desk wrote it before: no secret in it.
    await server.deps.events.append(
      `webhook-${webhookId}`,
      [
        {
          type: 'WebhookRegistered',
          data: { webhookId, url: receiver.url, types: ['TicketOpened'], includeNotes: false, startAfter: head },
          metadata: { occurredAt: new Date(now()).toISOString(), schemaVersion: 1 },
        },
      ],
      'no_stream',
    );
    const old = derived(JWT_A, webhookId);
    expect(verifiesWith(old, await nextDelivery(server, admin, webhookId))).toBe(true);
    const rotated = await rotate(webhookId);
    expect(rotated.status).toBe(200);
    const during = await nextDelivery(server, admin, webhookId);
    expect({ old: verifiesWith(old, during), new: verifiesWith(rotated.body.secret, during) }).toEqual({ old: true, new: true });
    await server.request('DELETE', `/api/webhooks/${webhookId}`, { token: admin });
  });

  it('when the server restarts with another JWT_SECRET, then a webhook registered now still signs with its secret', async () => {
    const own = await startTestServer({ env: { ...ENV, JWT_SECRET: JWT_A } });
    let restarted: TestServer | null = null;
    try {
      const created = await own.request('POST', '/api/webhooks', { token: await own.login(), body: { url: receiver.url, types: ['TicketOpened'] } });
      expect(created.status).toBe(201);
      await own.stop({ keepData: true });
      restarted = await startTestServer({ dataDir: own.dataDir, env: { ...ENV, JWT_SECRET: JWT_B } });
      const delivered = await nextDelivery(restarted, await restarted.login(), created.body.webhook._id);
      expect(verifiesWith(created.body.secret, delivered)).toBe(true);
    } finally {
      await (restarted ?? own).stop();
    }
  }, 60_000);
});
