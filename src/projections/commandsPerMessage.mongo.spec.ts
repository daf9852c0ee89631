import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countCommands, taggingProjectionWork } from '../../test/support/commandCount';
import { type Member, addCategory, addMember, oneSlaPolicy, openTicket } from '../../test/support/desk';
import { dropDatabase, readModelsUrl } from '../../test/support/mongo';
import { type TestServer, startTestServer } from '../../test/support/server';
import { pagesOfAll } from '../platform/eventstore/paging';
import type { RecordedEvent } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import type { MongoReadStore } from '../platform/readstore/mongodb';
import { SLA_TICKETS } from './sla';

/**
 * Reads among the commands sent outside the projections' work: the request path's. The lease only
 * writes; the webhook dispatcher's look at the webhooks list every 200 ms (src/workers/webhooks.ts) and
 * the leader's look at the other generations every minute (src/projections/generations.ts) are a
 * worker's, whatever the load, and left out.
 */
const requestReads = (counts: Map<string, number>) =>
  [...counts]
    .filter(([key]) => /^(find|aggregate|count|getMore|distinct) (?!webhooks_|read_model_generations)/.test(key))
    .reduce((sum, [, count]) => sum + count, 0);

/**
 * What a posted message costs the read models on MongoDB, counted with the driver's command
 * monitoring: the commands the projection runner sends while it applies live events (their reads,
 * writes and checkpoints), apart from what the HTTP layer sends to answer, which in steady state is no
 * read at all: the sign-in checks, the settings and the sender's name come from the request caches.
 */
