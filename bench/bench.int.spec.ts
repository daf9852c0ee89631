import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/platform/paths';

/**
 * The benchmark's smoke run (CI): every figure is produced with its baseline from the same run and
 * written as JSON and as a table. How fast is for `npm run bench` to say, never for a test.
 */
describe('npm run bench, smoke size', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-smoke-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('measures the ten figures beside their baselines and writes results.json and results.md', () => {
    const printed = execFileSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'bench/run.ts', '--size', 'smoke', '--server', 'tsx', '--out', out],
      {
        cwd: projectRoot(),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 170_000,
      },
    );
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    expect(results.size).toBe('smoke');
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.figures.map((figure: { id: string }) => figure.id)).toEqual([
      'append',
      'chat',
      'delivery',
      'long',
      'replay',
      'restart',
      'dashboard',
      'memory',
      'list',
      'search',
    ]);
    for (const figure of results.figures) {
      expect(figure.baseline).not.toBe('');
      // Targets are judged at the full size only.
      expect(figure.holds).toBeNull();
      for (const value of Object.values(figure.values)) expect(Number.isFinite(value)).toBe(true);
    }
    const byId = Object.fromEntries(results.figures.map((figure: { id: string; values: Record<string, number> }) => [figure.id, figure.values]));
    expect(byId.replay.events).toBeGreaterThanOrEqual(3000);
    expect(byId.delivery.messages).toBe(8 * 3);
    expect(byId.chat.rps).toBeGreaterThan(0);
    expect(byId.chat.non2xx).toBe(0);
    expect(byId.long.messages).toBe(60);
    expect(byId.memory.startRssMb).toBeGreaterThan(0);
    expect(byId.search.postings).toBeGreaterThan(0);
    expect(byId.search.healthSlowestMs).toBeGreaterThan(0);
    expect(byId.restart.restartMs).toBeGreaterThan(0);
    expect(readFileSync(path.join(out, 'results-smoke.json'), 'utf8')).toBe(readFileSync(path.join(out, 'results.json'), 'utf8'));
    const table = readFileSync(path.join(out, 'results.md'), 'utf8');
    expect(table).toContain('| # | Figure | Result | Baseline (same run) | Target | Holds |');
    expect(table.split('\n').filter((line) => /^\| \d+ \|/.test(line))).toHaveLength(10);
    expect(printed).toBe(table);
  }, 180_000);
});
