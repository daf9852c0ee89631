import type { Router } from 'express';
import { feedQuery } from '#contract/events';
import type { AppDeps } from '../../app/deps';
import { readFeed } from '../../app/events/feed';
import { currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { seesNotes } from '../tickets/views';
import { scope } from '../http/scopes';

/** The event feed (docs/integrations.md): the ticket events the caller may see, after a log position, long-polling when nothing is new. */
export const eventFeedRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/events', scope('tickets:read'), requireRole(), async (req, res) => {
    const query = parse(feedQuery, req.query);
    const user = currentUser(req);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const page = await readFeed(
      deps,
      { id: user.id, role: user.role, notes: seesNotes(user) },
      {
        after: query.after,
        limit: query.limit,
        waitMs: query.wait * 1000,
        signal: gone.signal,
        ...(query.types ? { types: query.types } : {}),
      },
    );
    if (!res.writableEnded) res.json(page);
  });
};
