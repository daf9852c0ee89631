import { Router } from 'express';
import { z } from 'zod';
import { createCategorySchema, reorderCategoriesSchema, updateCategorySchema } from '#contract/categories';
import { NotFoundError } from '#contract/errors';
import { pageQuery } from '#contract/paging';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { createCategory, deleteCategory, reorderCategories, updateCategory } from '../../app/categories/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import { categoryStatistics } from '../tickets/stats';
import { scope } from '../http/scopes';

export const listCategoriesQuery = z.object({
  includeInactive: z.enum(['true', 'false'], { message: 'includeInactive must be true or false' }).optional(),
  ...pageQuery(20),
});

const toCategory = ({ _revision: _r, ...category }: CategoryView) => ({ ...category, routeTeamId: category.routeTeamId ?? null });

export const categoryRoutes = (deps: AppDeps) => (router: Router) => {
  const categories = () => deps.readStore.collection<CategoryView>(CATEGORIES);
  const context = (req: Parameters<typeof currentUser>[0]) => commandContext(deps, req);
  const load = async (id: string) => {
    const category = await categories().findOne({ _id: id });
    if (!category) throw new NotFoundError('Category');
    return toCategory(category);
  };

  router.get('/categories', scope('tickets:read'), requireRole(), async (req, res) => {
    const { includeInactive, ...page } = parse(listCategoriesQuery, req.query);
    const showInactive = includeInactive === 'true' && currentUser(req).role !== 'customer';
    const { items, pagination } = await findPage(categories(), showInactive ? {} : { isActive: true }, { order: 1, name: 1, _id: 1 }, page);
    res.json({ categories: items.map(toCategory), pagination });
  });

  router.get('/categories/stats', scope('tickets:read'), requireRole('agent', 'admin'), async (_req, res) => {
    res.json({ stats: await categoryStatistics(deps.readStore) });
  });

  router.get('/categories/:id', scope('tickets:read'), requireRole(), async (req, res) => {
    res.json({ category: await load(req.params.id as string) });
  });

  router.post('/categories', scope('admin'), requireRole('admin'), async (req, res) => {
    const input = parse(createCategorySchema, req.body);
    const categoryId = await createCategory(deps, input, context(req));
    res.status(201).json({ category: await load(categoryId) });
  });

  router.put('/categories/:id', scope('admin'), requireRole('admin'), async (req, res) => {
    const changes = parse(updateCategorySchema, req.body);
    const categoryId = req.params.id as string;
    await updateCategory(deps, categoryId, changes, context(req));
    res.json({ category: await load(categoryId) });
  });

  router.delete('/categories/:id', scope('admin'), requireRole('admin'), async (req, res) => {
    await deleteCategory(deps, req.params.id as string, context(req));
    res.status(204).end();
  });

  router.post('/categories/reorder', scope('admin'), requireRole('admin'), async (req, res) => {
    const { categoryOrders } = parse(reorderCategoriesSchema, req.body);
    await reorderCategories(deps, categoryOrders, context(req));
    const found = await categories().find({}, { sort: { order: 1, name: 1 } });
    res.json({ categories: found.map(toCategory) });
  });
};
