/**
 * `npx tsx bench/profile.ts <file.cpuprofile> [--per 2000] [--top 30]`: a V8 CPU profile (`node --cpu-prof`)
 * as self time per function and per source file, and divided by `--per` (the posts of a
 * `bench/posts.ts` run) as milliseconds per post; files under src/ by their path, native code and
 * the garbage collector by V8's names. `--groups` adds a table by part of a post: the load's own client,
 * each projection (the outermost frame of its file, so its store calls count to it), each reaction and
 * the live pushes, the read store's commit and checkpoints, and the request path by step.
 * `--from S --to S` keeps the samples of that window (seconds from the profile's start: one phase of a
 * bench run's app); `--timeline` prints the busy milliseconds of each 100 ms, to find the phases.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    per: { type: 'string', default: '1' },
    top: { type: 'string', default: '30' },
    groups: { type: 'boolean', default: false },
    from: { type: 'string' },
    to: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
/** Time with the function anywhere on the stack (each function once per sample), for named functions of src/. */
const inclusive = new Map<string, number>();
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const where = (url: string) => {
  if (!url) return '(native)';
  const file = url.replace(/^file:\/\//, '');
  // node_modules may be a link to another checkout's: name a package by its path under node_modules wherever it is.
  const inRepo = file.includes('/node_modules/') ? file.slice(file.lastIndexOf('/node_modules/') + 1) : path.relative(path.resolve(__dirname, '..'), file);
  return inRepo.startsWith('node_modules') ? inRepo.split('/').slice(0, 2).join('/') : inRepo.startsWith('..') ? path.basename(file) : inRepo;
};
/** The runner's own files: a projection is named by the outermost frame of another file of src/projections. */
const runnerFiles = new Set(['runner', 'apply', 'processor', 'waiters', 'buffered', 'faults', 'events', 'leadership']);
/** The part of a post a sample belongs to, from its stack (outermost frame first). */
const groupOf = (stack: { functionName: string; file: string }[]): string => {
  const files = stack.map((frame) => frame.file);
  const has = (test: (file: string) => boolean) => files.some(test);
  if (has((file) => file.includes('undici') || file.startsWith('test/support'))) return 'load generator (the client)';
  const projection = files.find((file) => /^src\/projections\/\w+\.ts$/.test(file) && !runnerFiles.has(path.basename(file, '.ts')));
  if (projection) return `projection ${path.basename(projection, '.ts')}`;
  if (stack.some((frame) => frame.functionName === 'saveCheckpoints')) return 'runner: checkpoints';
  const ours = files.filter((file) => file.startsWith('src/'));
  if (ours.length > 0 && ours.every((file) => file.startsWith('src/platform/readstore/'))) return 'read store: page commit (BEGIN, COMMIT)';
  const worker = files.find((file) => file.startsWith('src/workers/'));
  if (worker) return `reaction ${worker.replace(/^src\/workers\//, '').replace(/\.ts$/, '')}`;
  if (has((file) => file.startsWith('src/api/live/'))) return 'live pushes';
  if (has((file) => file.startsWith('src/projections/'))) return 'runner (pages, waiters)';
  // The request path runs its middleware as a chain of calls, so a step is named by the innermost frame of ours or of a package.
  const inner = [...stack]
    .reverse()
    .find((frame) => frame.file.startsWith('src/') || (frame.file.startsWith('node_modules/') && frame.file !== 'node_modules/better-sqlite3'));
  if (inner && has((file) => file.startsWith('src/api/') || file.startsWith('src/app/') || file.startsWith('src/platform/'))) {
    const file = inner.file;
    if (file.startsWith('node_modules/')) return 'request: express, body parsing, zod';
    if (file.startsWith('src/platform/eventstore/')) return 'request: append (event store)';
    if (file === 'src/platform/commands.ts' || file.startsWith('src/domain/')) return 'request: command (stream, decide)';
    if (file === 'src/app/idempotency.ts') return 'request: idempotency';
    if (['src/api/http/auth.ts', 'src/app/caches.ts', 'src/api/http/guards.ts', 'src/contract/apiTokens.ts'].includes(file))
      return 'request: auth, caches, guards';
    if (file === 'src/api/http/requests.ts') return 'request: request log';
    if (file.startsWith('src/platform/readstore/')) return 'request: read store reads';
    return `request: ${file.replace(/^src\//, '')}`;
  }
  if (has((file) => file.startsWith('node_modules/express') || file.startsWith('node_modules/router'))) return 'request: express, body parsing, zod';
  const leaf = stack.at(-1)!;
  if (leaf.functionName === '(garbage collector)') return 'garbage collector';
  if (has((file) => file.startsWith('node:'))) return 'node: http, streams, timers (both sides)';
  return `other: ${leaf.functionName || '(anonymous)'} ${leaf.file}`;
};
const byGroup = new Map<string, number>();
/** Self time per function within each group, for the group's top entries. */
const groupLeaves = new Map<string, Map<string, number>>();
let total = 0;
// `--from`/`--to`: only the samples in that window, in seconds from the profile's start; `--timeline`: busy ms per 100 ms.
const from = values.from === undefined ? -Infinity : Number(values.from) * 1e6;
const to = values.to === undefined ? Infinity : Number(values.to) * 1e6;
const busyPerTenth = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  at += micros;
  const frame = nodes.get(id)!.callFrame;
  if (frame.functionName === '(idle)' || at < from || at > to) return;
  busyPerTenth.set(Math.floor(at / 1e5), (busyPerTenth.get(Math.floor(at / 1e5)) ?? 0) + micros);
  total += micros;
  const file = where(frame.url);
  const name = `${frame.functionName || '(anonymous)'} ${file}${frame.url ? `:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : ''}`;
  const onStack = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const { functionName, url } = nodes.get(at)!.callFrame;
    if (functionName && url.includes('/src/')) onStack.add(`${functionName} ${where(url)}`);
  }
  for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
  if (values.groups) {
    const stack: { functionName: string; file: string }[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const { functionName, url } = nodes.get(at)!.callFrame;
      stack.unshift({ functionName, file: where(url) });
    }
    const group = groupOf(stack);
    byGroup.set(group, (byGroup.get(group) ?? 0) + micros);
    const leaves = groupLeaves.get(group) ?? new Map<string, number>();
    groupLeaves.set(group, leaves);
    leaves.set(name, (leaves.get(name) ?? 0) + micros);
  }
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(file, (byFile.get(file) ?? 0) + micros);
});
const per = Number(values.per);
const top = Number(values.top);
const table = (title: string, entries: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${(micros / 1000 / per).toFixed(4).padStart(9)} ms  ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
};
process.stdout.write(`busy ${(total / 1000).toFixed(0)} ms, ${(total / 1000 / per).toFixed(3)} ms per unit\n`);
if (values.timeline)
  process.stdout.write(
    `busy ms per 100 ms, from the profile's start (s):\n${[...busyPerTenth]
      .filter(([, micros]) => micros >= 20_000)
      .map(([tenth, micros]) => `${(tenth / 10).toFixed(1)}:${(micros / 1000).toFixed(0)}`)
      .join(' ')}\n`,
  );
if (values.groups) {
  table('by part of a post', byGroup);
  for (const [group] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    process.stdout.write(`  ${group}:\n`);
    for (const [name, micros] of [...groupLeaves.get(group)!].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.LEAVES ?? 6)))
      process.stdout.write(`    ${(micros / 1000 / per).toFixed(4).padStart(9)} ms  ${name}\n`);
  }
}
table('by file', byFile);
table('by function', byFunction);
table('by function, with what it calls (src/ only)', inclusive);
