import Database from 'better-sqlite3';

/**
 * Times every better-sqlite3 statement run in this process (its prepared SQL, the method, the time in the
 * native call) by wrapping the Statement prototype's `run`, `get`, `all` and `iterate`. The write side's
 * work is mostly SQLite's (docs/benchmark.md): a CPU profile shows it as native `run` and `get`, this says
 * which statements. `bench/posts.ts --statements` prints the table per post. Costs about a microsecond a
 * statement; for measuring only.
 */
export function timeStatements(): { reset(): void; table(per: number, top?: number): string } {
  const times = new Map<string, { count: number; ns: number }>();
  const prototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = prototype[method]!;
    prototype[method] = function timed(this: { source: string }, ...args: unknown[]) {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const key = `${method} ${this.source.replace(/\s+/g, ' ').slice(0, 150)}`;
        const entry = times.get(key) ?? { count: 0, ns: 0 };
        entry.count += 1;
        entry.ns += Number(process.hrtime.bigint() - started);
        times.set(key, entry);
      }
    };
  }
  return {
    reset: () => times.clear(),
    table: (per, top = 40) => {
      const rows = [...times].sort((a, b) => b[1].ns - a[1].ns);
      const ns = rows.reduce((sum, [, entry]) => sum + entry.ns, 0);
      const count = rows.reduce((sum, [, entry]) => sum + entry.count, 0);
      const lines = rows
        .slice(0, top)
        .map(([key, entry]) => `${(entry.ns / 1e6 / per).toFixed(4).padStart(9)} ms ${(entry.count / per).toFixed(2).padStart(7)}x  ${key}`);
      return [`statements: ${(ns / 1e6 / per).toFixed(3)} ms and ${(count / per).toFixed(1)} statements per unit (native time only)`, ...lines].join('\n');
    },
  };
}
