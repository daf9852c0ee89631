import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import { fetchToolchain } from './ferretdb';
import { executable, installTools } from './services';

const NAMES = ['REDIS_URL', 'DESK_TEST_OWN_REDIS', 'PATH', 'CHROMIUM_PATH', 'DOVECOT_PATH'] as const;

/**
 * The test command's first step on a fresh machine, with a PATH of stand-ins: an `apt-get` that records
 * how it was called and "installs" redis-server and Chromium as scripts, and a `sudo` that records and
 * runs what it is given, or refuses as one that wants a password.
 */
describe('The test command on a fresh machine: installing Redis and Chromium', () => {
  const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  let bin: string;
  let calls: string;
  const said: string[] = [];
  const say = (line: string) => void said.push(line);
  const script = (name: string, body: string) => writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  const called = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);

  beforeEach(() => {
    bin = mkdtempSync(path.join(tmpdir(), 'desk-fresh-machine-'));
    calls = path.join(bin, 'calls.log');
    said.length = 0;
    // Nothing answers for Redis unless installed, and Chromium is where apt-get would put it.
    delete process.env.REDIS_URL;
    process.env.DESK_TEST_OWN_REDIS = '1';
    process.env.PATH = bin;
    process.env.CHROMIUM_PATH = path.join(bin, 'chromium');
    process.env.DOVECOT_PATH = path.join(bin, 'dovecot');
    const installed = '#!/bin/sh\\nexit 0\\n';
    script(
      'apt-get',
      [
        `echo "apt-get $* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >> ${calls}`,
        `if [ "$1" = install ]; then for package in "$@"; do case "$package" in`,
        `  redis-server) printf '${installed}' > ${bin}/redis-server; /bin/chmod +x ${bin}/redis-server ;;`,
        `  chromium) printf '${installed}' > ${bin}/chromium; /bin/chmod +x ${bin}/chromium ;;`,
        `  dovecot-imapd) printf '${installed}' > ${bin}/dovecot; /bin/chmod +x ${bin}/dovecot ;;`,
        `esac; done; fi`,
      ].join('\n'),
    );
  });
  afterEach(() => {
    for (const name of NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    rmSync(bin, { recursive: true, force: true });
  });

  it('when run as root without redis-server and Chromium, then it says in one line what it installs and apt-get installs both', async () => {
    await installTools(['redis', 'chromium'], { root: true, say });
    expect(said).toEqual(['Installing redis-server chromium with apt-get: the tests need redis and chromium']);
    expect(called()).toEqual([
      'apt-get update -qq (DEBIAN_FRONTEND=noninteractive)',
      'apt-get install -y -qq redis-server chromium (DEBIAN_FRONTEND=noninteractive)',
    ]);
  });

  it('when run as a user whom sudo lets in without a password, then it installs through sudo -n', async () => {
    // As sudo's secure_path would, it finds the system's commands (true) besides the stand-ins.
    script('sudo', `echo "sudo $*" >> ${calls}\nshift\nexec /usr/bin/env PATH="$PATH:/usr/bin:/bin" "$@"`);
    await installTools(['redis', 'chromium'], { root: false, say });
    expect(said).toEqual(['Installing redis-server chromium with sudo apt-get: the tests need redis and chromium']);
    expect(called()).toEqual([
      'sudo -n true',
      'sudo -n DEBIAN_FRONTEND=noninteractive apt-get update -qq',
      'apt-get update -qq (DEBIAN_FRONTEND=noninteractive)',
      'sudo -n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server chromium',
      'apt-get install -y -qq redis-server chromium (DEBIAN_FRONTEND=noninteractive)',
    ]);
  });

  it('when sudo wants a password, then it installs nothing and fails in one line with the exact command', async () => {
    script('sudo', `echo "sudo $*" >> ${calls}\necho 'sudo: a password is required' >&2\nexit 1`);
    const failure = (await installTools(['redis', 'chromium'], { root: false, say }).catch((error: unknown) => error)) as Error;
    expect(failure.message).toMatch(/^The tests need redis and chromium, not found .*: sudo apt-get install redis-server chromium$/);
    expect(failure.message).not.toContain('\n');
    expect(said).toEqual([]);
    expect(called()).toEqual(['sudo -n true']);
  });

  it('when only Chromium is missing, then only chromium is installed', async () => {
    script('redis-server', 'exit 0');
    await installTools(['redis', 'chromium'], { root: true, say });
    expect(called()).toEqual(['apt-get update -qq (DEBIAN_FRONTEND=noninteractive)', 'apt-get install -y -qq chromium (DEBIAN_FRONTEND=noninteractive)']);
  });

  it('when the e-mail suites need Dovecot and it is missing, then dovecot-imapd is installed with the others', async () => {
    script('redis-server', 'exit 0');
    await installTools(['redis', 'chromium', 'dovecot'], { root: true, say });
    expect(said).toEqual(['Installing chromium dovecot-imapd with apt-get: the tests need chromium and dovecot']);
    expect(called()).toEqual([
      'apt-get update -qq (DEBIAN_FRONTEND=noninteractive)',
      'apt-get install -y -qq chromium dovecot-imapd (DEBIAN_FRONTEND=noninteractive)',
    ]);
  });

  it('when apt-get installs a package that still does not provide the tool, then it fails in one line saying so', async () => {
    script('apt-get', `echo "apt-get $*" >> ${calls}`);
    await expect(installTools(['chromium'], { root: true, say })).rejects.toThrow(/^The tests need chromium, not found .*: apt-get install chromium$/);
    expect(called()).toHaveLength(2);
  });
});

