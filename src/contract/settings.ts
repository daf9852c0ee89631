import { z } from 'zod';
import { singleLine } from './text';

export interface SystemSettings {
  telegramBotToken: string;
  telegramWebhookUrl: string;
  emailNotifications: boolean;
  maxFileSize: number;
  maxFiles: number;
  rateLimitWindowMs: number;
  rateLimitMaxRequests: number;
  corsOrigins: string[];
  maintenanceMode: boolean;
  systemName: string;
  supportEmail: string;
  /** The support mailbox the e-mail channel reads (docs/email.md); no host means the channel is off. */
  mailboxHost: string;
  mailboxPort: number;
  mailboxTls: boolean;
  mailboxUser: string;
  /** Write-only: responses show MASKED_PASSWORD when one is stored. */
  mailboxPassword: string;
  mailboxFolder: string;
  /** What is done with a mail once taken: flagged \\Seen, or moved to `mailboxMoveTo`. */
  mailboxAfterFetch: MailboxAfterFetch;
  mailboxMoveTo: string;
  /** A sender with no account: a customer is made for them, or their mail is refused (Deliveries). */
  mailboxUnknownSenders: UnknownSenders;
  /** Available staff with no activity for this long are set Away by the system (docs/teams.md); 0 never. */
  idleAwayMinutes: number;
  /** An agent Offline this long has their open tickets of automatic teams returned and assigned again (docs/teams.md); 0 never. */
  offlineGraceSeconds: number;
  /** The category of tickets opened by mail (docs/email.md); empty: the first active category. */
  mailboxCategory: string;
}

export const MAILBOX_AFTER_FETCH = ['seen', 'move'] as const;
export type MailboxAfterFetch = (typeof MAILBOX_AFTER_FETCH)[number];
export const UNKNOWN_SENDERS = ['create', 'refuse'] as const;
export type UnknownSenders = (typeof UNKNOWN_SENDERS)[number];

/** What responses show for a stored mailbox password; sending it back keeps the stored one. */
export const MASKED_PASSWORD = '********';

/** docs/product.md section 9. */
export const DEFAULT_SYSTEM_SETTINGS: SystemSettings = {
  telegramBotToken: '',
  telegramWebhookUrl: '',
  emailNotifications: true,
  maxFileSize: 10 * 1024 * 1024,
  maxFiles: 5,
  rateLimitWindowMs: 15 * 60 * 1000,
  rateLimitMaxRequests: 100,
  corsOrigins: [],
  maintenanceMode: false,
  systemName: 'Customer Support System',
  supportEmail: '',
  mailboxHost: '',
  mailboxPort: 993,
  mailboxTls: true,
  mailboxUser: '',
  mailboxPassword: '',
  mailboxFolder: 'INBOX',
  mailboxAfterFetch: 'seen',
  mailboxMoveTo: 'Processed',
  mailboxUnknownSenders: 'create',
  idleAwayMinutes: 0,
  offlineGraceSeconds: 0,
  mailboxCategory: '',
};

/** Bounds of docs/product.md sections 5 and 9 for the system settings; shared by the API and the settings screen. */
export const SETTINGS_BOUNDS = {
  maxFileSize: { min: 1024 * 1024, max: 100 * 1024 * 1024 },
  maxFiles: { min: 1, max: 20 },
  rateLimitMaxRequests: { min: 1, max: 1000 },
  rateLimitWindowMs: { min: 60 * 1000, max: 60 * 60 * 1000 },
  idleAwayMinutes: { min: 0, max: 24 * 60 },
  /** 0 (never), else at least 5 s: a reload or a sign-in again right after a sign-out returns nothing. */
  offlineGraceSeconds: { min: 5, max: 7 * 24 * 60 * 60 },
} as const;

const OFFLINE_GRACE_MESSAGE = 'Offline grace period must be 0 (never) or between 5 seconds and 7 days';

const int = (label: string, { min, max }: { min: number; max: number }, message: string) =>
  z
    .number({ message: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .min(min, message)
    .max(max, message);

const origin = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
    } catch {
      return false;
    }
  }, 'Each CORS origin must be like https://example.com (scheme, host and optional port, no path)')
  .transform((value) => value.replace(/\/$/, ''));

/** docs/product.md section 5: testing the bot needs a token typed first. */
export const NO_TOKEN_MESSAGE = 'Please enter a Telegram bot token first.';

export const TELEGRAM_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

const mailboxText = (label: string, max: number) =>
  singleLine(z.string({ message: `${label} must be text` }).trim(), label).max(max, `${label} must be at most ${max} characters`);

