import { isIP } from 'node:net';
import { EventStoreDBClient } from '@eventstore/db-client';
import { z } from 'zod';

/** The environment of docs/contract.md, parsed once at start. A wrong value stops the start and names the variable. */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || protocols.some((protocol) => value.startsWith(protocol)), {
      message: `must start with ${protocols.join(' or ')}`,
    });

/**
 * KurrentDB's own schemes. `@eventstore/db-client` 6 parses only `esdb://` and `esdb+discover://`;
 * the rest of the syntax is the same, so the scheme is translated and the client gets the `esdb` form.
 */
const KURRENT_SCHEMES: Record<string, string> = {
  'kurrentdb://': 'esdb://',
  'kurrentdb+discover://': 'esdb+discover://',
  'kdb://': 'esdb://',
  'kdb+discover://': 'esdb+discover://',
};

const eventStoreUrl = z
  .string()
  .trim()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value === '') return undefined;
    const scheme = Object.keys(KURRENT_SCHEMES).find((prefix) => value.startsWith(prefix));
    const translated = scheme ? `${KURRENT_SCHEMES[scheme]}${value.slice(scheme.length)}` : value;
    try {
      // The client's own parser (through its public API: building a client opens no connection, the
      // channel is made on the first call), so a string that passes here cannot fail at connect time.
      void EventStoreDBClient.connectionString(translated).dispose();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      context.addIssue({
        code: 'custom',
        message: `not a connection string the EventStoreDB client accepts (esdb://, esdb+discover://, kurrentdb://, kurrentdb+discover://, kdb://, kdb+discover://): ${reason}`,
      });
      return z.NEVER;
    }
    return translated;
  });

