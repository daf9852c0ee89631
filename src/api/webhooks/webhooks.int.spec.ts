import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { startReceiver } from '../../../test/support/webhookReceiver';

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_WINDOW_MS: '600000',
};
/** How long a slow receiver takes to answer each delivery: within the sender's 10 s timeout, so each one succeeds. */
const SLOW_ANSWER_MS = 9000;

describe('Webhooks with a real local receiver', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: string;
  let agent: Member;
  let category: string;
  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    receiver = await startReceiver();
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin);
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  const register = async (body: Record<string, unknown>) => {
    const created = await server.request('POST', '/api/webhooks', { token: admin, body: { url: receiver.url, ...body } });
    expect(created.status).toBe(201);
    receiver.secrets.push(created.body.secret);
    return created.body as { webhook: { _id: string; cursor: number }; secret: string };
  };
  const post = async (ticketId: string, content: string, isInternal = false) =>
    expect((await server.request('POST', `/api/tickets/${ticketId}/messages`, { token: agent.token, body: { content, isInternal } })).status).toBe(201);
  /** The ticket events after a position, as the webhook should send them. */
  const expectedAfter = async (after: number, subjects: Set<string>) =>
    (await server.deps.events.readAll({ after, maxCount: 100_000 }))
      .filter((event) => subjects.has(event.streamId.replace(/^ticket-/, '')) && event.streamId.startsWith('ticket-') && event.type !== 'ClaimWithdrawn')
      .filter((event) => !(event.type === 'MessagePosted' && event.data.isInternal))
      .map((event) => String(event.position));

  it('when events happen, then each arrives as a CloudEvent whose signature verifies with the documented recipe, without notes unless asked', async () => {
    const { webhook } = await register({ types: [] });
    const customer = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, customer, category);
    await post(ticket._id, 'Public answer');
    await post(ticket._id, 'A note', true);
    await post(ticket._id, 'Second answer');
    const mine = () => receiver.received.filter((item) => item.webhookId === webhook._id && item.subject === ticket._id);
    await eventually(() => mine().some((item) => item.data.content === 'Second answer'), { describe: 'the last answer delivered' });
    expect(mine().every((item) => item.verified)).toBe(true);
    expect(mine()[0]).toMatchObject({ type: 'desk.TicketOpened' });
    expect(
      mine()
        .map((item) => item.data.content)
        .filter(Boolean),
    ).toEqual(['Public answer', 'Second answer']);
    expect(mine().map((item) => item.id)).toEqual(await expectedAfter(webhook.cursor, new Set([ticket._id])));
    // The delivery log names each attempt with its answer.
    const log = await eventually(async () => {
      const answer = await server.request('GET', `/api/webhooks/${webhook._id}/deliveries`, { token: admin });
      return answer.body.deliveries.length >= 3 && answer.body.deliveries;
    });
    expect(log[0]).toMatchObject({ status: 'delivered', statusCode: 204, durationMs: expect.any(Number), nextTryAt: null, attempt: 1 });
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when the receiver is down for a while and then back, then every event arrives once, in order per ticket, and a rewind sends them again', async () => {
    const { webhook } = await register({});
    const start = webhook.cursor;
    const tickets = await Promise.all([1, 2, 3].map(async () => (await openTicket(server, await addMember(server, admin, 'customer'), category))._id));
    await receiver.down();
    const downAt = Date.now();
    for (let round = 1; round <= 5; round++) for (const ticket of tickets) await post(ticket, `round ${round}`);
    // Retries happen while it is down: the log shows them with a next try.
    await eventually(async () => {
      const log = (await server.request('GET', `/api/webhooks/${webhook._id}/deliveries`, { token: admin })).body.deliveries;
      return log.some((entry: { status: string; nextTryAt: string | null }) => entry.status === 'retrying' && entry.nextTryAt !== null);
    });
    // Down for five seconds in all (the product's backoff is shortened to 100 ms, doubling).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 5000 - (Date.now() - downAt))));
    await receiver.up();
    const downMs = Date.now() - downAt;
    const subjects = new Set(tickets);
    const expected = await expectedAfter(start, subjects);
    const mine = () => receiver.received.filter((item) => item.webhookId === webhook._id && subjects.has(item.subject));
    await eventually(() => mine().length >= expected.length, { timeoutMs: 30_000, describe: 'every event delivered' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const got = mine().map((item) => item.id);
    const lost = expected.filter((id) => !got.includes(id)).length;
    const duplicated = got.length - new Set(got).size;
    let reordered = 0;
    for (const ticket of tickets) {
      const order = mine()
        .filter((item) => item.subject === ticket)
        .map((item) => Number(item.id));
      reordered += order.filter((position, index) => index > 0 && position < order[index - 1]!).length;
    }
    process.stdout.write(
      `receiver down ${downMs} ms: ${expected.length} events, ${got.length} received, ${lost} lost, ${duplicated} duplicated, ${reordered} reordered\n`,
    );
    expect({ lost, duplicated, reordered }).toEqual({ lost: 0, duplicated: 0, reordered: 0 });
    expect(got).toEqual(expected);
    expect(mine().every((item) => item.verified)).toBe(true);

    // Rewind to the first message of the second round: the rest is sent again, in order.
    const from = Number(expected[3 + 3]);
    const rewound = await server.request('POST', `/api/webhooks/${webhook._id}/rewind`, { token: admin, body: { after: from } });
    expect(rewound).toMatchObject({ status: 200, body: { webhook: { cursor: from } } });
    const again = expected.filter((id) => Number(id) > from);
    await eventually(() => mine().length >= expected.length + again.length, { timeoutMs: 30_000, describe: 'the rewound events delivered again' });
    expect(
      mine()
        .slice(expected.length)
        .map((item) => item.id),
    ).toEqual(again);
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  }, 90_000);

  it('when created from a position or a date, then it catches up on the events after it first', async () => {
    const customer = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, customer, category);
    await post(ticket._id, 'before the webhook existed');
    const opened = (await server.deps.events.readStream(`ticket-${ticket._id}`))[0]!.position;
    const { webhook } = await register({ after: opened - 1, types: ['MessagePosted'] });
    const mine = () => receiver.received.filter((item) => item.webhookId === webhook._id && item.subject === ticket._id);
    await eventually(() => mine().some((item) => item.data.content === 'before the webhook existed'));
    expect(mine().map((item) => item.type)).toEqual(['desk.MessagePosted']);
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });

    // From a date: the events recorded from that moment, the earlier ones not.
    const last = (await server.deps.events.readStream(`ticket-${ticket._id}`)).at(-1)!.metadata.occurredAt;
    const fromDate = new Date(Date.parse(last) + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const dated = (await register({ fromDate, types: ['MessagePosted'] })).webhook;
    await post(ticket._id, 'after the date');
    const seen = () => receiver.received.filter((item) => item.webhookId === dated._id).map((item) => item.data.content);
    await eventually(() => seen().includes('after the date'));
    expect(seen()).not.toContain('before the webhook existed');
    await server.request('DELETE', `/api/webhooks/${dated._id}`, { token: admin });
  });

  it('when a delivery failed, then an admin redelivers it by hand', async () => {
    receiver.answerWith((_req, res) => res.writeHead(500).end());
    const { webhook } = await register({ types: ['TicketOpened'] });
    const ticket = await openTicket(server, await addMember(server, admin, 'customer'), category);
    const failed = await eventually(async () => {
      const log = (await server.request('GET', `/api/webhooks/${webhook._id}/deliveries`, { token: admin })).body.deliveries;
      return log.find((entry: { statusCode: number }) => entry.statusCode === 500);
    });
    expect(failed).toMatchObject({ status: 'retrying', subject: ticket._id, nextTryAt: expect.any(String) });
    receiver.answerWith((_req, res) => res.writeHead(200).end());
    const count = () => receiver.received.filter((item) => item.webhookId === webhook._id && item.subject === ticket._id).length;
    // The retry gets through once the receiver answers again.
    await eventually(() => count() >= 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = count();
    expect((await server.request('POST', `/api/webhooks/${webhook._id}/deliveries/${failed.position}/redeliver`, { token: admin })).status).toBe(202);
    await eventually(() => count() === before + 1);
    expect(await server.request('POST', `/api/webhooks/${webhook._id}/deliveries/999999999/redeliver`, { token: admin })).toMatchObject({
      status: 409,
      body: { code: 'NOT_REDELIVERABLE' },
    });
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when a redelivery names an event the webhook was not sent (a user with a password hash, a note it leaves out), then it is refused and nothing is sent', async () => {
    const { webhook } = await register({ types: ['MessagePosted'] });
    const ticket = await openTicket(server, await addMember(server, admin, 'customer'), category);
    await post(ticket._id, 'Delivered answer');
    await post(ticket._id, 'A note the webhook leaves out', true);
    const ticketEvents = await server.deps.events.readStream(`ticket-${ticket._id}`);
    const delivered = ticketEvents.find((event) => event.data.content === 'Delivered answer')!.position;
    const note = ticketEvents.find((event) => event.data.isInternal === true)!.position;
    // The admin's own creation, early in the log: well below the webhook's cursor once the answer is through.
    const userCreated = (await server.deps.events.readAll({ maxCount: 1000 })).find((event) => event.type === 'UserCreated')!.position;
    const mine = () => receiver.received.filter((item) => item.webhookId === webhook._id);
    await eventually(async () => {
      const log = (await server.request('GET', `/api/webhooks/${webhook._id}/deliveries`, { token: admin })).body.deliveries;
      return log.some((entry: { position: number }) => entry.position === delivered) && log;
    });
    const redeliver = (position: number) => server.request('POST', `/api/webhooks/${webhook._id}/deliveries/${position}/redeliver`, { token: admin });

    for (const position of [userCreated, note])
      expect({ position, answer: await redeliver(position) }).toMatchObject({ position, answer: { status: 409, body: { code: 'NOT_REDELIVERABLE' } } });
    expect(await redeliver(delivered)).toMatchObject({ status: 202 });
    await eventually(() => mine().filter((item) => item.id === String(delivered)).length === 2, { describe: 'the delivered answer sent again' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine().map((item) => item.type)).toEqual(['desk.MessagePosted', 'desk.MessagePosted']);
    expect(JSON.stringify(mine())).not.toContain('passwordHash');

    // A request already in the webhook's log from before the check (any position) is refused when its turn comes.
    await server.deps.events.append(
      `webhook-${webhook._id}`,
      [
        {
          type: 'WebhookRedeliveryRequested',
          data: { webhookId: webhook._id, position: userCreated },
          metadata: { occurredAt: new Date().toISOString(), schemaVersion: 1 },
        },
      ],
      'any',
    );
    await eventually(async () => (await server.deps.events.readStream(`webhook-${webhook._id}`)).some((event) => event.type === 'WebhookRedeliveryRefused'), {
      describe: 'the old request refused',
    });
    expect(mine().map((item) => item.id)).toEqual([String(delivered), String(delivered)]);
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when one receiver takes 9 s to answer each delivery, then another webhook still gets each event within 1 s', async () => {
    const slow = await startReceiver();
    try {
      slow.answerWith((_req, res) => setTimeout(() => res.writeHead(204).end(), SLOW_ANSWER_MS));
      const slowCreated = await server.request('POST', '/api/webhooks', { token: admin, body: { url: slow.url, types: ['MessagePosted'] } });
      expect(slowCreated.status).toBe(201);
      const { webhook } = await register({ types: ['MessagePosted'] });
      const ticket = await openTicket(server, await addMember(server, admin, 'customer'), category);
      const mine = () => receiver.received.filter((item) => item.webhookId === webhook._id);
      await post(ticket._id, 'first');
      // The slow receiver now holds its webhook's delivery of the first message for 9 s.
      await eventually(() => slow.received.some((item) => item.data.content === 'first'), { describe: 'the slow receiver got the first message' });
      const delays: number[] = [];
      for (const content of ['second', 'third', 'fourth']) {
        const postedAt = Date.now();
        await post(ticket._id, content);
        const item = await eventually(() => mine().find((received) => received.data.content === content), { describe: `the other receiver got ${content}` });
        delays.push(item.receivedAt - postedAt);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      process.stdout.write(`another webhook's delays while one receiver answers in ${SLOW_ANSWER_MS} ms: ${delays.join(', ')} ms\n`);
      expect(Math.max(...delays)).toBeLessThan(1000);
      expect(mine().map((item) => item.data.content)).toEqual(['first', 'second', 'third', 'fourth']);
      // The slow one goes at its own pace: still on its first answer.
      expect(slow.received.map((item) => item.data.content)).toEqual(['first']);
      await server.request('DELETE', `/api/webhooks/${slowCreated.body.webhook._id}`, { token: admin });
      await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('when a URL is or resolves to an internal address not on the allow-list (127.0.0.1 included), or redirects there, then it is refused', async () => {
    for (const url of [
      'http://127.0.0.2/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://localhost:9/hook',
      'http://[::1]/hook',
      'http://192.168.1.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://198.18.0.1/',
      'http://192.0.0.1/',
    ]) {
      const answer = await server.request('POST', '/api/webhooks', { token: admin, body: { url } });
      expect({ url, status: answer.status, error: answer.body.error }).toEqual({
        url,
        status: 400,
        error: expect.stringContaining('loopback, private or link-local'),
      });
    }
    expect(await server.request('POST', '/api/webhooks', { token: admin, body: { url: 'ftp://example.com/' } })).toMatchObject({ status: 400 });
    expect(await server.request('POST', '/api/webhooks', { token: admin, body: { url: 'http://user:pw@127.0.0.1/' } })).toMatchObject({ status: 400 });
    expect(await server.request('POST', '/api/webhooks', { token: admin, body: { url: receiver.url, types: ['Nope'] } })).toMatchObject({ status: 400 });

    // Without the allow-list, the receiver on 127.0.0.1 itself is refused too.
    const strict = await startTestServer({ env: { WEBHOOK_ALLOW_HTTP: 'true' } });
    try {
      const refused = await strict.request('POST', '/api/webhooks', { token: await strict.login(), body: { url: receiver.url } });
      expect(refused).toMatchObject({ status: 400, body: { error: expect.stringContaining('host 127.0.0.1 is a loopback, private or link-local address') } });
      expect(await strict.request('POST', '/api/webhooks', { token: await strict.login(), body: { url: 'https://localhost/hook' } })).toMatchObject({
        status: 400,
      });
    } finally {
      await strict.stop();
    }

    // An allowed receiver that redirects to the metadata address: the redirect is not followed.
    receiver.answerWith((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    const { webhook } = await register({ types: ['TicketOpened'] });
    await openTicket(server, await addMember(server, admin, 'customer'), category);
    const entry = await eventually(async () => (await server.request('GET', `/api/webhooks/${webhook._id}/deliveries`, { token: admin })).body.deliveries[0]);
    expect(entry).toMatchObject({ status: 'retrying', statusCode: 302, error: 'Redirects are not followed' });
    receiver.answerWith((_req, res) => res.writeHead(204).end());
    await server.request('DELETE', `/api/webhooks/${webhook._id}`, { token: admin });
  });

  it('when its deliveries keep failing past the limit, then the webhook is disabled and an admin can enable it again', async () => {
    const failing = await startTestServer({ env: { ...ENV, WEBHOOK_DISABLE_AFTER_MS: '1000' } });
    try {
      const token = await failing.login();
      receiver.answerWith((_req, res) => res.writeHead(503).end());
      const created = await failing.request('POST', '/api/webhooks', { token, body: { url: receiver.url } });
      const customer = await addMember(failing, token, 'customer');
      await openTicket(failing, customer, await addCategory(failing, token));
      const disabled = await eventually(
        async () => (await failing.request('GET', '/api/webhooks', { token })).body.webhooks.find((w: { status: string }) => w.status === 'disabled'),
        { timeoutMs: 20_000 },
      );
      expect(disabled).toMatchObject({ _id: created.body.webhook._id, disabledReason: expect.stringContaining('Every delivery failed since') });
      receiver.answerWith((_req, res) => res.writeHead(204).end());
      expect(await failing.request('POST', `/api/webhooks/${created.body.webhook._id}/enable`, { token })).toMatchObject({
        status: 200,
        body: { webhook: { status: 'active' } },
      });
    } finally {
      await failing.stop();
    }
  }, 60_000);
});
