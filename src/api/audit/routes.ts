import type { Router } from 'express';
import { verifyLog } from '../../platform/eventstore/integrity';
import { allProjections } from '../../projections/all';
import { checkProjections } from '../../projections/check';
import type { AppDeps } from '../../app/deps';
import { requireRole } from '../http/auth';

/**
 * Proofs for administrators and auditors: the event log's hash chains, and the live read models
 * against a replay of the log from zero. Both read the whole log, so they take time on a big desk.
 */
export const auditRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/audit/verify', requireRole('admin'), async (_req, res) => {
    res.json(await verifyLog(deps.events));
  });

  router.get('/audit/projections', requireRole('admin'), async (_req, res) => {
    const livePosition = async () => {
      await deps.projections.waitFor(await deps.events.headPosition());
      return deps.projections.position;
    };
    res.json(await checkProjections(deps.events, allProjections, deps.readStore, { livePosition }));
  });
};
