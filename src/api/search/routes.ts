import type { Router } from 'express';
import { searchQuery } from '#contract/search';
import type { AppDeps } from '../../app/deps';
import { searchIsCurrent, searchTickets } from '../../app/search/service';
import { currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { scopeWithNotes } from '../http/scopes';

/** Full-text search over the tickets and conversations the caller may see (docs/search.md). */
export const searchRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/search', scopeWithNotes('tickets:read'), requireRole(), async (req, res) => {
    const query = parse(searchQuery, req.query);
    const { id, role } = currentUser(req);
    await searchIsCurrent(deps.projections);
    res.json(await searchTickets(deps.readStore, { id, role }, query));
  });
};
