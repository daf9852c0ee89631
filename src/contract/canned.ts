import { z } from 'zod';
import { pageQuery, queryInt } from './paging';
import { multiLine, singleLine } from './text';

/** Canned message rules and wordings of docs/product.md section 5; shared by the API and the web form (macros take the same shortcodes). */
export const shortcode = z
  .string({ message: 'Shortcode is required' })
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/^#/, ''))
  .pipe(
    z
      .string()
      .min(1, 'Shortcode is required')
      .regex(/^[a-z0-9_-]+$/, 'Shortcode can only contain lowercase letters, numbers, underscores, and hyphens')
      .min(2, 'Shortcode must be between 2 and 50 characters')
      .max(50, 'Shortcode must be between 2 and 50 characters'),
  );

const title = singleLine(z.string({ message: 'Title is required' }).trim(), 'Title')
  .min(1, 'Title is required')
  .max(99, 'Title must be less than 100 characters');
const content = multiLine(z.string({ message: 'Content is required' }).trim(), 'Content')
  .min(1, 'Content is required')
  .max(2000, 'Content must be less than 2000 characters');
/** The form sends 'none' (or nothing) for "No Category". */
const category = z
  .union([z.string(), z.null()], { message: 'Category must be a category id or none' })
  .transform((value) => (value === null || value === '' || value === 'none' ? null : value));

export const createCannedSchema = z.object({ shortcode, title, content, category: category.default(null) }).strict();
export const updateCannedSchema = z.object({ shortcode, title, content, category }).partial().strict();

export const listCannedQuery = z
  .object({
    q: z.string().trim().max(200, 'Search text must be at most 200 characters').optional(),
    category: z.string().min(1).optional(),
    ...pageQuery(20),
  })
  .strict();

export const suggestionsQuery = z
  .object({
    q: z
      .string()
      .trim()
      .toLowerCase()
      .transform((value) => value.replace(/^#/, ''))
      .pipe(z.string().max(50, 'Search text must be at most 50 characters'))
      .default(''),
    limit: queryInt('limit', { min: 1, max: 50 }).default(10),
  })
  .strict();

export type CannedInput = z.output<typeof createCannedSchema>;
export type CannedChanges = z.output<typeof updateCannedSchema>;
