import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Directories a suite makes under the system's temp folder, removed together when it ends: call `removeAll` from
 * `afterAll`, since a directory is made inside a test or a hook, where no hook of its own can be registered.
 */
export function tempDirs(prefix: string): { make(): string; file(name: string): string; removeAll(): void } {
  const made: string[] = [];
  const make = (): string => {
    const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
    made.push(dir);
    return dir;
  };
  return {
    make,
    file: (name) => path.join(make(), name),
    removeAll: () => {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
