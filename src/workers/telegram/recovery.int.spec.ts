import { randomUUID } from 'node:crypto';
import path from 'node:path';
import IORedis from 'ioredis';
import { eventually } from '../../../test/support/eventually';
import { type FakeTelegram, type TelegramUser, startFakeTelegram } from '../../../test/support/fakeTelegram';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { report, tally } from '../../../test/support/tally';
import { telegramCustomerWithTicket, ticketMessages } from '../../../test/support/telegramDesk';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { deliveryStream } from '../../app/deliveries/ledger';
import { enqueueUpdate } from '../../app/jobs/telegram';
import { BullMqQueue } from '../../platform/queue/bullmq';
import { InlineQueue } from '../../platform/queue/inline';
import type { Queue } from '../../platform/queue/port';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-recovery-${randomUUID().slice(0, 8)}`;
const TOKEN = '737373:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 737373, username: 'desk_recovery_bot', firstName: 'Desk' };
/**
 * The longest wait between two tries: long enough that, after a few failed tries, the next backoff
 * step lies far beyond Telegram's return (as after a 150 s outage with the default 5 min cap).
 */
const BACKOFF_CAP_MS = 60_000;
/** Tries made by the first waiting notice before Telegram returns: its next would then be 16 s away. */
const TRIES_BEFORE_RETURN = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface DeliveryRow {
  id: string;
  channel: string;
  direction: string;
  recipient: string;
  state: string;
  attempts: number;
  lastError: string | null;
  ageSeconds: number;
}

let fake: FakeTelegram;
beforeEach(async () => {
  fake = await startFakeTelegram();
  fake.addBot(TOKEN, BOT);
});
afterEach(() => fake.close());

afterAll(async () => {
  const redis = new IORedis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const adapters: Array<[string, (run: string) => Record<string, string>, (dataDir: string, env: Record<string, string>) => Queue]> = [
  ['embedded queue', () => ({}), (dataDir) => new InlineQueue({ filename: path.join(dataDir, 'queue.db') })],
  [
    'BullMQ',
    (run) => ({ REDIS_URL, REDIS_PREFIX: `${PREFIX}-${run}`, WORKERS_LEASE_TTL_MS: '1500' }),
    (_dataDir, env) => new BullMqQueue({ url: REDIS_URL, prefix: env.REDIS_PREFIX! }),
  ],
];

describe.each(adapters)('Telegram coming back, %s', (_name, queueEnv, openQueue) => {
  const env = (extra: Record<string, string> = {}) => ({ TELEGRAM_API_ROOT: fake.apiRoot, DELIVERY_BACKOFF_CAP_MS: String(BACKOFF_CAP_MS), ...extra });

  /** A whitelisted Telegram customer with a ticket opened through the bot. */
  const setUp = (server: TestServer, user: TelegramUser) =>
    telegramCustomerWithTicket(server, fake, TOKEN, user, { category: 'Recovery', title: 'Recovery ticket' });

  it('when the app restarts while Telegram is down, then customer messages already stored reach their ticket within 2 s, once and in order', async () => {
    const run = randomUUID().slice(0, 8);
    const first = await startTestServer({ env: env(queueEnv(run)) });
    const mia: TelegramUser = { id: 9201, first_name: 'Mia' };
    const { ticket } = await setUp(first, mia);
    await first.stop({ keepData: true });

    // What the poller had taken from Telegram and stored just before the stop, not yet applied.
    const texts = Array.from({ length: 20 }, (_, i) => `stored while away ${String(i + 1).padStart(2, '0')}`);
    const stored = openQueue(first.dataDir, queueEnv(run));
    for (const text of texts) await enqueueUpdate({ queue: stored }, BOT.id, fake.sendText(TOKEN, mia, text));
    await stored.close();
    await fake.goDown();

    const starting = Date.now();
    const second = await startTestServer({ dataDir: first.dataDir, env: env(queueEnv(run)) });
    const ready = Date.now();
    try {
      const posted = async () =>
        (await ticketMessages(second, ticket._id)).map((message) => message.content).filter((content) => content.startsWith('stored while away'));
      await eventually(async () => (await posted()).length >= texts.length, { timeoutMs: 15_000, describe: 'the stored messages on the ticket' });
      const landed = Date.now();
      await sleep(500);
      const figures = tally(texts, await posted());
      report(`restart while Telegram is down (${_name})`, { ...figures, msFromStart: landed - starting, msFromReady: landed - ready });
      expect(figures).toEqual({ sent: 20, delivered: 20, lost: 0, duplicated: 0, reordered: 0 });
      expect(landed - ready).toBeLessThan(2000);
      // The start itself (catch-up, first admin) is included here; it takes well under a second alone.
      expect(landed - starting).toBeLessThan(5000);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('when Telegram is down until the waiting replies would next be tried 16 s later, then they arrive within 5 s of its return, once and in order, and health and Deliveries show them meanwhile', async () => {
    const server = await startTestServer({ env: env(queueEnv(randomUUID().slice(0, 8))) });
    try {
      const noa: TelegramUser = { id: 9202, first_name: 'Noa' };
      const { admin, ticket } = await setUp(server, noa);
      const before = fake.messagesTo(noa.id).length;
      expect((await server.health()).body.status).toBe('ok');

      await fake.goDown();
      const post = (content: string) => server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: admin, body: { content } });
      expect((await post('First reply during the outage')).status).toBe(201);
      expect((await post('Second reply during the outage')).status).toBe(201);
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'closed' } })).status).toBe(200);

      const mine = async () =>
        ((await server.request('GET', '/api/deliveries', { token: admin })).body.deliveries as DeliveryRow[]).filter((row) => row.recipient === '9202');
      const waiting = await eventually(
        async () => {
          const rows = await mine();
          return rows.length === 3 && rows[0]!.attempts >= TRIES_BEFORE_RETURN ? rows : undefined;
        },
        { timeoutMs: 60_000, describe: `the first reply tried ${TRIES_BEFORE_RETURN} times` },
      );
      expect(waiting.map((row) => [row.channel, row.direction])).toEqual([
        ['telegram', 'outbound'],
        ['telegram', 'outbound'],
        ['telegram', 'outbound'],
      ]);
      expect(waiting[0]!.ageSeconds).toBeGreaterThanOrEqual(10);
      const health = (await server.health()).body;
      expect(health.status).toBe('degraded');
      expect(health.channels.telegram).toMatchObject({ inbound: 0, outbound: 3 });
      expect(Date.now() - Date.parse(health.channels.telegram.waitingSince)).toBeGreaterThanOrEqual(10_000);
      expect(health.deliveries.failed).toBe(0);

      const back = Date.now();
      await fake.goUp();
      const expected = [
        'New reply on ticket #1001 from System Administrator:\nFirst reply during the outage',
        'New reply on ticket #1001 from System Administrator:\nSecond reply during the outage',
        DEFAULT_BOT_MESSAGES.ticketClosedMessage.replace('{ticketId}', '1001'),
      ];
      await eventually(() => fake.messagesTo(noa.id).length >= before + expected.length, { timeoutMs: 30_000, describe: 'the replies after the return' });
      const arrivedAfterMs = Date.now() - back;
      await sleep(1500);
      const arrived = fake.messagesTo(noa.id).slice(before);
      const figures = tally(expected, arrived);
      report(`Telegram back after an outage (${_name})`, { ...figures, triesBeforeReturn: waiting[0]!.attempts, arrivedAfterMs });
      expect(arrived).toEqual(expected);
      expect(figures).toEqual({ sent: 3, delivered: 3, lost: 0, duplicated: 0, reordered: 0 });
      expect(arrivedAfterMs).toBeLessThan(5000);
      expect(await mine()).toEqual([]);
      expect((await server.health()).body.status).toBe('ok');
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('A slow Telegram', () => {
  it('when Telegram takes a message but answers only after 12 s, then the customer gets it exactly once and it waits for an admin as uncertain', async () => {
    const server = await startTestServer({ env: { TELEGRAM_API_ROOT: fake.apiRoot } });
    try {
      const admin = await server.login();
      const ola: TelegramUser = { id: 9203, first_name: 'Ola' };
      await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: TOKEN, emailNotifications: false } });
      await server.request('POST', '/api/whitelist', { token: admin, body: { telegramId: String(ola.id), firstName: ola.first_name } });
      await eventually(() => fake.calls.some((call) => call.method === 'getUpdates'), { describe: 'polling started' });
      // Longer than the 10 s the app waits for an answer.
      fake.answerLate('sendMessage', 12_000);
      fake.sendText(TOKEN, ola, '/start');
      await eventually(() => fake.messagesTo(ola.id).length >= 1, { describe: 'the welcome taken by Telegram' });
      const welcome = fake.messagesTo(ola.id)[0]!;
      // Past the 10 s wait for an answer, the late answer itself, and the retry that used to follow a timeout.
      await sleep(16_000);
      const figures = tally([welcome], fake.messagesTo(ola.id));
      report('a 12 s answer to sendMessage', { ...figures, sendMessageCalls: fake.calls.filter((call) => call.method === 'sendMessage').length });
      expect(figures).toEqual({ sent: 1, delivered: 1, lost: 0, duplicated: 0, reordered: 0 });
      expect(fake.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(1);
      const { deliveries } = (await server.request('GET', '/api/deliveries', { token: admin })).body as { deliveries: DeliveryRow[] };
      const uncertain = deliveries.find((row) => row.recipient === '9203');
      expect(uncertain?.state).toBe('failed');
      expect(uncertain!.lastError).toMatch(/did not answer within 10 s after the message had gone out: it may have arrived/);
      expect((await server.health()).body).toMatchObject({ status: 'degraded', deliveries: { failed: 1 } });

      // Only an admin sends it again, and that decision is recorded with them in the notice's ledger.
      fake.answerLate('sendMessage', 0);
      expect((await server.request('POST', `/api/deliveries/telegram/${uncertain!.id}/retry`, { token: admin })).status).toBe(200);
      await eventually(() => fake.messagesTo(ola.id).length === 2, { describe: 'the copy the admin asked for' });
      const ledger = await server.deps.events.readStream(deliveryStream(uncertain!.id));
      expect(ledger.map((event) => event.type)).toEqual([
        'NotificationSending',
        'NotificationUncertain',
        'NotificationResendApproved',
        'NotificationSending',
        'NotificationDelivered',
      ]);
      expect(ledger[2]!.metadata.actor?.role).toBe('admin');
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('A bot Telegram has never answered for', () => {
  const NEW_TOKEN = '747474:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const NEW_BOT = { id: 747474, username: 'desk_new_bot', firstName: 'Desk' };

  it('when its customers write while Telegram is down, then health and Deliveries show them waiting, and they reach the ticket within 5 s of its return', async () => {
    fake.addBot(NEW_TOKEN, NEW_BOT);
    const server = await startTestServer({ env: { TELEGRAM_API_ROOT: fake.apiRoot, DELIVERY_BACKOFF_CAP_MS: String(BACKOFF_CAP_MS) } });
    try {
      const pia: TelegramUser = { id: 9204, first_name: 'Pia' };
      const { admin, ticket } = await telegramCustomerWithTicket(server, fake, TOKEN, pia, { category: 'New bot', title: 'New bot ticket' });
      await fake.goDown();
      // A new bot while Telegram is down: its identity cannot be learned until Telegram answers.
      await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: NEW_TOKEN } });
      const texts = ['written to the new bot 1', 'written to the new bot 2', 'written to the new bot 3'];
      // What Telegram would hand over (through the webhook, or a poll just before it went down).
      for (const text of texts) await enqueueUpdate(server.deps, NEW_BOT.id, fake.sendText(NEW_TOKEN, pia, text));

      const inbound = await eventually(
        async () => {
          const rows = ((await server.request('GET', '/api/deliveries', { token: admin })).body.deliveries as DeliveryRow[]).filter(
            (row) => row.direction === 'inbound',
          );
          return rows.length === 3 && rows[0]!.attempts >= 4 ? rows : undefined;
        },
        { timeoutMs: 40_000, describe: 'the messages waiting, the first tried 4 times' },
      );
      expect(inbound.map((row) => [row.channel, row.recipient, row.state])).toEqual([
        ['telegram', '9204', 'retrying'],
        ['telegram', '9204', 'waiting'],
        ['telegram', '9204', 'waiting'],
      ]);
      expect(inbound[0]!.ageSeconds).toBeGreaterThanOrEqual(5);
      const health = (await server.health()).body;
      expect(health).toMatchObject({ status: 'degraded', channels: { telegram: { inbound: 3 } } });

      const back = Date.now();
      await fake.goUp();
      const posted = async () =>
        (await ticketMessages(server, ticket._id)).map((message) => message.content).filter((content) => content.startsWith('written to the new bot'));
      await eventually(async () => (await posted()).length >= texts.length, { timeoutMs: 30_000, describe: 'the messages on the ticket' });
      const landedAfterMs = Date.now() - back;
      await sleep(500);
      const figures = tally(texts, await posted());
      report('messages to a bot never identified, Telegram back', { ...figures, triesBeforeReturn: inbound[0]!.attempts, landedAfterMs });
      expect(figures).toEqual({ sent: 3, delivered: 3, lost: 0, duplicated: 0, reordered: 0 });
      expect(landedAfterMs).toBeLessThan(5000);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
