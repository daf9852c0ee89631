import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { type Conversation, chatLoad, cpuSecondsOf, log, root, startProcess, stopProcess } from './harness';

const project = path.join(root, 'bench/mongo-java-server');
const jar = path.join(project, 'target/fast-mongo-1.jar');
const source = path.join(project, 'src/main/java/desk/bench/FastMongo.java');

/** Commands that read: on the request path none should be sent once the caches are warm (docs/read-models.md). */
const READS = new Set(['find', 'aggregate', 'count', 'distinct', 'getMore', 'listCollections', 'listIndexes']);

export interface FastMongo {
  url: string;
  /** The commands the server was sent so far, by `command collection` (the handshake and monitoring left out). */
  counters(): Promise<Record<string, number>>;
  /** Milliseconds the server spent so far, by command and collection. */
  millis(): Promise<Record<string, number>>;
  /** Documents written so far: the statements of the insert, update and delete commands (each of a bulk write's counts). */
  writes(): Promise<number>;
  /** CPU seconds the server has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Starts mongo-java-server's in-memory backend as a MongoDB for timing (bench/mongo-java-server,
 * built with Maven the first time or when its source changed): FerretDB, the test tier's MongoDB,
 * spends tens of milliseconds of its own per message, which would hide the app's cost.
 */
export async function startFastMongo(): Promise<FastMongo> {
  if (!existsSync(jar) || statSync(jar).mtimeMs < statSync(source).mtimeMs) {
    log('building the fast MongoDB wire server (mvn package in bench/mongo-java-server) ...');
    execFileSync('mvn', ['-q', '-B', 'package', '-DskipTests'], { cwd: project, stdio: 'inherit' });
  }
  const server = await startProcess(
    'java',
    ['-XX:+UseParallelGC', '-cp', `${jar}${path.delimiter}${path.join(project, 'target/lib/*')}`, 'desk.bench.FastMongo', '127.0.0.1', '0'],
    {},
    /listening on (mongodb:\/\/\S+)/,
  );
  const url = `${server.url}/bench`;
  const client = new MongoClient(url);
  /** What the launcher counted so far (its command `deskBenchCounters`). */
  const counted = () => client.db('admin').command({ deskBenchCounters: 1 });
  return {
    url,
    counters: async () => (await counted()).commands as Record<string, number>,
    millis: async () => (await counted()).millis as Record<string, number>,
    writes: async () => Number((await counted()).writes),
    cpuSeconds: () => cpuSecondsOf(server.child.pid!),
    async stop() {
      await client.close();
      await stopProcess(server.child);
    },
  };
}

export interface MeasuredChat {
  result: autocannon.Result;
  /** Messages answered 2xx. */
  messages: number;
  cpuMsPerMessage: number;
  /** Only on the fast server, which counts what it is sent. */
  commandsPerMessage?: number;
  readsPerMessage?: number;
  serverCpuMsPerMessage?: number;
  commands?: Record<string, number>;
  /** The server's milliseconds per command and collection over the load: what its CPU goes to. */
  serverMillis?: Record<string, number>;
}

/** The chat load against an app process, with the CPU it spent per message and, on the fast server, the commands it sent. */
export async function measuredChat(
  base: string,
  appPid: number,
  conversations: Conversation[],
  load: { connections: number; seconds: number },
  mongo?: FastMongo,
): Promise<MeasuredChat> {
  const before = { cpu: cpuSecondsOf(appPid), counters: await mongo?.counters(), millis: await mongo?.millis(), serverCpu: mongo?.cpuSeconds() };
  const result = await chatLoad(base, conversations, load);
  // The checkpoints of the last pages are stored within 100 ms of them.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const messages = result['2xx'];
  const cpuMsPerMessage = ((cpuSecondsOf(appPid) - before.cpu) * 1000) / messages;
  if (!mongo || !before.counters) return { result, messages, cpuMsPerMessage };
  const since = (now: Record<string, number>, then: Record<string, number> = {}) =>
    Object.fromEntries(
      Object.entries(now)
        .map(([name, count]) => [name, Math.round((count - (then[name] ?? 0)) * 10) / 10] as const)
        .filter(([, count]) => count > 0),
    );
  const commands = since(await mongo.counters(), before.counters);
  const sum = (names: string[]) => names.reduce((total, name) => total + (commands[name] ?? 0), 0);
  return {
    result,
    messages,
    cpuMsPerMessage,
    commandsPerMessage: sum(Object.keys(commands)) / messages,
    readsPerMessage: sum(Object.keys(commands).filter((name) => READS.has(name.split(' ')[0]!))) / messages,
    serverCpuMsPerMessage: ((mongo.cpuSeconds() - before.serverCpu!) * 1000) / messages,
    commands,
    serverMillis: since(await mongo.millis(), before.millis),
  };
}
