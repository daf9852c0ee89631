/**
 * Runs one test tier several times in a row on the same build and counts the runs that failed, to
 * tell a steady suite from a flaky one (`npm run test:e2e:repeat -- 10`). Each run is a fresh Jest
 * process; the failing runs' output is kept under test-results/repeat/ so a one-in-ten failure can be
 * read afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const say = (line: string) => process.stdout.write(`${line}\n`);

const [runsArg = '10', project = 'e2e', ...jestArgs] = process.argv.slice(2);
const runs = Number(runsArg);
if (!/^[1-9]\d*$/.test(runsArg)) {
  console.error(`usage: npm run test:e2e:repeat -- [runs (default 10)] [jest project (default e2e)] [jest arguments...]; got runs=${runsArg}`);
  process.exit(2);
}
const logs = path.join('test-results', 'repeat');
mkdirSync(logs, { recursive: true });

let failed = 0;
for (let run = 1; run <= runs; run += 1) {
  const started = Date.now();
  const result = spawnSync('npx', ['jest', '--selectProjects', project, ...jestArgs], { encoding: 'utf8', env: process.env });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const output = `${result.stdout}\n${result.stderr}`;
  const tests = /Tests:\s+(.*)/.exec(output)?.[1] ?? 'no summary';
  if (result.status === 0) {
    say(`run ${run}/${runs}: green in ${seconds} s (${tests})`);
  } else {
    failed += 1;
    const file = path.join(logs, `run-${run}.log`);
    writeFileSync(file, output);
    const failing = [...output.matchAll(/^\s*● (.+)$/gm)].map((match) => match[1]).slice(0, 5);
    say(`run ${run}/${runs}: FAILED in ${seconds} s (${tests}); output in ${file}`);
    for (const name of failing) say(`    ● ${name}`);
  }
}
say(`${project} tier, ${runs} runs: ${runs - failed} green, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