/** A zip of deflated files, as the module proxy serves a module. */
function zipOf(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const content = Buffer.from(text);
    const data = deflateRawSync(content);
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(content), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    local.copy(central, 10, 8, 30);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('The test command on a fresh machine: a Go toolchain from the module proxy', () => {
  const VERSION = 'v0.0.1-go1.99.0.linux-amd64';
  const MODULE = `golang.org/toolchain@${VERSION}/`;
  const FILES: Record<string, string> = {
    [`${MODULE}bin/go`]: '#!/bin/sh\necho go version go1.99.0 linux/amd64\n',
    [`${MODULE}pkg/tool/linux_amd64/compile`]: '#!/bin/sh\n',
    [`${MODULE}lib/wasm/go_js_wasm_exec`]: '#!/bin/sh\n',
    [`${MODULE}src/fmt/print.go`]: 'package fmt\n',
  };
  /** The module hash, computed as golang.org/x/mod/sumdb/dirhash.Hash1 documents it. */
  const SUM = `h1:${createHash('sha256')
    .update(
      Object.keys(FILES)
        .sort()
        .map((name) => `${createHash('sha256').update(FILES[name]!).digest('hex')}  ${name}\n`)
        .join(''),
    )
    .digest('base64')}`;
  let proxy: Server;
  let proxyUrl: string;
  let served: Buffer;
  const asked: string[] = [];
  let cache: string;

  beforeAll(async () => {
    proxy = createServer((req, res) => {
      asked.push(req.url!);
      if (req.url === `/golang.org/toolchain/@v/${VERSION}.zip`) res.writeHead(200, { 'content-type': 'application/zip' }).end(served);
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'desk-go-cache-'));
    served = zipOf(FILES);
    asked.length = 0;
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('when the zip matches its go.sum line, then it is unpacked with the commands runnable', async () => {
    const root = path.join(cache, 'go1.99.0.linux-amd64');
    await fetchToolchain({ proxy: proxyUrl, version: VERSION, sum: SUM, root });
    expect(asked).toEqual([`/golang.org/toolchain/@v/${VERSION}.zip`]);
    expect(execFileSync(path.join(root, 'bin/go'), { encoding: 'utf8' })).toBe('go version go1.99.0 linux/amd64\n');
    expect(executable(path.join(root, 'pkg/tool/linux_amd64/compile'))).toBe(true);
    expect(executable(path.join(root, 'lib/wasm/go_js_wasm_exec'))).toBe(true);
    expect(executable(path.join(root, 'src/fmt/print.go'))).toBe(false);
    expect(readdirSync(cache)).toEqual(['go1.99.0.linux-amd64']);
  });

  it('when the zip was changed on the way, then it is refused and nothing of it is kept', async () => {
    served = zipOf({ ...FILES, [`${MODULE}bin/go`]: '#!/bin/sh\necho not the real go\n' });
    const root = path.join(cache, 'go1.99.0.linux-amd64');
    await expect(fetchToolchain({ proxy: proxyUrl, version: VERSION, sum: SUM, root })).rejects.toThrow(
      new RegExp(`${VERSION}\\.zip does not match its go\\.sum line: h1:.*, expected ${SUM.replace(/[+/=]/g, '\\$&')}; nothing of it was kept`),
    );
    expect(readdirSync(cache)).toEqual([]);
  });
});

describe('The test command on a fresh machine: FerretDB without a Go that can build it', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'desk-no-go-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** ferretdb.sh with an empty cache and a PATH of the system's commands and `extra` only (no /usr/local/go). */
  const ferretDbScript = (extra: Record<string, string>, ask?: string) => {
    for (const [name, body] of Object.entries(extra)) writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    const env = { HOME: dir, XDG_CACHE_HOME: dir, PATH: `${dir}:/usr/bin:/bin`, ...(ask ? { FERRETDB_NO_GO_STATUS: ask } : {}) };
    return spawnSync('bash', [path.join(__dirname, 'ferretdb.sh')], { env, encoding: 'utf8' });
  };

  it.each([
    ['no Go at all', {}],
    ['a Go 1.20, too old to fetch the toolchain FerretDB asks for', { go: 'echo go1.20.14' }],
  ])(
    'when there is %s, then the script answers the status it was asked for, for ferretdb.ts to fetch a Go, and says what to do when not asked',
    (_case, extra) => {
      expect(ferretDbScript(extra, '3')).toMatchObject({ status: 3, stdout: '' });
      const alone = ferretDbScript(extra);
      expect(alone.status).toBe(1);
      expect(alone.stderr).toContain('no Go 1.21 or later is on PATH to build it');
    },
  );
});
