import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { type Socket, io } from 'socket.io-client';

/** What the benchmark's scripts share: child processes, the API as a client, the chat and delivery loads. */
export const PASSWORD = 'bench-password-1';
export const root = path.resolve(__dirname, '..');

/** The app's environment on a seeded desk: the embedded engines, no Redis, quiet logs. */
export const appEnv = (dataDir: string, adminEmail: string) => ({
  PORT: '0',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  ADMIN_EMAIL: adminEmail,
  ADMIN_PASSWORD: PASSWORD,
  REDIS_URL: '',
  NODE_ENV: 'production',
});

export const log = (line: string) => process.stderr.write(`${line}\n`);
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
export const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
export const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
export const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** Starts a child process and resolves with the URL it prints when it is ready. */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; url: string; startedMs: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (process.env.BENCH_APP_LOG) {
    const kept = createWriteStream(process.env.BENCH_APP_LOG, { flags: 'a' });
    kept.write(`--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
    child.stdout!.pipe(kept, { end: false });
    child.stderr!.pipe(kept, { end: false });
  }
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output);
      if (found) {
        child.stdout!.off('data', onData);
        resolve({ child, url: found[1]!, startedMs: Number(process.hrtime.bigint() - started) / 1e6 });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-4000)}`)));
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the API
export async function api<T = any>(base: string, method: string, url: string, token?: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

export const login = async (base: string, email: string) =>
  (await api<{ accessToken: string }>(base, 'POST', '/api/auth/login', undefined, { email, password: PASSWORD })).accessToken;

/** Runs `work` over `items` with at most `limit` at a time. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

export interface Conversation {
  ticketId: string;
  customerToken: string;
}

/** Figure 2's load: 50 connections, each posting as its own customers to their own tickets. */
export async function chatLoad(base: string, conversations: Conversation[], size: { connections: number; seconds: number }): Promise<autocannon.Result> {
  let nextClient = 0;
  // Each connection rotates over its share of the conversations. Counted here: autocannon starts a
  // connection's context afresh each time it has gone through the request list, which would hold one
  // connection to its first conversation (and its customer to the rate limit).
  const shares = Array.from({ length: size.connections }, (_, client) => conversations.filter((_, index) => index % size.connections === client));
  const sentBy = new Array<number>(size.connections).fill(0);
  const result = await autocannon({
    url: base,
    connections: size.connections,
    duration: size.seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: autocannon.Request, state: object) => {
          const context = state as { client?: number };
          context.client ??= nextClient++ % size.connections;
          const sent = ++sentBy[context.client]!;
          const mine = shares[context.client]!;
          const conversation = mine[sent % mine.length] ?? conversations[context.client % conversations.length]!;
          return {
            ...request,
            path: `/api/tickets/${conversation.ticketId}/messages`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${conversation.customerToken}` },
            body: JSON.stringify({ content: `chat benchmark message ${sent} from connection ${context.client}` }),
          };
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    log(`  chat load: ${result.non2xx} non-2xx answers, ${result.errors} errors of ${result.requests.total} (${JSON.stringify(result.statusCodeStats)})`);
  return result;
}

/**
 * Figure 3: customers post, agents' sockets receive `new_message`; the time between the two for
 * every message, with all conversations running at once at a chat's pace (a message every 0.2–1.2 s).
 */
export async function deliveryRun(
  base: string,
  conversations: Conversation[],
  agentTokens: string[],
  size: { messages: number },
  afterFirstSecond?: number[],
): Promise<number[]> {
  const sockets: Socket[] = [];
  const pending = new Map<string, number>();
  const latencies: number[] = [];
  let firstSentAt = Infinity;
  try {
    for (const [index, token] of agentTokens.entries()) {
      const socket = io(base, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: { token } });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('connect_error', reject);
      });
      socket.on('new_message', (payload: { message: { content: string } }) => {
        const sentAt = pending.get(payload.message.content);
        if (sentAt === undefined) return;
        pending.delete(payload.message.content);
        const latency = Number(process.hrtime.bigint()) / 1e6 - sentAt;
        latencies.push(latency);
        // The messages sent in the first second meet a freshly started app (folds and sessions not cached): told apart.
        if (sentAt - firstSentAt >= 1000) afterFirstSecond?.push(latency);
      });
      const mine = conversations.filter((_, c) => c % agentTokens.length === index);
      for (const { ticketId } of mine) {
        const answer = await socket.timeout(5000).emitWithAck('join_ticket', ticketId);
        if (!(answer as { ok: boolean }).ok) throw new Error(`agent could not join ${ticketId}`);
      }
    }
    await Promise.all(
      conversations.map(async ({ ticketId, customerToken }, c) => {
        await sleep(Math.random() * 1000);
        for (let m = 0; m < size.messages; m++) {
          const content = `delivery ${c}:${m}:${randomUUID()}`;
          const now = Number(process.hrtime.bigint()) / 1e6;
          firstSentAt = Math.min(firstSentAt, now);
          pending.set(content, now);
          await api(base, 'POST', `/api/tickets/${ticketId}/messages`, customerToken, { content });
          await sleep(200 + Math.random() * 1000);
        }
      }),
    );
    const deadline = Date.now() + 10_000;
    while (pending.size > 0 && Date.now() < deadline) await sleep(50);
    if (pending.size > 0) log(`  delivery: ${pending.size} messages never reached an agent socket`);
    return latencies;
  } finally {
    for (const socket of sockets) socket.disconnect();
  }
}

/** CPU seconds (user and system) a process has used so far, from /proc (Linux, 100 ticks a second). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the command's name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Staff on Live Tickets (docs/views.md): each agent saves a view of their open tickets waiting on the
 * desk (a message can change its count) and watches every view's count on a socket of their own.
 */
export async function watchViews(base: string, agentTokens: string[]): Promise<{ pushes: () => number; close: () => void }> {
  const sockets: Socket[] = [];
  let pushes = 0;
  for (const token of agentTokens) {
    await api(base, 'POST', '/api/views', token, { name: `Waiting ${randomUUID().slice(0, 8)}`, filters: { waiting: 'true', status: 'open,in_progress' } });
    const socket = io(base, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: { token } });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    socket.on('view_counts', () => (pushes += 1));
    await socket.timeout(5000).emitWithAck('watch_views', {});
  }
  return { pushes: () => pushes, close: () => sockets.forEach((socket) => socket.disconnect()) };
}
