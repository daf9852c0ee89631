import { z } from 'zod';
import { singleLine } from './text';
import { pageQuery } from './paging';

export const ROLES = ['customer', 'agent', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Agents and admins: the staff of docs/product.md section 6. */
export const isStaff = (role: Role) => role === 'agent' || role === 'admin';

/**
 * Input rules of docs/product.md section 5 for registration, sign-in and the admin user form, shared by
 * the API and the web forms so that both give the same messages.
 */
const PASSWORD_MIN = 6;
/** argon2 accepts any length; a bound keeps one request from costing a megabyte of hashing. */
const PASSWORD_MAX = 128;

const name = (label: string) =>
  singleLine(z.string({ message: `${label} is required` }).trim(), label)
    .min(1, `${label} is required`)
    .max(50, `${label} must be at most 50 characters`);

export const usernameSchema = z
  .string({ message: 'Username is required' })
  .trim()
  .toLowerCase()
  .min(1, 'Username is required')
  .min(3, 'Username must be between 3 and 30 characters')
  .max(30, 'Username must be between 3 and 30 characters')
  .regex(/^[a-z0-9_]+$/, 'Username can only contain lowercase letters, numbers and underscores');

const emailSchema = z
  .string({ message: 'Email is required' })
  .trim()
  .toLowerCase()
  .min(1, 'Email is required')
  .max(254, 'Email must be at most 254 characters')
  .pipe(z.email({ message: 'Please enter a valid email address' }));

const passwordSchema = z
  .string({ message: 'Password is required' })
  .min(1, 'Password is required')
  .min(PASSWORD_MIN, 'Password must be at least 6 characters long')
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

const roleSchema = z.enum(ROLES, { message: 'Role must be customer, agent or admin' });

const telegramUsernameSchema = z
  .string({ message: 'Telegram username must be text' })
  .trim()
  .transform((value) => value.replace(/^@/, ''))
  .pipe(
    z
      .string()
      .max(32, 'Telegram username must be at most 32 characters')
      .regex(/^[A-Za-z0-9_]*$/, 'Telegram username can only contain letters, numbers and underscores'),
  )
  .transform((value) => (value === '' ? null : value))
  .nullable();

export const loginSchema = z
  .object({
    email: z.string({ message: 'Email is required' }).trim().toLowerCase().min(1, 'Email is required').max(254, 'Email must be at most 254 characters'),
    password: z
      .string({ message: 'Password is required' })
      .min(1, 'Password is required')
      .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`),
  })
  .strict();

/** A registration is always a customer: a `role` sent along is accepted and ignored, never obeyed. */
export const registerSchema = z
  .object({
    username: usernameSchema,
    email: emailSchema,
    password: passwordSchema,
    firstName: name('First name'),
    lastName: name('Last name'),
    role: z.unknown().optional(),
  })
  .strict()
  .transform(({ role: _ignored, ...registration }) => registration);

export const createUserSchema = z
  .object({
    firstName: name('First name'),
    lastName: name('Last name'),
    username: usernameSchema,
    email: emailSchema,
    password: passwordSchema,
    role: roleSchema,
    isActive: z.boolean({ message: 'isActive must be true or false' }).default(true),
    telegramUsername: telegramUsernameSchema.optional(),
  })
  .strict();

/** On edit a blank (or absent) password keeps the current one. */
export const updateUserSchema = z
  .object({
    firstName: name('First name').optional(),
    lastName: name('Last name').optional(),
    username: usernameSchema.optional(),
    email: emailSchema.optional(),
    password: z
      .union([z.literal(''), passwordSchema], { message: 'Password must be at least 6 characters long' })
      .optional()
      .transform((value) => (value === '' ? undefined : value)),
    role: roleSchema.optional(),
    isActive: z.boolean({ message: 'isActive must be true or false' }).optional(),
    telegramUsername: telegramUsernameSchema.optional(),
  })
  .strict();

export const notificationPreferencesSchema = z
  .object({
    newTickets: z.boolean({ message: 'newTickets must be true or false' }).optional(),
    ticketUpdates: z.boolean({ message: 'ticketUpdates must be true or false' }).optional(),
    browserNotifications: z.boolean({ message: 'browserNotifications must be true or false' }).optional(),
    mentionEmails: z.boolean({ message: 'mentionEmails must be true or false' }).optional(),
  })
  .strict();

/** Setting a password through an e-mailed link (docs/identity.md): the registration's password rules; the confirmation is checked by the form, not sent. */
export const setPasswordSchema = z
  .object({
    token: z.string({ message: 'Password link is required' }).trim().min(1, 'Password link is required').max(300, 'Password link is not valid'),
    password: passwordSchema,
  })
  .strict();

export const refreshSchema = z
  .object({ refreshToken: z.string({ message: 'Refresh token is required' }).min(1, 'Refresh token is required').max(512, 'Invalid refresh token') })
  .strict();

export const logoutSchema = z
  .object({ refreshToken: z.string({ message: 'Refresh token must be text' }).max(512, 'Invalid refresh token').optional() })
  .strict();

export const listUsersQuery = z
  .object({
    ...pageQuery(20),
    role: roleSchema.optional(),
    q: z.string().trim().max(100, 'Search must be at most 100 characters').optional(),
    isActive: z.enum(['true', 'false'], { message: 'isActive must be true or false' }).optional(),
  })
  .strict();

export type Registration = z.output<typeof registerSchema>;
export type CreateUserInput = z.output<typeof createUserSchema>;
export type UpdateUserInput = z.output<typeof updateUserSchema>;
