import { z } from 'zod';

/**
 * A whole number in a query string: plain decimal digits only. `Number()` would read '' as 0,
 * '0x10' as 16 and '1e1' as 10, so a typo or a probe would silently mean something else.
 */
export const queryInt = (label: string, { min, max }: { min: number; max: number }) =>
  z
    .string({ message: `${label} must be a whole number` })
    .regex(/^\d+$/, `${label} must be a whole number`)
    // Digits past what a number holds exactly are out of range, not "no number".
    .transform((digits) => (digits.replace(/^0+(?=\d)/, '').length > 15 ? Number.MAX_VALUE : Number(digits)))
    .pipe(z.number().min(min, `${label} must be at least ${min}`).max(max, `${label} must be at most ${max}`));

/** `?page&limit` of docs/contract.md lists: limit at most 1000; each list picks its default page size. */
export const pageQuery = (defaultLimit: number) => ({
  page: queryInt('page', { min: 1, max: Number.MAX_SAFE_INTEGER }).default(1),
  limit: queryInt('limit', { min: 1, max: 1000 }).default(defaultLimit),
});
