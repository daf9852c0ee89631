import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { createApp } from './api/app';
import type { AppDeps } from './api/deps';
import { type FirstAdmin, ensureFirstAdmin } from './api/identity/firstAdmin';
import { createLiveServer } from './api/live/socket';
import { ensureSystemCommands } from './api/bot/service';
import type { Config } from './platform/config';
import { projectRoot } from './platform/paths';
import { startRuntime } from './runtime';
import { startWorkers } from './workers/channels';

export interface RunningServer {
  url: string;
  deps: AppDeps;
  firstAdmin: FirstAdmin | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  logger?: Logger;
  clock?: () => Date;
  webDir?: string;
}

/**
 * The composition root: picks the adapters, catches the read models up with the log, makes sure an
 * admin exists, then serves the API, the live channel and the built web app on one port.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const runtime = await startRuntime(config, options);
  const { deps } = runtime;
  const firstAdmin = await ensureFirstAdmin(deps);
  await ensureSystemCommands(deps);
  const stopWorkers = config.WORKERS_IN_PROCESS ? await startWorkers(deps) : async () => undefined;

  const app = createApp(deps, { webDir: options.webDir ?? path.join(projectRoot(), 'web', 'dist') });
  const httpServer = createServer(app);
  const io = createLiveServer(httpServer, deps);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.PORT, resolve);
  });
  const { port } = httpServer.address() as AddressInfo;
  const url = `http://localhost:${port}`;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await io.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await stopWorkers();
      await runtime.close();
    })());
  return { url, deps, firstAdmin, close };
}
