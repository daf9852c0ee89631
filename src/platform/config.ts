import { z } from 'zod';

/** The environment of API.md, parsed once at start. A wrong value stops the start and names the variable. */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || protocols.some((protocol) => value.startsWith(protocol)), {
      message: `must start with ${protocols.join(' or ')}`,
    });

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_EMAIL: z.email().default('admin@example.com'),
  ADMIN_PASSWORD: z.string().min(6, 'must be at least 6 characters').optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  EVENTSTORE_URL: optionalUrl(['esdb://', 'esdb+discover://', 'kurrentdb://', 'kurrentdb+discover://', 'kdb://']),
  MONGO_URL: optionalUrl(['mongodb://', 'mongodb+srv://']),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  /** Key prefix in Redis, so several desks (or test runs) can share one server. */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _').default('desk'),
  TELEGRAM_API_ROOT: z.url().default('https://api.telegram.org'),
  SMTP_URL: optionalUrl(['smtp://', 'smtps://']),
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * How long a stopped or stalled holder keeps the workers' lease (reactor and Telegram poller) before
   * another process takes over; only used with REDIS_URL.
   */
  WORKERS_LEASE_TTL_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000),
  /** How long a notice that fails for a transient reason (network, 5xx, 429) is retried before it fails for good. */
  DELIVERY_RETRY_WINDOW_MS: z.coerce.number().int().min(1000).default(24 * 3600 * 1000),
  /** The longest wait between two tries of a notice (retries double from 1 s up to this). */
  DELIVERY_BACKOFF_CAP_MS: z.coerce.number().int().min(100).max(3_600_000).default(5 * 60 * 1000),
  /** Run the notification workers inside the API process (the default) or only in `npm run workers`. */
  WORKERS_IN_PROCESS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

export type Config = z.output<typeof schema>;

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
