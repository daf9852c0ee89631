import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

/**
 * FerretDB for the `mongo` tier, obtained on a machine that has neither it nor Go: test/support/ferretdb.sh
 * builds it once with the Go on PATH; when there is none (or one too old to fetch the toolchain FerretDB
 * asks for), a Go toolchain is fetched first, the way `go` itself switches toolchains: the module
 * golang.org/toolchain from the Go module proxy, checked against its go.sum line before anything of it
 * runs, unpacked into ~/.cache/support-desk.
 */

const SCRIPT = path.join(__dirname, 'ferretdb.sh');
/** ferretdb.sh's exit status, asked for with FERRETDB_NO_GO_STATUS, when it has no Go to build with. */
const NO_GO = 3;
/** What FerretDB v1.24.2's go.mod asks for (`go 1.24`, `toolchain go1.24.3`). */
const TOOLCHAIN = 'go1.24.3';

/**
 * The go.sum lines of the toolchain (the hash `go mod download golang.org/toolchain@…` checks against
 * the checksum database sum.golang.org): the platform a Debian machine runs on that the proxy serves.
 * Elsewhere the test command asks for Go instead.
 */
const SUMS: Record<string, string> = {
  'v0.0.1-go1.24.3.linux-amd64': 'h1:Q/mjT/SnwTC6ul3pBoqVQHTfd50K5MlPITmS5PmsXxw=',
};

const START_TIMEOUT_MS = 30_000;

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** The path of a FerretDB binary: cached, else built, with a Go fetched first when the machine has none. */
export async function ferretDbBinary(say: (line: string) => void): Promise<string> {
  const build = (env: NodeJS.ProcessEnv) =>
    spawnSync('bash', [SCRIPT], { env: { ...env, FERRETDB_NO_GO_STATUS: String(NO_GO) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  let built = build(process.env);
  if (built.status === NO_GO) {
    const bin = await fetchedGo(say);
    built = build({ ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
  }
  if (built.status !== 0) throw new Error(`test/support/ferretdb.sh failed (${built.error?.message ?? `exit ${built.status ?? built.signal}`})`);
  return built.stdout.trim();
}

/**
 * Starts FerretDB over the files in `dir` on `address` (a free loopback port when not given) and
 * answers the address it printed once listening: the mongo tier's server, or one a fault test kills
 * and starts again on the same files and port.
 */
export function startFerretDb(binary: string, dir: string, address = '127.0.0.1:0'): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=${address}`,
      '--telemetry=disable',
      `--state-dir=${dir}`,
      // Its debug HTTP server would take 127.0.0.1:8088, which a second run on the machine also wants.
      '--debug-addr=-',
      '--log-format=text',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`FerretDB did not listen within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /Listening on TCP (127\.0\.0\.1:\d+)/.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      // Keep draining its logs so a full pipe never blocks it.
      child.stdout!.off('data', read).resume();
      child.stderr!.off('data', read).resume();
      resolve({ child, address: listening[1]! });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`FerretDB exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/** The bin directory of the toolchain FerretDB asks for, fetched once into the cache. */
async function fetchedGo(say: (line: string) => void): Promise<string> {
  const version = `v0.0.1-${TOOLCHAIN}.linux-${GOARCH[process.arch] ?? process.arch}`;
  const sum = process.platform === 'linux' ? SUMS[version] : undefined;
  if (!sum) throw new Error(`FerretDB needs Go 1.21 or later to build, and none is on PATH: install it (https://go.dev/dl)`);
  const root = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'support-desk', version.slice('v0.0.1-'.length));
  if (!existsSync(path.join(root, 'bin', 'go'))) {
    say(`Fetching ${TOOLCHAIN} (golang.org/toolchain ${version}) from the Go module proxy into ${root}, to build FerretDB`);
    await fetchToolchain({ proxy: proxyOf(process.env), version, sum, root });
  }
  return path.join(root, 'bin');
}

/** The first proxy of GOPROXY that is one (not `direct` or `off`), as `go` asks it first. */
function proxyOf(env: NodeJS.ProcessEnv): string {
  const first = (env.GOPROXY ?? '').split(/[,|]/)[0]!;
  return (/^https?:\/\//.test(first) ? first : 'https://proxy.golang.org').replace(/\/+$/, '');
}

/**
 * Downloads golang.org/toolchain@`version` from `proxy`, unpacks it into `root` and keeps it only when
 * its module hash is `sum`: a zip that does not match is refused and nothing of it is left.
 */
export async function fetchToolchain({ proxy, version, sum, root }: { proxy: string; version: string; sum: string; root: string }): Promise<void> {
  const url = `${proxy}/golang.org/toolchain/@v/${version}.zip`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const zip = Buffer.from(await response.arrayBuffer());
  const prefix = `golang.org/toolchain@${version}/`;
  const unpacking = `${root}.tmp-${process.pid}`;
  rmSync(unpacking, { recursive: true, force: true });
  try {
    const files: Array<{ name: string; sha256: string }> = [];
    for (const { name, content } of zipEntries(zip)) {
      if (!name.startsWith(prefix) || name.split('/').includes('..')) throw new Error(`${url} holds ${name}, outside its module`);
      files.push({ name, sha256: createHash('sha256').update(content).digest('hex') });
      const file = path.join(unpacking, name.slice(prefix.length));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content, { mode: executable(name.slice(prefix.length)) ? 0o755 : 0o644 });
    }
    const got = moduleHash(files);
    if (got !== sum) throw new Error(`${url} does not match its go.sum line: ${got}, expected ${sum}; nothing of it was kept`);
    mkdirSync(path.dirname(root), { recursive: true });
    rmSync(root, { recursive: true, force: true });
    renameSync(unpacking, root);
  } finally {
    rmSync(unpacking, { recursive: true, force: true });
  }
}

/** Go's module hash "h1:" (golang.org/x/mod/sumdb/dirhash Hash1): SHA-256 of the sorted "sha256  name" lines. */
function moduleHash(files: Array<{ name: string; sha256: string }>): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  return `h1:${createHash('sha256')
    .update(sorted.map(({ name, sha256 }) => `${sha256}  ${name}\n`).join(''))
    .digest('base64')}`;
}

/** A module zip keeps no file modes: `go` sets these bits on a toolchain it unpacks (cmd/go/internal/toolchain). */
const executable = (file: string) => /^(bin|pkg\/tool)\//.test(file) || /^lib\/(.+\/)?go_[^/]+_[^/]+_exec$/.test(file);

/** The files of a zip (stored or deflated, no ZIP64: a module zip is under 500 MB and 65,535 files). */
function* zipEntries(zip: Buffer): Generator<{ name: string; content: Buffer }> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let index = 0; index < count; index += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('not a zip: broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + skip;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name} uses compression ${method}`);
    const content = method === 0 ? data : inflateRawSync(data);
    if (content.length !== size) throw new Error(`zip entry ${name} is ${content.length} bytes, not ${size}`);
    if (!name.endsWith('/')) yield { name, content };
  }
}
