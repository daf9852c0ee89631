import { z } from 'zod';
import { createCategorySchema, reorderCategoriesSchema, updateCategorySchema } from '#contract/categories';
import type { ApiRegistry } from '../openapi/registry';
import { Category, CategoryStat, Pagination } from '#contract/responses';
import { listCategoriesQuery } from './routes';
import { scope } from '../http/scopes';

const categoryAnswer = z.strictObject({ category: Category });

export function describeCategories(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  docs.route({
    method: 'get',
    path: '/categories',
    token: scope('tickets:read'),
    summary: 'List categories',
    access: 'signed-in',
    query: listCategoriesQuery,
    responses: { 200: { description: 'One page of categories', schema: z.strictObject({ categories: z.array(Category), pagination: Pagination }) } },
  });
  docs.route({
    method: 'get',
    path: '/categories/stats',
    token: scope('tickets:read'),
    summary: 'Tickets per category',
    access: ['agent', 'admin'],
    responses: {
      200: { description: 'Per category: tickets, open tickets, average resolution time', schema: z.strictObject({ stats: z.array(CategoryStat) }) },
    },
  });
  docs.route({
    method: 'get',
    path: '/categories/:id',
    token: scope('tickets:read'),
    summary: 'A category',
    access: 'signed-in',
    responses: { 200: { description: 'The category', schema: categoryAnswer } },
  });
  docs.route({
    method: 'post',
    path: '/categories',
    token: scope('admin'),
    summary: 'Create a category',
    access: admin,
    body: createCategorySchema,
    responses: { 201: { description: 'The new category', schema: categoryAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'put',
    path: '/categories/:id',
    token: scope('admin'),
    summary: 'Change a category',
    access: admin,
    body: updateCategorySchema,
    responses: { 200: { description: 'The category after the change', schema: categoryAnswer } },
    errors: [409],
  });
  docs.route({
    method: 'delete',
    path: '/categories/:id',
    token: scope('admin'),
    summary: 'Delete a category (not while tickets use it)',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
    errors: [409],
  });
  docs.route({
    method: 'post',
    path: '/categories/reorder',
    token: scope('admin'),
    summary: 'Reorder categories',
    access: admin,
    body: reorderCategoriesSchema,
    responses: { 200: { description: 'Every category in its new order', schema: z.strictObject({ categories: z.array(Category) }) } },
    // All must exist, or none moves: an unknown id is 404.
    errors: [404],
  });
}
