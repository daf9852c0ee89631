import { z } from 'zod';
import { pageQuery } from './paging';

/** `GET /api/deliveries?page&limit`: every message on its way, and one page of the notices that failed for good (newest first). */
export const listDeliveriesQuery = z.object({ ...pageQuery(50) }).strict();
