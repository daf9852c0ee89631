import { z } from 'zod';
import { multiLine, singleLine } from './text';
import { patternProblem } from './pattern';

export interface CustomField {
  fieldName: string;
  fieldType: 'text' | 'textarea' | 'number';
  prompt: string;
  placeholder: string;
  required: boolean;
  validation: { minLength?: number; maxLength?: number; min?: number; max?: number; pattern?: string };
  order: number;
}

export interface CategoryDetails {
  name: string;
  description: string;
  color: string;
  order: number;
  isActive: boolean;
  customFields: CustomField[];
  /** "Route new tickets to team" (docs/teams.md): the team this category's new tickets go to; absent or null for none. */
  routeTeamId?: string | null;
}

/** Input rules of docs/product.md section 5 for categories; shared by the API and the web forms. */
const trimmed = (max: number, label: string) => singleLine(z.string().trim(), label).max(max, `${label} must be at most ${max} characters`);
const paragraph = (max: number, label: string) => multiLine(z.string().trim(), label).max(max, `${label} must be at most ${max} characters`);

const customFieldSchema = z
  .object({
    fieldName: trimmed(50, 'Field name')
      .min(1, 'Field name is required')
      // Answers travel as an object keyed by field name, and JSON tools drop or misread this one key
      // (it is the prototype's accessor); every other name, `constructor` included, is stored safely.
      .refine((name) => name !== '__proto__', 'Field name __proto__ is reserved; please choose another name'),
    fieldType: z.enum(['text', 'textarea', 'number'], { message: 'Field type must be text, textarea or number' }),
    prompt: trimmed(200, 'Prompt').min(1, 'Prompt is required'),
    placeholder: trimmed(200, 'Placeholder').default(''),
    required: z.boolean().default(true),
    validation: z
      .object({
        minLength: z.number().int().min(0, 'Minimum length cannot be negative').optional(),
        maxLength: z.number().int().min(0, 'Maximum length cannot be negative').optional(),
        min: z.number().optional(),
        max: z.number().optional(),
        pattern: z
          .string()
          .superRefine((pattern, ctx) => {
            const problem = patternProblem(pattern);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .optional(),
      })
      .strict()
      .default({})
      .refine((v) => v.minLength === undefined || v.maxLength === undefined || v.minLength <= v.maxLength, {
        message: 'Minimum length cannot exceed maximum length',
      })
      .refine((v) => v.min === undefined || v.max === undefined || v.min <= v.max, {
        message: 'Minimum value cannot exceed maximum value',
      }),
    order: z.number().int().min(0).optional(),
  })
  .strict();

const categoryFields = {
  name: trimmed(100, 'Name').min(1, 'Name is required'),
  description: paragraph(500, 'Description').default(''),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'Colour must be a hex colour like #007bff')
    .default('#007bff'),
  order: z.number().int('Order must be a whole number').min(0, 'Order must be at least 0').default(0),
  isActive: z.boolean().default(true),
  customFields: z.array(customFieldSchema).max(20, 'A category can have at most 20 custom fields').default([]),
  routeTeamId: z.string({ message: 'routeTeamId must be a team id or null' }).min(1, 'routeTeamId must be a team id or null').nullable().optional(),
};

export const createCategorySchema = z
  .object(categoryFields)
  .strict()
  .refine((c) => new Set(c.customFields.map((f) => f.fieldName)).size === c.customFields.length, {
    message: 'Custom field names must be unique',
    path: ['customFields'],
  });

export const updateCategorySchema = z
  .object({
    name: categoryFields.name.optional(),
    description: paragraph(500, 'Description').optional(),
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'Colour must be a hex colour like #007bff')
      .optional(),
    order: z.number().int('Order must be a whole number').min(0, 'Order must be at least 0').optional(),
    isActive: z.boolean().optional(),
    customFields: categoryFields.customFields.optional(),
    routeTeamId: categoryFields.routeTeamId,
  })
  .strict();

export const reorderCategoriesSchema = z
  .object({
    categoryOrders: z
      .array(z.object({ id: z.string().min(1), order: z.number().int().min(0, 'Order must be at least 0') }).strict())
      .min(1, 'categoryOrders must list at least one category')
      .max(1000),
  })
  .strict();

export type CategoryInput = z.output<typeof createCategorySchema>;
export type CategoryChanges = z.output<typeof updateCategorySchema>;
