import type { z } from 'zod';
import { ValidationError } from '#contract/errors';

/**
 * Parses untrusted input with a shared zod schema. The first issue's message becomes the error
 * text (docs/product.md wordings live in the schemas); every issue is listed in `details`.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.join('.'),
    message: issue.code === 'unrecognized_keys' ? `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` : issue.message,
  }));
  throw new ValidationError(details[0]?.message ?? 'Invalid input', details);
}