/** Express's `trust proxy`: true/false, a hop count, or addresses, subnets and the names loopback, linklocal, uniquelocal. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (item: string) => {
  if (PROXY_NAMES.has(item)) return true;
  const [address = '', bits, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d+$/.test(bits) ? Number(bits) <= max : isIP(bits) === 4;
};
const trustProxy = z
  .string()
  .trim()
  .default('loopback')
  .transform((value, context): boolean | number | string => {
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    const items = value.split(',').map((item) => item.trim());
    if (items.every((item) => item !== '' && isProxyAddress(item))) return items.join(',');
    context.addIssue({
      code: 'custom',
      message: 'must be true, false, a number of proxies, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal',
    });
    return z.NEVER;
  });

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_EMAIL: z.email().default('admin@example.com'),
  ADMIN_PASSWORD: z.string().min(6, 'must be at least 6 characters').optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  EVENTSTORE_URL: eventStoreUrl,
  MONGO_URL: optionalUrl(['mongodb://', 'mongodb+srv://']),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  /** Key prefix in Redis, so several desks (or test runs) can share one server. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _')
    .default('desk'),
  TELEGRAM_API_ROOT: z.url().default('https://api.telegram.org'),
  SMTP_URL: optionalUrl(['smtp://', 'smtps://']),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Which proxies in front of the app are trusted for the client address and scheme (rate limits, sign-in throttling). */
  TRUST_PROXY: trustProxy,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** pretty: readable lines; json: one object a line; auto: pretty when standard output is a terminal. */
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json'], { message: 'must be auto, pretty or json' }).default('auto'),
  /**
   * How long a stopped or stalled holder keeps the workers' lease (reactor and Telegram poller) before
   * another process takes over; only used with REDIS_URL.
   */
  WORKERS_LEASE_TTL_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000),
  /**
   * How long a stopped or stalled holder keeps the read models' lease (who applies the log to a shared
   * MongoDB) before another process takes over; only used with MONGO_URL (docs/read-models.md).
   */
  PROJECTIONS_LEASE_TTL_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000),
  /** How long after a merge staff can still undo it (docs/tickets.md, merging). */
  MERGE_UNDO_WINDOW_DAYS: z.coerce.number().min(0).max(3650).default(7),
  /** A merge or split whose second append has not come this long after its first is completed by the workers (docs/tickets.md). */
  MERGE_COMPLETION_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** How long a notice that fails for a transient reason (network, 5xx, 429) is retried before it fails for good. */
  DELIVERY_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 3600 * 1000),
  /** A sender of the support mailbox writing more mails than this in an hour is held back (docs/email.md). */
  EMAIL_SENDER_HOURLY_LIMIT: z.coerce.number().int().min(1).max(10_000).default(20),
  /** The longest wait between two tries of a notice (retries double from 1 s up to this). */
  DELIVERY_BACKOFF_CAP_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(5 * 60 * 1000),
  /**
   * Notices that failed for good wait for an admin in Deliveries, but not forever: at most this many
   * per channel, none older than FAILED_JOBS_KEEP_MS; older ones are dropped when another fails.
   */
  FAILED_JOBS_KEEP_COUNT: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  FAILED_JOBS_KEEP_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(365 * 24 * 3600 * 1000)
    .default(30 * 24 * 3600 * 1000),
  /**
   * Bearer token that opens GET /metrics on the app's port. Without it (and without METRICS_PORT)
   * /metrics answers 404: the figures are not for the public.
   */
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || value.length >= 16, { message: 'must be at least 16 characters' }),
  /** A separate port serving only GET /metrics, for a scraper on a private network (with METRICS_TOKEN too, it asks for the token). */
  METRICS_PORT: z
    .string()
    .trim()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return undefined;
      const port = Number(value);
      if (/^\d+$/.test(value) && port <= 65535) return port;
      context.addIssue({ code: 'custom', message: 'must be a port number from 0 (any free port) to 65535' });
      return z.NEVER;
    }),
  /**
   * Where the embedded read store (without MONGO_URL) keeps the read models: in `DATA_DIR/readstore.db`
   * (`sqlite`, the default), or on the heap (`memory`: rebuilt from the log at every start, for tests;
   * docs/readstore.md).
   */
  READSTORE: z.enum(['memory', 'sqlite'], { message: 'must be memory or sqlite' }).default('sqlite'),
  /**
   * How long a client may take to send a request's headers, and the whole request with its body; a
   * slower one is answered 408 and cut, so slow senders cannot hold connections for Node's 300 s.
   */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** How long an idle keep-alive connection stays open; above a load balancer's own idle timeout when there is one. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(5_000),
  /**
   * A read model behind the head of the log that has not moved for this long is stalled: health
   * says `degraded` and names it (docs/read-models.md).
   */
  PROJECTION_STALL_MS: z.coerce.number().int().min(100).max(86_400_000).default(30_000),
  /**
   * Live channel sockets one user may hold open on one API process; one more is refused at the
   * handshake (`TOO_MANY_CONNECTIONS`) while the open ones go on (docs/tickets.md, "Live channel").
   */
  LIVE_MAX_SOCKETS_PER_USER: z.coerce.number().int().min(1).max(1000).default(20),
  /** How long a user cut off the live channel for abuse is refused at the handshake (`LIVE_COOLDOWN`). */
  LIVE_COOLDOWN_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Webhooks may post to plain `http://` URLs (docs/integrations.md); by default only `https://`. */
  WEBHOOK_ALLOW_HTTP: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * Hosts (names or addresses, comma-separated) a webhook may reach although they are or resolve to a
   * loopback, private or link-local address; every other such URL is refused (docs/integrations.md).
   */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
    ),
  /** The first retry of a failed webhook delivery waits this long, doubling up to an hour. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** A webhook delivery is retried for this long, then given up (still redeliverable by hand). */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().min(100).max(604_800_000).default(86_400_000),
  /** A webhook whose deliveries fail without a success for this long is disabled and the admins told. */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(100).max(2_592_000_000).default(259_200_000),
  /**
   * The longest a service-level timer, or a time rule's (docs/automation.md), waits in the queue before it looks
   * at the clock again (docs/sla.md): a due time further away is reached in hops of this length, so a clock that
   * was set or skewed cannot keep a warning or a rule waiting for days.
   */
  SLA_TIMER_MAX_DELAY_MS: z.coerce.number().int().min(100).max(86_400_000).default(21_600_000),
  /**
   * With the read models in DATA_DIR/readstore.db: apply the log to them on a thread of their own (the
   * default), or on the thread that answers requests (docs/readstore.md, "The projection thread").
   */
  PROJECTIONS_THREAD: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** Run the notification workers inside the API process (the default) or only in `npm run workers`. */
  WORKERS_IN_PROCESS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export type Config = z.output<typeof schema>;

/** Every variable the parser reads (README's configuration table and docker-compose.yml are checked against it). */
export const CONFIG_VARIABLES = Object.keys(schema.shape) as Array<keyof Config>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
