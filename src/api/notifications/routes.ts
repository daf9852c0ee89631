import type { Router } from 'express';
import { listNotificationsQuery, staffDirectoryQuery } from '#contract/notifications';
import { listNotifications, markAllNotificationsRead, markNotificationRead, staffDirectory } from '../../app/notifications/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { noToken, scope } from '../http/scopes';
import { parse } from '../http/validate';

/** Staff's own notifications (docs/notifications.md, "Mentions"): personal, so not for API tokens. */
export const notificationRoutes = (deps: AppDeps) => (router: Router) => {
  const staff = requireRole('agent', 'admin');

  router.get('/notifications', noToken, staff, async (req, res) => {
    res.json(await listNotifications(deps, currentUser(req).id, parse(listNotificationsQuery, req.query)));
  });

  router.post('/notifications/read', noToken, staff, async (req, res) => {
    res.json({ unread: await markAllNotificationsRead(deps, commandContext(deps, req)) });
  });

  router.post('/notifications/:id/read', noToken, staff, async (req, res) => {
    res.json({ unread: await markNotificationRead(deps, String(req.params.id), commandContext(deps, req)) });
  });

  /** Who a note can mention: the composer's suggestions after `@`. */
  router.get('/staff', scope('tickets:read'), staff, async (req, res) => {
    const { q } = parse(staffDirectoryQuery, req.query);
    res.json({ staff: await staffDirectory(deps, q) });
  });
};
