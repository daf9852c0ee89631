import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { type FastMongo, type MeasuredChat, measuredChat, startFastMongo } from './fastMongo';
import {
  type Conversation,
  PASSWORD,
  api,
  appEnv,
  deliveryRun,
  log,
  login,
  ms,
  percentile,
  pool,
  root,
  sleep,
  startProcess,
  stopProcess,
  thousands,
} from './harness';
import { seedDesk } from './seed';

/**
 * `npm run bench:mongo`: the MongoDB path beside the embedded default, in one run on one log
 * (docs/benchmark.md "The MongoDB path"). The chat load at each connection count, then delivery,
 * first with the read models on MongoDB (the fast in-memory wire server unless `--mongo URL`), whose
 * first start rebuilds them there from the seeded log (the replay figure), then on the embedded store. On the fast server
 * each chat figure also says how many commands the app sent per message, how many were reads, and
 * the server's CPU per message.
 */
async function main() {
  const { values } = parseArgs({
    options: {
      tickets: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '1,10,50' },
      mongo: { type: 'string', default: 'fast' },
      server: { type: 'string', default: 'dist' },
      out: { type: 'string', default: path.join(root, 'bench') },
    },
  });
  const tickets = Number(values.tickets);
  const seconds = Number(values.seconds);
  const connections = values.connections!.split(',').map(Number);
  const serverArgs = values.server === 'tsx' ? ['--conditions=source', '--import', 'tsx', 'src/main.ts'] : ['dist/src/main.js'];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-mongo-'));
  let fast: FastMongo | undefined;
  const lines: string[] = [];
  try {
    log(`seeding ${thousands(tickets)} tickets ...`);
    const store = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
    const desk = await seedDesk(store, { tickets, events: tickets * 10, password: PASSWORD });
    await store.close();
    const env = appEnv(dataDir, desk.admin.email);
    const conversationCount = Math.max(...connections, 50);
    let conversations: Conversation[] = [];
    let agentTokens: string[] = [];

    const measure = async (name: string, extra: NodeJS.ProcessEnv, mongo?: FastMongo) => {
      log(`${name}: starting the app ...`);
      const head = await headOf(dataDir);
      const app = await startProcess(process.execPath, serverArgs, { ...env, ...extra }, /running at (http:\/\/\S+)/);
      try {
        const admin = await login(app.url, desk.admin.email);
        await api(app.url, 'PUT', '/api/settings', admin, { rateLimitMaxRequests: 1000, rateLimitWindowMs: 60_000 });
        // Answered 202 while the first start's snapshot is written: the loads wait until the limit holds.
        const limit = async () =>
          (await api<{ settings: { rateLimitMaxRequests: number } }>(app.url, 'GET', '/api/settings', admin)).settings.rateLimitMaxRequests;
        while ((await limit()) !== 1000) await sleep(100);
        if (conversations.length === 0) {
          conversations = await pool(desk.openTickets.slice(0, conversationCount), 4, async ({ ticketId, customer }) => ({
            ticketId,
            customerToken: await login(app.url, customer.email),
          }));
          agentTokens = await pool(desk.agents, 4, (agent) => login(app.url, agent.email));
        }
        const chats: Array<[number, MeasuredChat]> = [];
        for (const count of connections) {
          log(`${name}: chat, ${count} connections, ${seconds} s ...`);
          chats.push([count, await measuredChat(app.url, app.child.pid!, conversations, { connections: count, seconds }, mongo)]);
        }
        log(`${name}: delivery ...`);
        const delivered = await deliveryRun(app.url, conversations, agentTokens, { messages: 10 });
        return { startMs: app.startedMs, head, chats, delivery: { p50: percentile(delivered, 50), p99: percentile(delivered, 99) } };
      } finally {
        await stopProcess(app.child);
      }
    };

    // MongoDB first: its first start replays the seeded log alone, not the messages of the embedded loads too.
    if (values.mongo === 'fast') fast = await startFastMongo();
    const url = fast?.url ?? values.mongo!;
    const mongo = await measure(`MongoDB (${fast ? 'fast in-memory wire server' : url})`, { MONGO_URL: url }, fast);
    const embedded = await measure('embedded', {});

    const cpus = os.cpus();
    lines.push(
      `MongoDB path beside the embedded default, ${new Date().toISOString().slice(0, 10)}, ${thousands(tickets)} tickets, chat ${seconds} s per figure, on ${cpus.length} × ${cpus[0]?.model.trim()}, ${process.version}; MongoDB: ${fast ? 'mongo-java-server 1.46.0 (memory backend)' : url}.`,
      '',
      '| figure | embedded | MongoDB path | MongoDB / embedded |',
      '|---|---|---|---|',
    );
    for (const [index, [count, onMongo]] of mongo.chats.entries()) {
      const [, local] = embedded.chats[index]!;
      const rps = (chat: MeasuredChat) => chat.result.requests.average;
      lines.push(
        `| chat, ${count} connections: req/s, p50, p99 | ${thousands(rps(local))}, ${ms(local.result.latency.p50)}, ${ms(local.result.latency.p99)} | ${thousands(rps(onMongo))}, ${ms(onMongo.result.latency.p50)}, ${ms(onMongo.result.latency.p99)} | ${((rps(onMongo) / rps(local)) * 100).toFixed(0)} % of req/s, p99 ${(onMongo.result.latency.p99 / local.result.latency.p99).toFixed(1)}x |`,
        `| chat, ${count} connections: app CPU per message | ${ms(local.cpuMsPerMessage)} | ${ms(onMongo.cpuMsPerMessage)} | ${(onMongo.cpuMsPerMessage / local.cpuMsPerMessage).toFixed(1)}x |`,
      );
      if (onMongo.commandsPerMessage !== undefined)
        lines.push(
          `| chat, ${count} connections: MongoDB commands per message (reads of them); server CPU per message | – | ${onMongo.commandsPerMessage.toFixed(2)} (${onMongo.readsPerMessage!.toFixed(2)}); ${ms(onMongo.serverCpuMsPerMessage!)} | ${JSON.stringify(onMongo.commands)} |`,
        );
      if (count === 1 && onMongo.commandsPerMessage !== undefined)
        lines.push(
          `| sequential round trips per page (1 connection: each message its own page, every command awaited in turn) | – | ${onMongo.commandsPerMessage.toFixed(1)} | – |`,
        );
    }
    lines.push(
      `| delivery p50, p99 | ${ms(embedded.delivery.p50)}, ${ms(embedded.delivery.p99)} | ${ms(mongo.delivery.p50)}, ${ms(mongo.delivery.p99)} | p99 ${(mongo.delivery.p99 / embedded.delivery.p99).toFixed(1)}x |`,
      `| first start: every read model rebuilt from the log | ${(embedded.startMs / 1000).toFixed(1)} s, ${thousands(embedded.head / (embedded.startMs / 1000))} events/s | ${(mongo.startMs / 1000).toFixed(1)} s, ${thousands(mongo.head / (mongo.startMs / 1000))} events/s | ${thousands(mongo.head)} events |`,
    );
  } finally {
    await fast?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const markdown = `${lines.join('\n')}\n`;
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(path.join(values.out!, 'mongo-results.md'), markdown);
  process.stdout.write(markdown);
  process.exit(0);
}

async function headOf(dataDir: string): Promise<number> {
  const store = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
  try {
    return await store.headPosition();
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
