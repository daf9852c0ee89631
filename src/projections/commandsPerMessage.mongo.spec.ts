import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countCommands, taggingProjectionWork } from '../../test/support/commandCount';
import { type Member, addCategory, addMember, openTicket } from '../../test/support/desk';
import { dropDatabase, readModelsUrl } from '../../test/support/mongo';
import { type TestServer, startTestServer } from '../../test/support/server';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import type { MongoReadStore } from '../platform/readstore/mongodb';

/**
 * What a posted message costs the read models on MongoDB, counted with the driver's command
 * monitoring: the commands the projection runner sends while it applies live events (their reads,
 * writes and checkpoints), apart from the reads the HTTP layer makes to answer (sign-in checks, the
 * sender's name), which are reported beside them.
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

  it(`when ${CUSTOMERS * EACH} messages are posted at once through the API, then the projections spend at most 3 commands on each`, async () => {
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
        `HTTP layer and lease ${(other / messages).toFixed(2)} (${JSON.stringify(Object.fromEntries(tally.counts.other))})\n`,
    );
    expect(projection).toBeGreaterThan(0);
    expect(perMessage).toBeLessThanOrEqual(3);
  }, 120_000);
});
