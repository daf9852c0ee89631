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
  cpuSecondsOf,
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
      /** `mongo` to time the MongoDB path alone (no embedded column: a quicker look while working on it). */
      stores: { type: 'string', default: 'mongo,embedded' },
      /** A directory for a V8 CPU profile of the app on the MongoDB path (`node --cpu-prof`; read it with bench/profile.ts). */
      profile: { type: 'string' },
    },
  });
  const tickets = Number(values.tickets);
  const seconds = Number(values.seconds);
  const connections = values.connections!.split(',').map(Number);
  // `tsx`, `dist`, or the path of another build's main.js (the code before a change, timed in the same session).
  const serverArgs =
    values.server === 'tsx' ? ['--conditions=source', '--import', 'tsx', 'src/main.ts'] : [values.server === 'dist' ? 'dist/src/main.js' : values.server!];
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
      const profiling = mongo && values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
      const before = mongo && { commands: await mongo.counters(), millis: await mongo.millis(), cpu: mongo.cpuSeconds() };
      const app = await startProcess(process.execPath, [...profiling, ...serverArgs], { ...env, ...extra }, /running at (http:\/\/\S+)/);
      // What the first start (the replay) sent the server, and the server's milliseconds by command.
      // The CPU the app and the server spent on the first start: steadier than its time on a shared machine.
      const startCpu = { app: cpuSecondsOf(app.child.pid!), server: before ? mongo.cpuSeconds() - before.cpu : 0 };
      const replay = before && { commands: since(before.commands, await mongo.counters()), millis: since(before.millis, await mongo.millis()) };
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
        return { startMs: app.startedMs, startCpu, head, replay, chats, delivery: { p50: percentile(delivered, 50), p99: percentile(delivered, 99) } };
      } finally {
        await stopProcess(app.child);
      }
    };

    // MongoDB first: its first start replays the seeded log alone, not the messages of the embedded loads too.
    if (values.mongo === 'fast') fast = await startFastMongo();
    const url = fast?.url ?? values.mongo!;
    const mongo = await measure(`MongoDB (${fast ? 'fast in-memory wire server' : url})`, { MONGO_URL: url }, fast);
    const embedded = values.stores!.split(',').includes('embedded') ? await measure('embedded', {}) : null;

    const cpus = os.cpus();
    lines.push(
      `MongoDB path beside the embedded default, ${new Date().toISOString().slice(0, 10)}, ${thousands(tickets)} tickets, chat ${seconds} s per figure, on ${cpus.length} × ${cpus[0]?.model.trim()}, ${process.version}, load average ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(', ')}; MongoDB: ${fast ? 'mongo-java-server 1.46.0 (memory backend)' : url}.`,
      '',
      '| figure | embedded | MongoDB path | MongoDB / embedded |',
      '|---|---|---|---|',
    );
    // Without the embedded run (`--stores mongo`) its column and the ratios are left blank.
    const beside = (figure: (run: typeof mongo) => string, ratio: (onMongo: typeof mongo, local: typeof mongo) => string) =>
      embedded ? [figure(embedded), figure(mongo), ratio(mongo, embedded)] : ['–', figure(mongo), '–'];
    const row = (name: string, cells: string[]) => lines.push(`| ${name} | ${cells.join(' | ')} |`);
    for (const [index, [count, onMongo]] of mongo.chats.entries()) {
      const chatOf = (run: typeof mongo) => (run === mongo ? onMongo : run.chats[index]![1]);
      const rps = (chat: MeasuredChat) => chat.result.requests.average;
      row(
        `chat, ${count} connections: req/s, p50, p99`,
        beside(
          (run) => `${thousands(rps(chatOf(run)))}, ${ms(chatOf(run).result.latency.p50)}, ${ms(chatOf(run).result.latency.p99)}`,
          (m, e) =>
            `${((rps(chatOf(m)) / rps(chatOf(e))) * 100).toFixed(0)} % of req/s, p99 ${(chatOf(m).result.latency.p99 / chatOf(e).result.latency.p99).toFixed(1)}x`,
        ),
      );
      row(
        `chat, ${count} connections: app CPU per message`,
        beside(
          (run) => ms(chatOf(run).cpuMsPerMessage),
          (m, e) => `${(chatOf(m).cpuMsPerMessage / chatOf(e).cpuMsPerMessage).toFixed(1)}x`,
        ),
      );
      if (onMongo.commandsPerMessage !== undefined)
        row(`chat, ${count} connections: MongoDB commands per message (reads of them); server CPU per message`, [
          '–',
          `${onMongo.commandsPerMessage.toFixed(2)} (${onMongo.readsPerMessage!.toFixed(2)}); ${ms(onMongo.serverCpuMsPerMessage!)}`,
          JSON.stringify(onMongo.commands),
        ]);
      if (onMongo.serverMillis !== undefined)
        row(`chat, ${count} connections: the server's milliseconds by command`, ['–', '–', JSON.stringify(onMongo.serverMillis)]);
      if (count === 1 && onMongo.commandsPerMessage !== undefined)
        row('sequential round trips per page (1 connection: each message its own page, every command awaited in turn)', [
          '–',
          onMongo.commandsPerMessage.toFixed(1),
          '–',
        ]);
    }
    row(
      'delivery p50, p99',
      beside(
        (run) => `${ms(run.delivery.p50)}, ${ms(run.delivery.p99)}`,
        (m, e) => `p99 ${(m.delivery.p99 / e.delivery.p99).toFixed(1)}x`,
      ),
    );
    row(
      'first start: every read model rebuilt from the log',
      beside(
        (run) => `${(run.startMs / 1000).toFixed(1)} s, ${thousands(run.head / (run.startMs / 1000))} events/s`,
        (m) => `${thousands(m.head)} events`,
      ),
    );
    row(
      'first start: CPU seconds of the app (its start included) and of the MongoDB server',
      beside(
        (run) => `app ${run.startCpu.app.toFixed(2)} s, server ${run.startCpu.server.toFixed(2)} s`,
        () => '–',
      ),
    );
    if (mongo.replay)
      row(`first start on MongoDB: commands (${thousands(total(mongo.replay.commands))}) and the server's milliseconds by command`, [
        '–',
        JSON.stringify(mongo.replay.commands),
        JSON.stringify(mongo.replay.millis),
      ]);
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

/** The counts that grew from `before` to `after`, largest first. */
function since(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const grown = Object.entries(after).map(([key, value]) => [key, Math.round(value - (before[key] ?? 0))] as const);
  return Object.fromEntries(grown.filter(([, value]) => value > 0).sort((a, b) => b[1] - a[1]));
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, value) => sum + value, 0);
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
