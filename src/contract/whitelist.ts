import { z } from 'zod';
import { pageQuery } from './paging';
import { multiLine, singleLine } from './text';

/**
 * A Telegram ID as Telegram sends it: decimal digits without leading zeros. What an admin types
 * (`00123`, `+123`, `123 456` pasted from a phone-style layout) is the same ID, and the whitelist
 * is keyed by it, so each spelling must come to one entry rather than a second one the bot never
 * matches. Anything else is left as typed for the schema to refuse.
 */
export const normaliseTelegramId = (value: string): string => {
  const compact = value.replace(/\s+/g, '').replace(/^\+/, '');
  return /^\d+$/.test(compact) ? compact.replace(/^0+(?=\d)/, '') : value.trim();
};

/** The one spelling of a Telegram ID that the whitelist stores and the bot looks up. */
export const isCanonicalTelegramId = (id: string): boolean => /^[1-9]\d{0,19}$/.test(id);

const NOT_A_TELEGRAM_ID = 'Telegram ID must be a number (find it with a helper bot such as @userinfobot)';

/** Whitelist form rules (docs/product.md section 5: the Telegram ID is required, the rest optional). */
const telegramIdSchema = z
  // A JSON number must be a whole number JavaScript holds exactly (not 1.5, 1e20 or 2^53 + 2); anything else given is no number.
  .union([z.string(), z.number().int(NOT_A_TELEGRAM_ID)], {
    error: (issue) => (issue.input === undefined || issue.input === null ? 'Telegram ID is required' : NOT_A_TELEGRAM_ID),
  })
  .transform((value) => normaliseTelegramId(String(value)))
  .pipe(
    z
      .string()
      .min(1, 'Telegram ID is required')
      .regex(/^\d{1,20}$/, NOT_A_TELEGRAM_ID)
      .refine((id) => id !== '0', 'Telegram ID must be a positive number'),
  );

const optionalText = (label: string, max: number) =>
  singleLine(z.string({ message: `${label} must be text` }).trim(), label).max(max, `${label} must be at most ${max} characters`);
const optionalParagraph = (label: string, max: number) =>
  multiLine(z.string({ message: `${label} must be text` }).trim(), label).max(max, `${label} must be at most ${max} characters`);

const fields = {
  username: optionalText('Username', 33)
    .transform((value) => value.replace(/^@/, ''))
    .pipe(z.string().regex(/^[A-Za-z0-9_]*$/, 'Username can only contain letters, numbers and underscores')),
  firstName: optionalText('First name', 64),
  lastName: optionalText('Last name', 64),
  notes: optionalParagraph('Notes', 500),
  isActive: z.boolean({ message: 'isActive must be true or false' }),
};

export const addWhitelistSchema = z
  .object({
    telegramId: telegramIdSchema,
    username: fields.username.default(''),
    firstName: fields.firstName.default(''),
    lastName: fields.lastName.default(''),
    notes: fields.notes.default(''),
    isActive: fields.isActive.default(true),
  })
  .strict();

export const listWhitelistQuery = z.object(pageQuery(20)).strict();

/** The Telegram ID may be sent back unchanged (the edit form does); changing it is refused by the route. */
export const updateWhitelistSchema = z
  .object({ ...fields, telegramId: telegramIdSchema })
  .partial()
  .strict();
