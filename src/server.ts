import { type RequestListener, STATUS_CODES, type Server, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { StartingError } from '#contract/errors';
import { createApp } from './api/app';
import type { AppDeps } from './app/deps';
import { type FirstAdmin, ensureFirstAdmin } from './app/identity/firstAdmin';
import { createLiveServer } from './api/live/socket';
import { createMetricsApp } from './api/metrics/routes';
import { registerDeskMetrics } from './app/metrics';
import { ensureSystemCommands } from './app/bot/service';
import { STARTING_RETRY_AFTER_SECONDS } from './app/startup';
import type { Config } from './platform/config';
import type { EventStore } from './platform/eventstore/port';
import { projectRoot } from './platform/paths';
import { createRuntime } from './runtime';
import { startWorkers } from './workers/channels';

export interface RunningServer {
  url: string;
  /** The METRICS_PORT listener's /metrics, when one is configured. */
  metricsUrl: string | null;
  deps: AppDeps;
  /**
   * Settles once the read models have caught up with the log, the first admin exists and the
   * in-process workers run: from then on every route answers. Until then the server already listens,
   * `/api/health` says `starting` and every other route answers 503 with Retry-After. Rejects when the
   * start fails (the log cannot be read, or the server was closed first).
   */
  ready: Promise<{ firstAdmin: FirstAdmin | null }>;
  close(): Promise<void>;
  /** What a close under way waits on now (`null` before it starts and once it ended): main.ts names it when a stop overruns. */
  closingStage(): string | null;
}

export interface ServerOptions {
  logger?: Logger;
  clock?: () => Date;
  webDir?: string;
  /** An event log built by the caller instead of the one the configuration picks (tests wrap one). */
  events?: EventStore;
}

/**
 * Node holds a request for 300 s by default, and checks only every 30 s: a few slow senders could keep
 * connections open for minutes. The limits come from the configuration (docs/operations.md, "Timeouts");
 * a check each second cuts a slow one soon after its limit.
 */
const httpServer = (config: Config, listener: RequestListener) =>
  createServer(
    {
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS),
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
    },
    listener,
  ).on('clientError', answerUnreadable);

/** What Node's parser refuses before any route runs, said as the API says its errors (docs/contract.md). */
const UNREADABLE: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and headers are too large (more than 16 KB: a shorter query string, or fewer cookies)', 'HEADERS_TOO_LARGE'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive', 'REQUEST_TIMEOUT'],
};

/**
 * Node's own answer to a request it cannot parse is a bare status with no body. The same statuses
 * (431 for headers over the limit, 408 for a request that never finished, 400 otherwise) with the
 * API's `{ error, code }`; a socket that cannot be written to, or whose answer began, is closed as Node does.
 */
function answerUnreadable(error: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message, code] = UNREADABLE[error.code ?? ''] ?? [400, 'The request is not readable HTTP', 'BAD_REQUEST'];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** A port another process holds: the start stops with this message, before anything else is opened. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}

const listen = (server: Server, port: number, variable: 'PORT' | 'METRICS_PORT') =>
  new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(`Port ${port} is already in use by another process. Stop that process, or set ${variable} to a free port.`)
          : error,
      ),
    );
    server.listen(port, resolve);
  });

/** What a request that comes in before the app exists gets: the same answer as any route while starting. */
const answerStarting: RequestListener = (_request, response) => {
  const starting = new StartingError(STARTING_RETRY_AFTER_SECONDS);
  response.writeHead(starting.status, { 'content-type': 'application/json', 'retry-after': String(starting.retryAfterSeconds) });
  response.end(JSON.stringify({ error: starting.message, code: starting.code }));
};

/** How long requests still being answered at a stop (long polls woken by it among them) have to finish before their connections are cut. */
const CLOSE_GRACE_MS = 1000;

/** Stops taking connections and closes the idle ones (Node's `close`), and cuts the rest once the grace is over. */
const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
  });

/**
 * The composition root: picks the adapters and serves the API, the live channel and the built web
 * app on one port at once; then, in the background, catches the read models up with the log and
 * makes sure an admin exists (see `ready`). A large log no longer keeps the port closed.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  // The ports are taken first, so a busy one stops the start before any store or Redis is connected.
  let handle = answerStarting;
  let handleMetrics = answerStarting;
  const server = httpServer(config, (request, response) => handle(request, response));
  const metricsServer = config.METRICS_PORT !== undefined ? httpServer(config, (request, response) => handleMetrics(request, response)) : null;
  const closeListeners = async () => {
    if (server.listening) await closeServer(server);
    if (metricsServer?.listening) await closeServer(metricsServer);
  };
  let runtime: Awaited<ReturnType<typeof createRuntime>>;
  try {
    await listen(server, config.PORT, 'PORT');
    if (metricsServer) await listen(metricsServer, config.METRICS_PORT!, 'METRICS_PORT');
    runtime = await createRuntime(config, options);
  } catch (error) {
    await closeListeners();
    throw error;
  }
  const { deps } = runtime;

  handle = createApp(deps, { webDir: options.webDir ?? path.join(projectRoot(), 'web', 'dist') });
  const io = createLiveServer(server, deps);
  registerDeskMetrics(deps);
  if (metricsServer) handleMetrics = createMetricsApp(deps);
  const { port } = server.address() as AddressInfo;
  const url = `http://localhost:${port}`;
  const metricsUrl = metricsServer ? `http://localhost:${(metricsServer.address() as AddressInfo).port}/metrics` : null;

  let closingStarted = false;
  let stopWorkers: () => Promise<void> = async () => undefined;
  const ready = (async () => {
    await runtime.catchUp();
    if (closingStarted) throw new Error('The server was closed before its read models caught up');
    const firstAdmin = await ensureFirstAdmin(deps);
    await ensureSystemCommands(deps);
    if (config.WORKERS_IN_PROCESS) stopWorkers = await startWorkers(deps);
    deps.startup.markReady();
    return { firstAdmin };
  })();
  // Whoever started the server awaits `ready`; this keeps a failure seen only there from also
  // surfacing as an unhandled rejection.
  ready.catch(() => undefined);

  let closing: Promise<void> | null = null;
  let stage: string | null = null;
  const step = async (name: string, work: () => Promise<unknown>) => {
    stage = name;
    await work();
  };
  const close = () =>
    (closing ??= (async () => {
      closingStarted = true;
      // Ends a catch-up still running, so the start settles before anything is released.
      await step('stopping the projections', () => deps.projections.stop());
      await step('settling the start', () => ready.catch(() => undefined));
      // Together: socket.io's close also closes the HTTP server, which waits for every connection to end.
      await step('closing the live channel and the listeners', () => Promise.all([io.close(), closeListeners()]));
      await step('stopping the workers', stopWorkers);
      await step('closing the stores', () => runtime.close());
      stage = null;
    })());
  return { url, metricsUrl, deps, ready, close, closingStage: () => stage };
}
