import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from './platform/paths';

/** The app process (`src/main.ts`), as `npm start` runs it, with its own DATA_DIR. */
function startApp(env: Record<string, string>, args: string[] = []): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts', ...args], {
    cwd: projectRoot(),
    env: { ...process.env, LOG_LEVEL: 'warn', ADMIN_PASSWORD: 'admin-password-1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

const STACK_FRAME = /^\s+at /m;

describe('Starting the app process', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'desk-main-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it.each([
    ['the embedded stores', {}],
    // Redis was where the old start died: its connections were closed under pending commands.
    ['Redis', { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: `main-busy-${process.pid}` }],
  ])(
    'when the port is taken by another process (with %s), then it exits 1 with one line naming the port, and no stack',
    async (_name, env) => {
      const busy: Server = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '0.0.0.0', resolve));
      const { port } = busy.address() as { port: number };
      try {
        const app = startApp({ ...env, PORT: String(port), DATA_DIR: fresh() });
        expect(await app.exit).toBe(1);
        expect(app.output().trim()).toBe(`Port ${port} is already in use by another process. Stop that process, or set PORT to a free port.`);
        expect(app.output()).not.toMatch(STACK_FRAME);
      } finally {
        busy.close();
      }
    },
    60_000,
  );
});

describe('Starting two demo desks at once', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-demo-race-'));
  const apps: Array<ReturnType<typeof startApp>> = [];
  afterAll(async () => {
    for (const app of apps) app.child.kill('SIGTERM');
    await Promise.all(apps.map((app) => app.exit));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when two --demo starts race on one empty DATA_DIR, then one seeds and runs, and the other exits 1 saying why, without a stack', async () => {
    apps.push(...[1, 2].map(() => startApp({ PORT: '0', DATA_DIR: dataDir, REDIS_URL: '' }, ['--demo'])));
    const outcomes = await Promise.all(
      apps.map(async (app) => {
        for (;;) {
          if (/running at http/.test(app.output())) return 'running';
          const exited = await Promise.race([app.exit.then((code) => ({ code })), new Promise((resolve) => setTimeout(resolve, 100))]);
          if (exited) return (exited as { code: number | null }).code;
        }
      }),
    );
    expect([...outcomes].sort()).toEqual([1, 'running']);
    const refused = apps[outcomes.indexOf(1)]!;
    process.stdout.write(`the refused demo start said: ${refused.output()}\n`);
    expect(refused.output()).toMatch(/^The demo desk (is only seeded into an empty data directory|is being seeded into this data directory by another start)/);
    expect(refused.output()).not.toMatch(STACK_FRAME);
    expect(refused.output()).not.toContain('ConflictError');
  }, 120_000);
});
