import type { Router } from 'express';
import { feedQuery } from '#contract/events';
import type { AppDeps } from '../../app/deps';
import { type FeedViewer, LongPollLimit, readFeed } from '../../app/events/feed';
import { type AuthUser, currentUser, requireRole, userOfBearer } from '../http/auth';
import { parse } from '../http/validate';
import { seesNotes } from '../tickets/views';
import { scope } from '../http/scopes';

/** The event feed (docs/integrations.md): the ticket events the caller may see, after a log position, long-polling when nothing is new. */
export const eventFeedRoutes = (deps: AppDeps) => (router: Router) => {
  const longPolls = new LongPollLimit();
  const viewerOf = (user: AuthUser): FeedViewer => ({ id: user.id, role: user.role, notes: seesNotes(user) });

  router.get('/events', scope('tickets:read'), requireRole(), async (req, res) => {
    const query = parse(feedQuery, req.query);
    const user = currentUser(req);
    const release = query.wait > 0 ? longPolls.take(user.id) : () => undefined;
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const page = await readFeed(deps, viewerOf(user), {
        after: query.after,
        limit: query.limit,
        waitMs: query.wait * 1000,
        signal: gone.signal,
        // The caller is checked again after waiting: what happened meanwhile is not for a token revoked meanwhile.
        viewerNow: async () => viewerOf(await userOfBearer(deps, req.headers.authorization ?? '')),
        ...(query.types ? { types: query.types } : {}),
      });
      if (!res.writableEnded) res.json(page);
    } finally {
      release();
    }
  });
};
