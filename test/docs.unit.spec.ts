import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The repository explains itself (docs/architecture.md, "Conventions" 18): comments and docs cite
 * its own pages and files, never documents kept outside it, and every path a doc names is there.
 */
const root = path.resolve(__dirname, '..');

/** Where comments and docs live: sources, tests, the benchmark, docs, CI and the root's config files. */
const SCOPES = [/^src\//, /^web\/src\//, /^web\/[^/]+$/, /^test\//, /^bench\//, /^docs\//, /^\.ci\//, /^[^/]+$/];
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|sh|yml|yaml|css|html)$|(^|\/)(Dockerfile|run|\.prettierrc)$/;
/** Made by tools, not written: a lock file names no document. */
const GENERATED = new Set(['package-lock.json']);

const repositoryFiles = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file && SCOPES.some((scope) => scope.test(file)) && TEXT.test(file) && !GENERATED.has(file) && existsSync(path.join(root, file)));

/** The documents that live beside the repository, not in it (written in pieces so this file names none). */
const OUTSIDE_DOCUMENTS = new RegExp(`(?<![\\w.-])(${['spec', 'API', 'DESIGN', 'STYLE'].join('|')})\\.md\\b`, 'gi');
const PARENT_FOLDER = /((?:\.\.\/)+)shared\b/g;

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/**
 * Every mention of an outside document, and every relative path to a `shared` folder that is not a
 * folder of the repository (the domain's `src/domain/shared` is one, imported from its siblings):
 * any other climbs out of the repository, read from the file or from the root.
 */
function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(OUTSIDE_DOCUMENTS)) found.push(`${file}:${lineOf(text, match.index)}: ${match[0]}`);
  for (const match of text.matchAll(PARENT_FOLDER)) {
    const target = path.resolve(root, path.dirname(file), match[1]!, 'shared');
    if (path.relative(root, target).startsWith('..') || !existsSync(target)) found.push(`${file}:${lineOf(text, match.index)}: ${match[0]}`);
  }
  return found;
}

const docs = () => ['README.md', ...repositoryFiles().filter((file) => /^docs\/[^/]+\.md$/.test(file))];

/** Folders the build or a run makes: named in docs, absent from a fresh checkout. */
const MADE_BY_RUNS = /^(web\/dist|dist|test-results|coverage|data|node_modules)(\/|$)/;

/** Repository paths a markdown file names: its relative links, and the paths it writes in backticks. */
function namedPaths(file: string, text: string): Array<{ line: number; target: string; resolved: string }> {
  const named: Array<{ line: number; target: string; resolved: string }> = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!.split('#')[0]!;
    if (/^[a-z][a-z+.-]*:/i.test(match[1]!) || target === '') continue;
    named.push({ line: lineOf(text, match.index), target, resolved: path.relative(root, path.resolve(root, path.dirname(file), target)) });
  }
  for (const match of text.matchAll(/`((?:src|web|test|bench|docs|\.ci)\/[^`\s]*)`/g)) {
    const target = match[1]!.replace(/[.,)]+$/, '');
    // Patterns (`src/domain/<aggregate>/`, `*.int.spec.ts`, `web/src/{app,lib}`) stand for many files.
    if (/[<*{]/.test(target)) continue;
    named.push({ line: lineOf(text, match.index), target, resolved: path.normalize(target) });
  }
  return named.filter(({ resolved }) => !MADE_BY_RUNS.test(resolved));
}

describe('The repository explains itself', () => {
  it('when any comment or doc is read, then none cites a document kept outside the repository', () => {
    const found = repositoryFiles().flatMap((file) => outsideReferences(file, readFileSync(path.join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('when README and docs/ are read, then every repository path they link to or name exists', () => {
    const missing = docs().flatMap((file) =>
      namedPaths(file, readFileSync(path.join(root, file), 'utf8'))
        .filter(({ resolved }) => resolved.startsWith('..') || !existsSync(path.join(root, resolved)))
        .map(({ line, target }) => `${file}:${line}: ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('when a file names an outside document or climbs out to a shared folder, then the check finds it, and the shared folder of the domain is no finding', () => {
    const up = '..';
    const outside = `see ${'spec'}.md section 5, ${'API'}.md and ${up}/${up}/shared/${'STYLE'}.md`;
    expect(outsideReferences('src/domain/ticket/decide.ts', outside)).toHaveLength(4);
    expect(outsideReferences('README.md', `the rules in ${up}/shared`)).toHaveLength(1);
    expect(outsideReferences('src/domain/ticket/decide.ts', `import type { Decider } from '${up}/shared/decider';`)).toEqual([]);
    expect(outsideReferences('src/domain/ticket/decide.unit.spec.ts', 'the decide.unit.spec.ts file')).toEqual([]);
  });
});
