import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { type TierConfig, reportOpenHandles } from './openHandles';
import { stopRedis } from './services';

/** The FerretDB the `mongo` tier's set-up started; Jest runs set-up and teardown in one process. */
export const ferretDbState: { started?: { child: ChildProcess; dir: string } } = ((globalThis as { __deskFerretDb?: object }).__deskFerretDb ??= {});

/**
 * Stops the FerretDB the set-up started (none when MONGO_URL named a server) and removes its files, and
 * the Redis it started, if any; as the tier's teardown (told its project), arms the hang guard after.
 */
export default async function teardown(_global?: unknown, project?: TierConfig): Promise<void> {
  await stopFerretDb();
  if (project) reportOpenHandles(project);
}

async function stopFerretDb(): Promise<void> {
  await stopRedis();
  const { started } = ferretDbState;
  if (!started) return;
  delete ferretDbState.started;
  delete process.env.MONGO_URL;
  const { child, dir } = started;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
