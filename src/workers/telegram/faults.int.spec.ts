import { addMember } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type FakeTelegram, type TelegramUser, startFakeTelegram } from '../../../test/support/fakeTelegram';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { report, tally } from '../../../test/support/tally';
import { telegramCustomerWithTicket, ticketMessages } from '../../../test/support/telegramDesk';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { TEXTS } from './bot';
import { TELEGRAM_UPDATES_QUEUE } from '../../app/jobs/telegram';

const TOKEN = '626262:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 626262, username: 'desk_fault_bot', firstName: 'Desk' };
/**
 * How long Telegram stays down in the outage test. CI proves the behaviour with a short outage and a
 * short backoff cap; `TELEGRAM_OUTAGE_MS=180000` runs the three minutes of the issue.
 */
const OUTAGE_MS = Number(process.env.TELEGRAM_OUTAGE_MS ?? 25_000);
/** The longest wait between two tries in these tests (DELIVERY_BACKOFF_CAP_MS), so the return is noticed within it. */
const BACKOFF_CAP_MS = 2000;
const env = (fake: FakeTelegram) => ({ TELEGRAM_API_ROOT: fake.apiRoot, DELIVERY_BACKOFF_CAP_MS: String(BACKOFF_CAP_MS) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Faults on the embedded queue (SQLite in DATA_DIR): the Bot API closed for minutes, the app restarted mid-burst. */
describe('Telegram under faults, embedded queue', () => {
  let fake: FakeTelegram;

  beforeEach(async () => {
    fake = await startFakeTelegram();
    fake.addBot(TOKEN, BOT);
  });
  afterEach(() => fake.close());

  const setUp = (server: TestServer, user: TelegramUser) =>
    telegramCustomerWithTicket(server, fake, TOKEN, user, { category: 'Outages', title: 'Outage ticket' });

  it(
    'when Telegram is down while two replies, a note and the closing are posted, then after it returns both replies and the closing arrive once, in order, and the note never',
    async () => {
      const server = await startTestServer({ env: env(fake) });
      try {
        const nora: TelegramUser = { id: 8101, first_name: 'Nora' };
        const { admin, ticket } = await setUp(server, nora);
        const agent = await addMember(server, admin, 'agent', 'Otto');
        await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
        const before = await eventually(() =>
          fake.messagesTo(nora.id).at(-1) === 'Ticket #1001 is now in progress.' ? fake.messagesTo(nora.id).length : undefined,
        );

        const down = Date.now();
        await fake.goDown();
        const post = (content: string, isInternal = false) =>
          server.request('POST', `/api/tickets/${ticket._id}/messages`, { token: agent.token, body: { content, isInternal } });
        expect((await post('First reply during the outage')).status).toBe(201);
        expect((await post('Internal: customer is on the old plan', true)).status).toBe(201);
        expect((await post('Second reply during the outage')).status).toBe(201);
        expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'closed' } })).status).toBe(200);

        // The notices wait and retry; the admin sees them in Deliveries, and nothing has failed for good.
        const retrying = await eventually(async () => {
          const { deliveries } = (await server.request('GET', '/api/deliveries', { token: admin })).body as {
            deliveries: Array<{ recipient: string; state: string; attempts: number; lastError: string | null }>;
          };
          const mine = deliveries.filter((delivery) => delivery.recipient === '8101');
          return mine.length === 3 && mine[0]!.state === 'retrying' ? mine : undefined;
        });
        // The first try may meet the connection being cut (socket hang up); later ones are refused.
        expect(retrying[0]!.lastError).toMatch(/ECONNREFUSED|socket hang up/);
        expect(retrying.slice(1).every((delivery) => delivery.state === 'waiting' && delivery.attempts === 0)).toBe(true);
        // Health says people are waiting on Telegram; nothing has failed for good.
        expect((await server.health()).body).toMatchObject({
          status: 'degraded',
          deliveries: { failed: 0 },
          channels: { telegram: { outbound: 3 } },
        });

        await sleep(Math.max(0, OUTAGE_MS - (Date.now() - down)));
        const attemptsDuringOutage = fake.calls.length;
        const { deliveries: atReturn } = (await server.request('GET', '/api/deliveries', { token: admin })).body as {
          deliveries: Array<{ recipient: string; attempts: number }>;
        };
        await fake.goUp();
        const expected = [
          'New reply on ticket #1001 from Otto Tester:\nFirst reply during the outage',
          'New reply on ticket #1001 from Otto Tester:\nSecond reply during the outage',
          DEFAULT_BOT_MESSAGES.ticketClosedMessage.replace('{ticketId}', '1001'),
        ];
        await eventually(() => fake.messagesTo(nora.id).length >= before + expected.length, {
          timeoutMs: BACKOFF_CAP_MS + 30_000,
          describe: 'the notices after the outage',
        });
        // Anything sent twice would come right behind.
        await sleep(1500);
        const arrived = fake.messagesTo(nora.id).slice(before);
        const figures = tally(expected, arrived);
        report(`Telegram outage of ${Math.round(OUTAGE_MS / 1000)} s`, {
          ...figures,
          triesOfFirstNotice: atReturn.find((delivery) => delivery.recipient === '8101')?.attempts ?? 0,
          callsSeenAfterReturn: fake.calls.length - attemptsDuringOutage,
        });
        expect(arrived).toEqual(expected);
        expect(figures).toEqual({ sent: 3, delivered: 3, lost: 0, duplicated: 0, reordered: 0 });
        expect(fake.delivered.some((message) => message.text.includes('old plan'))).toBe(false);
        expect((await server.request('GET', '/api/deliveries', { token: admin })).body.deliveries).toEqual([]);
      } finally {
        await server.stop();
      }
    },
    OUTAGE_MS + 120_000,
  );

  it('when the app stops mid-burst and starts again while Telegram is down, then every confirmed update is processed after Telegram returns, once and in order', async () => {
    const first = await startTestServer({ env: env(fake) });
    const rita: TelegramUser = { id: 8102, first_name: 'Rita' };
    const { ticket } = await setUp(first, rita);
    const texts = Array.from({ length: 200 }, (_, i) => `burst ${String(i + 1).padStart(3, '0')}`);
    // The burst opens with a document whose download hangs, so the app stops with the burst confirmed but unhandled.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    fake.addFile(TOKEN, 'burst-png', png);
    fake.hold('getFile');
    fake.sendOther(TOKEN, rita, { document: { file_id: 'burst-png', file_unique_id: 'b1', file_name: 'burst.png', file_size: png.length }, caption: texts[0] });
    const updates = texts.slice(1).map((text) => fake.sendText(TOKEN, rita, text));
    const lastId = updates.at(-1)!.update_id;
    // Telegram holds an update until a later getUpdates confirms it (offset past its id).
    await eventually(() => fake.calls.some((call) => call.method === 'getUpdates' && Number(call.payload.offset) > lastId), {
      describe: 'the whole burst confirmed',
    });
    await eventually(() => fake.held('getFile') === 1, { describe: 'the download hanging' });
    await fake.goDown();
    fake.release('getFile');
    await first.stop({ keepData: true });

    const second = await startTestServer({ dataDir: first.dataDir, env: env(fake) });
    try {
      const waiting = await second.deps.queue.pending(TELEGRAM_UPDATES_QUEUE);
      // The stop came while the burst was being handled: updates were confirmed but not yet handled.
      expect(waiting.length).toBeGreaterThan(0);
      await sleep(3000);
      expect((await second.deps.queue.pending(TELEGRAM_UPDATES_QUEUE)).length).toBe(waiting.length);
      await fake.goUp();
      const posted = async () => (await ticketMessages(second, ticket._id)).map((message) => message.content).filter((content) => content.startsWith('burst '));
      await eventually(async () => (await posted()).length >= texts.length, { timeoutMs: 60_000, describe: 'the whole burst on the ticket' });
      await sleep(1000);
      const figures = tally(texts, await posted());
      report('restart mid-burst while Telegram is down', { ...figures, waitingAtRestart: waiting.length });
      expect(figures).toEqual({ sent: 200, delivered: 200, lost: 0, duplicated: 0, reordered: 0 });
      expect(await second.deps.queue.pending(TELEGRAM_UPDATES_QUEUE)).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('when the Bot API answers getUpdates at once with nothing, then the bot still polls at most about once a second', async () => {
    const server = await startTestServer({ env: env(fake) });
    try {
      const admin = await server.login();
      await server.request('PUT', '/api/settings', { token: admin, body: { telegramBotToken: TOKEN, emailNotifications: false } });
      await eventually(() => fake.calls.some((call) => call.method === 'getUpdates'), { describe: 'polling started' });
      fake.answerPollsAtOnce(true);
      const polls = () => fake.calls.filter((call) => call.method === 'getUpdates').length;
      const before = polls();
      await sleep(4000);
      // Four seconds at one call a second, plus the held call that was under way.
      expect(polls() - before).toBeLessThanOrEqual(6);
      expect(polls() - before).toBeGreaterThanOrEqual(2);
      const ann: TelegramUser = { id: 8103, first_name: 'Ann' };
      fake.sendText(TOKEN, ann, '/start');
      await eventually(() => fake.messagesTo(ann.id).length === 1, { describe: 'an update still fetched' });
    } finally {
      await server.stop();
    }
  }, 30_000);

  it('when a file keeps failing to download until the retry window ends, then the user gets the failed text and the caption still reaches the ticket', async () => {
    const server = await startTestServer({ env: { ...env(fake), DELIVERY_RETRY_WINDOW_MS: '4000', DELIVERY_BACKOFF_CAP_MS: '1000' } });
    try {
      const vera: TelegramUser = { id: 8104, first_name: 'Vera' };
      const { ticket } = await setUp(server, vera);
      const before = fake.messagesTo(vera.id).length;
      fake.addFile(TOKEN, 'flaky-file', Buffer.from('never arrives'));
      fake.failNext('getFile', 1000, { status: 502, description: 'Bad Gateway' });
      const sent = Date.now();
      fake.sendOther(TOKEN, vera, { document: { file_id: 'flaky-file', file_unique_id: 'f1', file_name: 'flaky.pdf' }, caption: 'My receipt is attached' });
      await eventually(() => fake.messagesTo(vera.id).length > before, { timeoutMs: 20_000, describe: 'the failed text' });
      expect(Date.now() - sent).toBeGreaterThanOrEqual(2000);
      expect(fake.messagesTo(vera.id).slice(before)).toEqual([TEXTS.failed]);
      expect(fake.calls.filter((call) => call.method === 'getFile').length).toBeGreaterThanOrEqual(3);
      await eventually(async () => (await ticketMessages(server, ticket._id)).some((message) => message.content === 'My receipt is attached'), {
        describe: 'the caption on the ticket',
      });
    } finally {
      await server.stop();
    }
  }, 40_000);
});
