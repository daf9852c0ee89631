import type { Router } from 'express';
import { ForbiddenError } from '#contract/errors';
import { createViewSchema, updateViewSchema } from '#contract/views';
import { createView, deleteView, updateView, viewActor } from '../../app/views/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { scope } from '../http/scopes';
import { parse } from '../http/validate';
import { countView, isDefaultView, toSaved, visibleViews } from './visible';

const refuseDefault = (viewId: string) => {
  if (isDefaultView(viewId)) throw new ForbiddenError('The default views cannot be changed or deleted');
};

/** Staff only (customers are refused every route): saved views of Live Tickets and their counts (docs/views.md). */
export const viewRoutes = (deps: AppDeps) => (router: Router) => {
  const staff = requireRole('agent', 'admin');

  router.get('/views', scope('tickets:read'), staff, async (req, res) => {
    res.json({ views: await visibleViews(deps, await viewActor(deps, commandContext(deps, req))) });
  });

  /** The count beside each view, as the live channel's `view_counts` then keeps it. */
  router.get('/views/counts', scope('tickets:read'), staff, async (req, res) => {
    const user = currentUser(req);
    const views = await visibleViews(deps, await viewActor(deps, commandContext(deps, req)));
    const counts = await Promise.all(views.map((view) => countView(deps, view.filters, user)));
    res.json({ counts: Object.fromEntries(views.map((view, index) => [view._id, counts[index]!])) });
  });

  router.post('/views', scope('tickets:write'), staff, async (req, res) => {
    const input = parse(createViewSchema, req.body);
    res.status(201).json({ view: toSaved(await createView(deps, input, commandContext(deps, req))) });
  });

  router.put('/views/:id', scope('tickets:write'), staff, async (req, res) => {
    refuseDefault(req.params.id as string);
    const changes = parse(updateViewSchema, req.body);
    res.json({ view: toSaved(await updateView(deps, req.params.id as string, changes, commandContext(deps, req))) });
  });

  router.delete('/views/:id', scope('tickets:write'), staff, async (req, res) => {
    refuseDefault(req.params.id as string);
    await deleteView(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });
};
