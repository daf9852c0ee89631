/**
 * `npx tsx bench/profile.ts <file.cpuprofile> [--per 2000] [--top 30]`: a V8 CPU profile (`node --cpu-prof`)
 * as self time per function and per source file, and divided by `--per` (the posts of a
 * `bench/posts.ts` run) as milliseconds per post; files under src/ by their path, native code and
 * the garbage collector by V8's names.
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
  options: { per: { type: 'string', default: '1' }, top: { type: 'string', default: '30' } },
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
  const inRepo = path.relative(path.resolve(__dirname, '..'), file);
  return inRepo.startsWith('node_modules') ? inRepo.split('/').slice(0, 2).join('/') : inRepo.startsWith('..') ? path.basename(file) : inRepo;
};
let total = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  const frame = nodes.get(id)!.callFrame;
  if (frame.functionName === '(idle)') return;
  total += micros;
  const file = where(frame.url);
  const name = `${frame.functionName || '(anonymous)'} ${file}${frame.url ? `:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : ''}`;
  const onStack = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const { functionName, url } = nodes.get(at)!.callFrame;
    if (functionName && url.includes('/src/')) onStack.add(`${functionName} ${where(url)}`);
  }
  for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
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
table('by file', byFile);
table('by function', byFunction);
table('by function, with what it calls (src/ only)', inclusive);
