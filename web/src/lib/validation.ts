import type { z } from 'zod';

export type FieldErrors = Record<string, string>;

/**
 * Runs one of the server's own zod schemas over a form's values and answers the first message per
 * field (paths joined with dots, e.g. `customFields.0.prompt`), so the browser and the API say the
 * same thing in the same words.
 */
export function checkWith<S extends z.ZodType>(schema: S, value: unknown): { ok: true; data: z.output<S> } | { ok: false; errors: FieldErrors } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join('.') || '_form';
    errors[key] ??= issue.message;
  }
  return { ok: false, errors };
}
