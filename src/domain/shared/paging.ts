import { z } from 'zod';

/** `?page&limit` of API.md lists: limit at most 1000; each list picks its default page size. */
export const pageQuery = (defaultLimit: number) => ({
  page: z.coerce.number({ message: 'page must be a whole number' }).int('page must be a whole number').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number({ message: 'limit must be a whole number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(1000, 'limit must be at most 1000')
    .default(defaultLimit),
});
