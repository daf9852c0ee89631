import { randomUUID } from 'node:crypto';
import { addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startReceiver } from '../../../test/support/webhookReceiver';
import { DELIVERY_LOG_KEPT, WEBHOOK_DELIVERY_LOG, WEBHOOK_PROGRESS } from '../../app/webhooks/progress';
import type { NewEvent } from '../../platform/eventstore/port';

const ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
/** More deliveries than the delivery log keeps, and than it holds before a prune. */
const MESSAGES = DELIVERY_LOG_KEPT + 150;

describe('Webhook delivery progress', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  it('when many events are delivered, then the webhook’s stream holds only what people decided, the delivery log keeps the last attempts, and a restart sends nothing again', async () => {
    const admin = await server.login();
    const agent = await addMember(server, admin, 'agent', 'Alice');
    const created = await server.request('POST', '/api/webhooks', { token: admin, body: { url: receiver.url, types: ['MessagePosted'] } });
    expect(created.status).toBe(201);
    receiver.secrets.push(created.body.secret);
    const webhookId = created.body.webhook._id as string;
    const ticket = await openTicket(server, await addMember(server, admin, 'customer'), await addCategory(server, admin));
    expect((await server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content: 'Reply 0' } })).status).toBe(201);
    const reply = (await server.deps.events.readStream(`ticket-${ticket._id}`)).find((event) => event.type === 'MessagePosted')!;
    for (let done = 1; done < MESSAGES;) {
      const batch: NewEvent[] = [];
      for (; batch.length < 500 && done < MESSAGES; done++)
        batch.push({ type: 'MessagePosted', data: { ...reply.data, messageId: randomUUID(), content: `Reply ${done}` }, metadata: reply.metadata });
      await server.deps.events.append(`ticket-${ticket._id}`, batch, 'any');
    }
    await eventually(() => receiver.received.length >= MESSAGES, { timeoutMs: 120_000, describe: 'every message delivered' });

    // Attempts are the sender's checkpoint, not events: the stream did not grow with them.
    expect((await server.deps.events.readStream(`webhook-${webhookId}`)).map((event) => event.type)).toEqual(['WebhookRegistered']);
    const stored = await eventually(async () => {
      const count = await server.deps.readStore.collection(WEBHOOK_DELIVERY_LOG).count({ webhookId });
      const webhook = (await server.request('GET', '/api/webhooks', { token: admin })).body.webhooks[0];
      return webhook.cursor === reply.position + MESSAGES - 1 && { count, webhook };
    });
    expect(stored.count).toBeGreaterThanOrEqual(DELIVERY_LOG_KEPT);
    expect(stored.count).toBeLessThanOrEqual(DELIVERY_LOG_KEPT + 100);
    expect(stored.webhook).toMatchObject({ lastDeliveryAt: expect.any(String), failingSince: null });
    const log = (await server.request('GET', `/api/webhooks/${webhookId}/deliveries?limit=500`, { token: admin })).body.deliveries;
    expect(log).toHaveLength(500);
    expect(log[0]).toMatchObject({ status: 'delivered', statusCode: 204, attempt: 1, nextTryAt: null });

    // The progress outlives the process: after a restart on the same data, nothing is sent again.
    const { dataDir } = server;
    await server.stop({ keepData: true });
    server = await startTestServer({ env: ENV, dataDir });
    const before = receiver.received.length;
    const newer = await openTicket(server, await addMember(server, await server.login(), 'customer'), await addCategory(server, await server.login()));
    const agentAgain = await addMember(server, await server.login(), 'agent', 'Bea');
    expect(
      (await server.request('POST', `/api/tickets/${newer._id}/messages`, { token: agentAgain.token, body: { content: 'After the restart' } })).status,
    ).toBe(201);
    await eventually(() => receiver.received.some((item) => item.data.content === 'After the restart'), { describe: 'the new message delivered' });
    expect(receiver.received.slice(before).map((item) => item.data.content)).toEqual(['After the restart']);

    // Deleted, the webhook's delivery log and progress go with it.
    expect((await server.request('DELETE', `/api/webhooks/${webhookId}`, { token: await server.login() })).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await server.deps.readStore.collection(WEBHOOK_DELIVERY_LOG).count({ webhookId })).toBe(0);
    expect(await server.deps.readStore.collection(WEBHOOK_PROGRESS).count({ _id: webhookId })).toBe(0);
  }, 180_000);
});