/** The mailbox fields, as saved and as tested (docs/email.md). */
const mailboxFields = {
  mailboxHost: mailboxText('Mailbox host', 253).refine(
    (value) => value === '' || /^[A-Za-z0-9.:[\]-]+$/.test(value),
    'Mailbox host must be a host name or an IP address',
  ),
  mailboxPort: int('Mailbox port', { min: 1, max: 65535 }, 'Mailbox port must be between 1 and 65535'),
  mailboxTls: z.boolean({ message: 'mailboxTls must be true or false' }),
  mailboxUser: mailboxText('Mailbox user', 254),
  mailboxPassword: z.string({ message: 'Mailbox password must be text' }).max(500, 'Mailbox password must be at most 500 characters'),
  mailboxFolder: mailboxText('Mailbox folder', 200).min(1, 'Mailbox folder is required'),
};

export const updateSettingsSchema = z
  .object({
    ...mailboxFields,
    mailboxAfterFetch: z.enum(MAILBOX_AFTER_FETCH, { message: 'After fetching must be seen or move' }),
    mailboxMoveTo: mailboxText('Move-to folder', 200).min(1, 'Move-to folder is required'),
    mailboxUnknownSenders: z.enum(UNKNOWN_SENDERS, { message: 'Unknown senders must be create or refuse' }),
    mailboxCategory: z.string({ message: 'Category for new mail must be a category id' }).trim().max(100, 'Category for new mail must be a category id'),
    telegramBotToken: singleLine(z.string({ message: 'Telegram bot token must be text' }).trim(), 'Telegram bot token').max(
      200,
      'Telegram bot token is too long',
    ),
    telegramWebhookUrl: z
      .string({ message: 'Webhook URL must be text' })
      .trim()
      .max(500, 'Webhook URL must be at most 500 characters')
      .refine((value) => value === '' || /^https:\/\/[^\s]+$/.test(value), 'Webhook URL must start with https://'),
    emailNotifications: z.boolean({ message: 'emailNotifications must be true or false' }),
    maxFileSize: int('Max file size', SETTINGS_BOUNDS.maxFileSize, 'Max file size must be between 1 and 100 MB'),
    maxFiles: int('Max files', SETTINGS_BOUNDS.maxFiles, 'Max files must be between 1 and 20'),
    rateLimitMaxRequests: int('Rate limit requests', SETTINGS_BOUNDS.rateLimitMaxRequests, 'Rate limit requests must be between 1 and 1000'),
    rateLimitWindowMs: int('Rate limit window', SETTINGS_BOUNDS.rateLimitWindowMs, 'Rate limit window must be between 1 and 60 minutes'),
    idleAwayMinutes: int('Away after idle minutes', SETTINGS_BOUNDS.idleAwayMinutes, 'Away after idle minutes must be between 0 (never) and 1440'),
    offlineGraceSeconds: int('Offline grace period', { min: 0, max: SETTINGS_BOUNDS.offlineGraceSeconds.max }, OFFLINE_GRACE_MESSAGE).refine(
      (value) => value === 0 || value >= SETTINGS_BOUNDS.offlineGraceSeconds.min,
      OFFLINE_GRACE_MESSAGE,
    ),
    corsOrigins: z
      .union([z.array(z.string({ message: 'Each CORS origin must be text' })).max(50, 'At most 50 CORS origins'), z.string().max(5000)], {
        message: 'CORS origins must be a list or a comma-separated text',
      })
      .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter((item) => item !== ''))
      .pipe(z.array(origin)),
    maintenanceMode: z.boolean({ message: 'maintenanceMode must be true or false' }),
    systemName: singleLine(z.string({ message: 'System name must be text' }).trim(), 'System name')
      .min(1, 'System name is required')
      .max(100, 'System name must be at most 100 characters'),
    supportEmail: z
      .string({ message: 'Support e-mail must be text' })
      .trim()
      .toLowerCase()
      .max(254, 'Support e-mail must be at most 254 characters')
      .refine((value) => value === '' || z.email().safeParse(value).success, 'Support e-mail must be a valid email address'),
  })
  .partial()
  .extend({
    // Read-only fields a settings screen may send back with the rest: accepted and ignored.
    updatedAt: z.unknown().optional(),
    updatedBy: z.unknown().optional(),
  })
  .strict()
  .transform(({ updatedAt: _at, updatedBy: _by, ...settings }) => settings);

export const telegramTestSchema = z
  .object({ telegramBotToken: z.string({ message: 'Telegram bot token must be text' }).trim().max(200, 'Telegram bot token is too long').optional() })
  .strict();

/** docs/email.md: the fields typed in the form are tested; the stored ones fill what is not sent. */
export const mailboxTestSchema = z.object(mailboxFields).partial().strict();
export type MailboxTest = z.output<typeof mailboxTestSchema>;

/** docs/email.md: testing the mailbox needs a host typed first. */
export const NO_MAILBOX_MESSAGE = 'Please enter the mailbox host first.';

export type SettingsUpdate = z.output<typeof updateSettingsSchema>;