describe('MongoDB commands per posted message', () => {
  const CUSTOMERS = 20;
  const EACH = 10;
  let server: TestServer;
  let url: string;
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-commands-'));
    const base = readModelsUrl(dataDir);
    if (!base) throw new Error('MONGO_URL is not set: this suite runs in the mongo tier (npm run test:mongo)');
    url = `${base}${base.includes('?') ? '&' : '?'}monitorCommands=true`;
    const events = taggingProjectionWork(new SqliteEventStore({ filename: path.join(dataDir, 'events.db') }));
    server = await startTestServer({ dataDir, events, env: { MONGO_URL: url } });
  });
  afterAll(async () => {
    await server.stop();
    await dropDatabase(url);
  });

  it(`when ${CUSTOMERS * EACH} messages are posted at once through the API, then the projections and reactions spend at most 2 commands on each and the request path reads nothing`, async () => {
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const chats: Array<{ member: Member; ticket: string }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const member = await addMember(server, admin, 'customer');
      chats.push({ member, ticket: (await openTicket(server, member, category))._id });
    }
    const post = async ({ member, ticket }: { member: Member; ticket: string }, content: string) => {
      const posted = await server.request('POST', `/api/tickets/${ticket}/messages`, { token: member.token, body: { content } });
      expect(posted.status).toBe(201);
    };
    // Warm: every conversation has a message, the connections are open.
    await Promise.all(chats.map((chat) => post(chat, 'Hello')));
    // The app reads and writes through its generation's view (src/projections/generations.ts): the commands are counted on the store below it.
    const shared = server.deps.readStore;
    const tally = countCommands(('raw' in shared ? shared.raw : shared) as MongoReadStore);
    await Promise.all(
      chats.map(async (chat) => {
        for (let i = 0; i < EACH; i++) await post(chat, `Message ${i}`);
      }),
    );
    // The checkpoints of the last page are stored within 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 500));
    tally.stop();
    const messages = CUSTOMERS * EACH;
    const { projection, other } = tally.totals();
    const perMessage = projection / messages;
    process.stdout.write(
      `[commands per message] projections ${perMessage.toFixed(2)} (${projection} for ${messages} messages: ${JSON.stringify(Object.fromEntries(tally.counts.projection))}); ` +
        `HTTP layer and lease ${(other / messages).toFixed(2)}, reads on the request path ${(requestReads(tally.counts.other) / messages).toFixed(2)} (${JSON.stringify(Object.fromEntries(tally.counts.other))})\n`,
    );
    expect(projection).toBeGreaterThan(0);
    expect(perMessage).toBeLessThanOrEqual(2);
    // The rules the reactor runs are kept until a rule changes (src/app/rules/engine.ts), not read at every ticket event.
    expect([...tally.counts.projection.keys()].filter((command) => command.startsWith('find rules'))).toEqual([]);
    // Settings, the signed-in user and session and the sender's name come from the process's caches (src/app/caches.ts).
    expect(requestReads(tally.counts.other)).toBe(0);
  }, 120_000);

  it('when customers, agent replies and internal notes take turns under an SLA policy, then the SLA projection and reaction read its read model at most once a page (in the leader, from what the page wrote), and for no note', async () => {
    const ROUNDS = 3;
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const settings = oneSlaPolicy({ firstResponse: 60, nextResponse: 60, resolution: 480 });
    expect((await server.request('PUT', '/api/sla/settings', { token: admin, body: settings })).status).toBe(200);
    const agent = await addMember(server, admin, 'agent');
    const chats: Array<{ member: Member; ticket: string }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const member = await addMember(server, admin, 'customer');
      chats.push({ member, ticket: (await openTicket(server, member, category))._id });
    }
    const post = async (ticket: string, token: string, body: { content: string; isInternal?: boolean }) => {
      const posted = await server.request('POST', `/api/tickets/${ticket}/messages`, { token, body });
      // Recorded either way; 202 says the read models had not caught up within the wait (a loaded machine).
      expect([201, 202]).toContain(posted.status);
    };
    await Promise.all(chats.map((chat) => post(chat.ticket, chat.member.token, { content: 'Hello' })));
    const shared = server.deps.readStore;
    const mongo = ('raw' in shared ? shared.raw : shared) as MongoReadStore;
    const tally = countCommands(mongo);
    // The projection and the reaction each read a page's tickets with $in: at most two reads a page.
    let slaReads = 0;
    const stopCounting = mongo.onCommand((event) => {
      if (event.commandName === 'find' && String(event.command.find).startsWith(SLA_TICKETS)) slaReads += 1;
    });
    const start = await server.deps.events.headPosition();
    await Promise.all(
      chats.map(async ({ member, ticket }) => {
        for (let i = 0; i < ROUNDS; i++) {
          await post(ticket, agent.token, { content: `Checked the logs (${i})`, isInternal: true });
          await post(ticket, agent.token, { content: `Could you try again? (${i})` });
          await post(ticket, member.token, { content: `Still broken (${i})` });
        }
      }),
    );
    const head = await server.deps.events.headPosition();
    for (let waited = 0; ((await server.deps.queue.checkpoint('notifications')) ?? 0) < head; waited += 50) {
      if (waited > 30_000) throw new Error('the notifications reactor did not reach the head of the log');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    tally.stop();
    stopCounting();
    const recorded: RecordedEvent[] = [];
    for await (const page of pagesOfAll(server.deps.events, { after: start, pageSize: 500 })) recorded.push(...page.filter((event) => event.position <= head));
    const notes = recorded.filter((event) => event.type === 'MessagePosted' && event.data.isInternal === true).length;
    const clockMovers = recorded.filter((event) => ['MessagePosted', 'TicketStatusChanged', 'SlaPolicyApplied'].includes(event.type)).length - notes;
    const messages = CUSTOMERS * ROUNDS * 3;
    const { projection } = tally.totals();
    process.stdout.write(
      `[commands per message, mixed] projections and reactions ${(projection / messages).toFixed(2)} (${projection} for ${messages} messages, ${notes} of them internal notes; ` +
        `reads of the SLA tickets (projection and reaction) ${slaReads} for ${clockMovers} events that may move a clock: ${JSON.stringify(Object.fromEntries(tally.counts.projection))})\n`,
    );
    expect(notes).toBe(CUSTOMERS * ROUNDS);
    // Per page, not per message: 20 conversations post at once, so pages hold several events each; the
    // leader's document cache answers the reaction with the entries its pages wrote (none in this run).
    expect(slaReads).toBeLessThan(clockMovers);
  }, 120_000);
});
