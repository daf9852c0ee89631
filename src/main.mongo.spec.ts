import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call } from '../test/support/appProcesses';
import { deployment } from '../test/support/deskProcesses';
import { eventually } from '../test/support/eventually';
import { ferretDbBinary, startFerretDb } from '../test/support/ferretdb';

/**
 * A stop (SIGTERM) is bounded: an operator's `docker stop` or a deploy must not wait on a MongoDB that
 * no longer answers. Here the MongoDB server is frozen (SIGSTOP: its connections stay open and nothing
 * comes back, the way a hung host behaves), so the app's step-down cannot release its lease.
 */
describe('Stopping the app while its MongoDB server does not answer', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('when SIGTERM comes, then a stop with the store answering exits 0, and one with the store frozen exits 1 within 8 s naming what it waited on, and the app starts again once the store is back', async () => {
    const binary = await ferretDbBinary(() => undefined);
    const dir = mkdtempSync(path.join(tmpdir(), 'desk-shutdown-ferretdb-'));
    const ferret = await startFerretDb(binary, dir);
    cleanups.push(async () => {
      ferret.child.kill('SIGCONT');
      ferret.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const desk = deployment(`mongodb://${ferret.address}/desk_shutdown`);
    cleanups.push(desk.dispose);

    const first = await desk.start();
    let askedAt = Date.now();
    expect((await desk.stop(first.child)).ended).toBe('0');
    process.stderr.write(`[shutdown] store answering: exited 0 in ${Date.now() - askedAt} ms\n`);

    const second = await desk.start();
    ferret.child.kill('SIGSTOP');
    askedAt = Date.now();
    const { ended, output } = await desk.stop(second.child);
    const took = Date.now() - askedAt;
    process.stderr.write(`[shutdown] store frozen: exited ${ended} in ${took} ms\n`);
    expect(ended).toBe('1');
    expect(took).toBeGreaterThanOrEqual(8000);
    expect(took).toBeLessThan(12_000);
    const gaveUp = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; stage?: string | null })
      .find((line) => line.msg === 'shutdown did not finish in time; exiting');
    expect(gaveUp?.stage).toEqual(expect.stringMatching(/^(stopping the projections|closing the stores)$/));

    ferret.child.kill('SIGCONT');
    const third = await desk.start();
    await eventually(async () => (await call(third.url, 'GET', '/api/health')).body?.status === 'ok', {
      timeoutMs: 30_000,
      describe: 'health ok after the start',
    });
    expect((await desk.stop(third.child)).ended).toBe('0');
  }, 120_000);
});
