import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../../src/platform/config';
import type { FirstAdmin } from '../../src/app/identity/firstAdmin';
import type { EventStore } from '../../src/platform/eventstore/port';
import { type RunningServer, startServer } from '../../src/server';
import { dropDatabase, readModelsUrl } from './mongo';

/** The URL an app process (`src/main.ts`) prints once it is ready; rejects if it exits first. */
export function urlOfStarted(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /running at (http:\/\/\S+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the app process exited with ${code}: ${output}`)));
  });
}

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

/** A test server's stop past this long says, every so long, which step of the close it is in. */
const SLOW_STOP_MS = 5000;

export interface TestServer extends RunningServer {
  dataDir: string;
  firstAdmin: FirstAdmin | null;
  request(
    method: string,
    url: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper reads arbitrary JSON;
  login(email?: string, password?: string): Promise<string>;
  /** Signs in and returns the whole answer: user, access token and refresh token. */
  signIn(email?: string, password?: string): Promise<{ user: { _id: string; role: string }; accessToken: string; refreshToken: string }>;
  /** GET /api/health as the first admin: the detailed answer (lag, deliveries, channels, problems); everyone else gets `{ status }`. */
  health(): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper reads arbitrary JSON;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * A real server on port 0 with its own DATA_DIR: real HTTP, embedded adapters unless env says
 * otherwise (or MONGO_URL is set in the test process: then the read models are in a database of
 * their own on that server, see `readModelsUrl`). Resolves once the server is ready (read models caught up, first admin made); `events`
 * replaces the configured event log (a wrapper that holds the catch-up, for instance).
 */
export async function startTestServer(
  options: { dataDir?: string; env?: Record<string, string>; defaultRateLimit?: boolean; clock?: () => Date; events?: EventStore; logger?: Logger } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'desk-test-'));
  const mongoUrl = readModelsUrl(dataDir);
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'silent',
    // fetch (undici) keeps an idle connection for the time the server announces (Keep-Alive: timeout=N) less
    // 2 s, at most 600 s, on timers that run late while this shared event loop is busy: a connection left
    // idle about that long can be closed by the server as fetch reuses it (ECONNRESET, seen at 30 s with the
    // test's own work holding the loop). At 600 s, the most the configuration takes, that needs a connection
    // idle for ten minutes, which no test has.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000',
    ...(mongoUrl ? { MONGO_URL: mongoUrl } : {}),
    // READSTORE=sqlite in the test process runs the suites with the read models in DATA_DIR/readstore.db (docs/readstore.md).
    ...(process.env.READSTORE ? { READSTORE: process.env.READSTORE } : {}),
    // The suites' servers apply the log on the thread that answers them (they read `projections` as the writer), unless
    // PROJECTIONS_THREAD=true in the test process or the test's env asks for the projection thread (thread.int.spec.ts).
    PROJECTIONS_THREAD: process.env.PROJECTIONS_THREAD ?? 'false',
    ...options.env,
  });
  const server = await startServer(config, {
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.events ? { events: options.events } : {}),
  });
  let firstAdmin: FirstAdmin | null;
  try {
    ({ firstAdmin } = await server.ready);
  } catch (error) {
    await server.close();
    throw error;
  }
  const request: TestServer['request'] = async (method, url, { token, body, headers } = {}) => {
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    // Headers are not enumerable, so whole-response equality in tests compares status and body.
    return Object.defineProperty({ status: response.status, body: parsed }, 'headers', { value: response.headers, enumerable: false }) as {
      status: number;
      body: unknown;
      headers: Headers;
    };
  };
  const signIn: TestServer['signIn'] = async (email = ADMIN.email, password = ADMIN.password) => {
    const { status, body } = await request('POST', '/api/auth/login', { body: { email, password } });
    if (status !== 200) throw new Error(`login failed: ${status} ${JSON.stringify(body)}`);
    return body;
  };
  if (!options.defaultRateLimit) {
    // Suites send hundreds of calls from one address in seconds; the product's default (100 per 15
    // minutes) is tested on its own, so other suites raise it to the highest allowed value.
    try {
      const token = (await signIn()).accessToken;
      const raised = await request('PUT', '/api/settings', { token, body: { rateLimitMaxRequests: 1000, rateLimitWindowMs: 60_000 } });
      if (raised.status !== 200) throw new Error(`could not raise the rate limit: ${raised.status} ${JSON.stringify(raised.body)}`);
    } catch (error) {
      // A server left running here kept Jest from exiting after the failure was reported.
      await server.close();
      throw error;
    }
  }
  let adminToken: string | null = null;
  const health: TestServer['health'] = async () => {
    adminToken ??= (await signIn()).accessToken;
    const answer = await request('GET', '/api/health', { token: adminToken });
    if (answer.body?.projections) return answer;
    // The session ended (a test signed the admin out): once more with a new one.
    adminToken = (await signIn()).accessToken;
    return request('GET', '/api/health', { token: adminToken });
  };
  return {
    ...server,
    firstAdmin,
    dataDir,
    request,
    health,
    signIn,
    login: async (email = ADMIN.email, password = ADMIN.password) => (await signIn(email, password)).accessToken,
    async stop({ keepData = false } = {}) {
      // A stop that hangs fails its suite's hook with no word of where: this says which step it is in.
      const slow = setInterval(() => process.stderr.write(`[slow stop] ${server.url} still ${server.closingStage() ?? 'closing'}\n`), SLOW_STOP_MS);
      try {
        await server.close();
      } finally {
        clearInterval(slow);
      }
      if (keepData) return;
      rmSync(dataDir, { recursive: true, force: true });
      if (mongoUrl && config.MONGO_URL === mongoUrl) await dropDatabase(mongoUrl);
    },
  };
}
