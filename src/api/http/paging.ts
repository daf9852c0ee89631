import type { Collection, Doc, Filter, Sort } from '../../platform/readstore/port';

/** One page of a list, answered as docs/contract.md's lists are: `{ <items>, pagination: { page, limit, total, pages } }`. */
export async function findPage<T extends Doc>(collection: Collection<T>, filter: Filter, sort: Sort, { page, limit }: { page: number; limit: number }) {
  const [items, total] = await Promise.all([collection.find(filter, { sort, skip: (page - 1) * limit, limit }), collection.count(filter)]);
  return { items, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
}
