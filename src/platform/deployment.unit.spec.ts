import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from './config';
import { projectRoot } from './paths';

/**
 * docker-compose.yml, the Dockerfile and README's configuration table read against the
 * configuration parser, variable by variable: no Docker runs on the development machine, so this is
 * the read-through an operator would do, made to fail when one of them drifts.
 */
const root = projectRoot();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const { app, workers } = compose.services as { app: Service; workers: Service };

/** What an operator sets on the command line; the rest takes the defaults written in the file. */
const OPERATOR = { ADMIN_PASSWORD: 'change-me-now', JWT_SECRET: 'x'.repeat(48), PUBLIC_URL: 'https://desk.example.com' };

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}. */
function interpolate(value: string, shell: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_match, name: string, kind?: string, rest?: string) => {
    if (shell[name]) return shell[name];
    if (kind === '?') throw new Error(`${name} must be set: ${rest}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}
const environmentOf = (service: Service, shell: Record<string, string>) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), shell)]));

/** Variables deliberately left to their defaults in the stack (a new variable must be decided on here). */
const DEFAULTED = [
  'REDIS_PREFIX',
  'TELEGRAM_API_ROOT',
  'WORKERS_LEASE_TTL_MS',
  'PROJECTIONS_LEASE_TTL_MS',
  'READSTORE',
  'PROJECTIONS_THREAD',
  'HTTP_HEADERS_TIMEOUT_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'HTTP_KEEP_ALIVE_TIMEOUT_MS',
  'PROJECTION_STALL_MS',
  'LIVE_MAX_SOCKETS_PER_USER',
  'LIVE_COOLDOWN_SECONDS',
  'WEBHOOK_ALLOW_HTTP',
  'WEBHOOK_ALLOWED_HOSTS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_RETRY_WINDOW_MS',
  'WEBHOOK_DISABLE_AFTER_MS',
  'SLA_TIMER_MAX_DELAY_MS',
  'MERGE_UNDO_WINDOW_DAYS',
  'MERGE_COMPLETION_DELAY_MS',
  'EMAIL_SENDER_HOURLY_LIMIT',
];

describe('docker-compose.yml against the configuration parser', () => {
  it.each([
    ['app', app],
    ['workers', workers],
  ])(
    'when the %s service is read, then every variable it sets is one the parser reads, and each one the parser reads is set or left to its default on purpose',
    (_name, service) => {
      const names = Object.keys(service.environment ?? {});
      expect(names.filter((name) => !CONFIG_VARIABLES.includes(name as never))).toEqual([]);
      expect(CONFIG_VARIABLES.filter((name) => !names.includes(name) && !DEFAULTED.includes(name))).toEqual([]);
    },
  );

  it('when an operator sets only the required values, then the app configuration parses and points at the services of the file', () => {
    const config = loadConfig(environmentOf(app, OPERATOR));
    const hostOf = (url: string) => new URL(url.replace(/^esdb:/, 'http:')).hostname;
    expect(hostOf(config.EVENTSTORE_URL!)).toBe('eventstore');
    expect(hostOf(config.MONGO_URL!)).toBe('mongo');
    expect(hostOf(config.REDIS_URL!)).toBe('redis');
    for (const dependency of ['eventstore', 'mongo', 'redis']) expect(compose.services[dependency]).toBeDefined();
    expect(config.PUBLIC_URL).toBe(OPERATOR.PUBLIC_URL);
    expect(config.WORKERS_IN_PROCESS).toBe(false);
    expect(app.ports).toEqual([`${config.PORT}:${config.PORT}`]);
    expect(app.volumes).toContain(`app-data:${config.DATA_DIR}`);
  });

  it('when ADMIN_PASSWORD or JWT_SECRET is missing, then compose itself refuses to start and says which', () => {
    expect(() => environmentOf(app, { JWT_SECRET: OPERATOR.JWT_SECRET })).toThrow('ADMIN_PASSWORD must be set');
    expect(() => environmentOf(app, { ADMIN_PASSWORD: OPERATOR.ADMIN_PASSWORD })).toThrow('JWT_SECRET must be set');
  });

  it('when the workers service is read, then it runs the workers entry point with the same configuration and REDIS_URL, and waits for a healthy app', () => {
    expect(workers.environment).toEqual(app.environment);
    expect(workers.command).toEqual(['node', 'dist/src/workers/main.js']);
    expect(existsSync(path.join(root, 'src/workers/main.ts'))).toBe(true);
    expect(loadConfig(environmentOf(workers, OPERATOR)).REDIS_URL).toBeDefined();
    expect(workers.healthcheck).toEqual({ disable: true });
    expect(workers.depends_on).toEqual({ app: { condition: 'service_healthy' } });
  });

  it('when the ports are read, then only the app is reachable from other machines; the databases listen on the loopback', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        if (name === 'app') expect(port.split(':')).toHaveLength(2);
        else expect(port).toMatch(/^127\.0\.0\.1:/);
      }
    }
  });
});

describe('The Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;

  it('when read, then both stages use one pinned Node major, the one package.json asks for', () => {
    const major = /^ARG NODE_MAJOR=(\d+)$/m.exec(dockerfile)?.[1];
    expect(major).toBe(/^>=(\d+)/.exec(engines)?.[1]);
    const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(stages).toEqual(['node:${NODE_MAJOR}-bookworm-slim', 'node:${NODE_MAJOR}-bookworm-slim']);
  });

  it('when read, then the health check runs the compiled healthcheck command, which counts starting as alive', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .* CMD \["node", "dist\/src\/cli\/healthcheck\.js"\]$/m);
    expect(read('src/cli/healthcheck.ts')).toContain("'starting'");
    expect(dockerfile).toContain('EXPOSE 3000');
    expect(dockerfile).toMatch(/ENV .*PORT=3000/);
  });
});

describe('Pinned versions and the install path', () => {
  const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };

  it('when the compose file is read, then every image names its version, never latest or none', () => {
    const images = Object.entries(compose.services).flatMap(([name, service]) => (service.image ? [[name, service.image] as const] : []));
    expect(images.map(([name]) => name).sort()).toEqual(['eventstore', 'mongo', 'redis']);
    for (const [, image] of images) expect(image).toMatch(/:\d[\w.-]*$/);
  });

  it('when the event store is read, then the KurrentDB image and the client are the pair the compose file names, the client pinned exactly and locked at it', () => {
    const client = manifest.dependencies['@eventstore/db-client'];
    expect(client).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['']!.dependencies!['@eventstore/db-client']).toBe(client);
    expect(lock.packages['node_modules/@eventstore/db-client']!.version).toBe(client);
    const server = /kurrentdb:(\d+\.\d+)/.exec(compose.services.eventstore!.image!)?.[1];
    expect(server).toBeDefined();
    const compose_ = read('docker-compose.yml');
    expect(compose_).toContain(`@eventstore/db-client ${client}`);
    expect(compose_).toContain(`KurrentDB ${server}`);
    expect(read('README.md')).toContain(`\`@eventstore/db-client\` ${client} with KurrentDB ${server}`);
  });

  it("when the code is read, then no file imports a private file of the event store's client, only its public entry point", () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.tsx'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    const deep = files.filter((file) => /from '@(?:eventstore|kurrent)\/[\w.-]+\//.test(read(file)));
    expect(deep).toEqual([]);
  });

  it('when CI and the image install the dependencies, then they run the same locked install', () => {
    const ci = /^(npm (?:ci|install)\b.*)$/m.exec(read('.ci/run'))?.[1];
    const image = /^RUN (npm (?:ci|install)\b.*)$/m.exec(read('Dockerfile'))?.[1];
    expect(ci).toMatch(/^npm ci\b/);
    expect(image).toBe(ci);
  });
});

describe("README's configuration table", () => {
  it('when read, then it lists exactly the variables the parser reads', () => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## How it is built'));
    const listed = [...table.matchAll(/^\| (.+?) \|/gm)].flatMap((match) => [...match[1]!.matchAll(/`([A-Z_]+)`/g)].map((name) => name[1]));
    expect([...new Set(listed)].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
