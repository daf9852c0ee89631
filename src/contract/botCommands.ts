import { z } from 'zod';
import { ValidationError } from './errors';
import { pageQuery } from './paging';
import { multiLine, singleLine } from './text';

export const HANDLERS = ['start', 'help', 'ticket', 'mytickets', 'search', 'cancel', 'custom'] as const;
type Handler = (typeof HANDLERS)[number];

export interface BotCommandFields {
  command: string;
  description: string;
  handler: Handler;
  response: string | null;
  order: number;
  isActive: boolean;
}

/** A custom command needs its response; other handlers answer on their own, so a response is dropped. */
export function normalise(fields: BotCommandFields): BotCommandFields {
  if (fields.handler !== 'custom') return { ...fields, response: null };
  if (!fields.response?.trim())
    throw new ValidationError('A response is required for a custom command', [{ path: 'response', message: 'A response is required for a custom command' }]);
  return fields;
}

/** Bot command form rules of docs/product.md section 5; Telegram itself allows at most 32 characters. */
const fields = {
  command: z
    .string({ message: 'Command name is required' })
    .trim()
    .toLowerCase()
    .transform((value) => value.replace(/^\//, ''))
    .pipe(
      z
        .string()
        .min(1, 'Command name is required')
        .max(32, 'Command name must be at most 32 characters')
        .regex(/^[a-z_]+$/, 'Command name can only contain lowercase letters and underscores'),
    ),
  description: singleLine(z.string({ message: 'Description is required' }).trim(), 'Description')
    .min(1, 'Description is required')
    .max(256, 'Description must be at most 256 characters'),
  handler: z.enum(HANDLERS, { message: 'Handler must be one of start, help, ticket, mytickets, search, cancel, custom' }),
  response: multiLine(z.string({ message: 'Response must be text' }).trim(), 'Response')
    .max(2000, 'Response must be at most 2000 characters')
    .nullable()
    .transform((value) => (value === '' ? null : value)),
  order: z.number({ message: 'Order must be a number' }).int('Order must be a whole number').min(0, 'Order must be 0 or more'),
  isActive: z.boolean({ message: 'isActive must be true or false' }),
};

export const createBotCommandSchema = z
  .object({ ...fields, response: fields.response.default(null), order: fields.order.default(0), isActive: fields.isActive.default(true) })
  .strict();

export const updateBotCommandSchema = z.object(fields).partial().strict();

export const listBotCommandsQuery = z
  .object({ active: z.enum(['true', 'false'], { message: 'active must be true or false' }).optional(), ...pageQuery(20) })
  .strict();
