import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InlineQueue } from './inline';

/**
 * Two processes on one DATA_DIR share the queue's file (docs/operations.md): one holding its write lock
 * past the busy timeout (5 s) made the other's consumer throw SQLITE_BUSY from a timer and the whole
 * process exit, as a two-process assignment run once did in CI. The consumer now waits and looks again.
 */
describe('The inline queue on a file another process writes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'inline-queue-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when another process holds the write lock past the busy timeout, then the job runs once the lock goes, and nothing throws', async () => {
    const filename = path.join(dir, 'jobs.db');
    const queue = new InlineQueue({ filename });
    try {
      const seen: string[] = [];
      queue.process('mail', async (job) => {
        seen.push(job.id);
      });
      // Due in a second: the consumer's timer looks for it while the other process holds the lock.
      await queue.add('mail', 'send', { n: 1 }, { jobId: 'held-1', delayMs: 1000 });
      const holder = spawn(
        process.execPath,
        [
          '-e',
          `const db = new (require('better-sqlite3'))(${JSON.stringify(filename)}); db.exec('BEGIN IMMEDIATE'); console.log('locked');
           setTimeout(() => { db.exec('COMMIT'); db.close(); }, 7000);`,
        ],
        { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise<void>((resolve) => holder.on('exit', () => resolve()));
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const lockedAt = Date.now();
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      try {
        const deadline = Date.now() + 25_000;
        while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        process.off('uncaughtException', onUncaught);
      }
      expect(uncaught).toEqual([]);
      expect(seen).toEqual(['held-1']);
      expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(5000);
      await exited;
    } finally {
      await queue.close();
    }
  }, 40_000);
});
