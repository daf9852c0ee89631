import type { Router } from 'express';
import { verifyLog } from '../../platform/eventstore/integrity';
import { allProjections } from '../../projections/all';
import { checkProjections } from '../../projections/check';
import { type ProjectionFault, faults } from '../../projections/faults';
import { readModelHealth } from '../../app/status';
import type { AppDeps } from '../../app/deps';
import type { ProjectionCheck, ProjectionFaults } from '#contract/readModels';
import { requireRole } from '../http/auth';
import { scope } from '../http/scopes';

const FAULTS_LISTED = 100;

/**
 * Proofs for administrators and auditors: the event log's hash chains, and the live read models
 * against a replay of the log from zero. Both read the whole log, so they take time on a big desk.
 */
export const auditRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/audit/verify', scope('admin'), requireRole('admin'), async (_req, res) => {
    res.json(await verifyLog(deps.events));
  });

  router.get('/audit/projections', scope('admin'), requireRole('admin'), async (_req, res) => {
    const livePosition = async () => {
      await deps.projections.waitFor(
        await deps.events.headPosition(),
        undefined,
        allProjections.map(({ name }) => name),
      );
      return deps.projections.allApplied;
    };
    const check: ProjectionCheck = await checkProjections(deps.events, allProjections, deps.readStore, { livePosition });
    res.json(check);
  });

  // What the read models recorded against the log (docs/read-models.md): conflicts with the value and
  // its holders in lookup order, skipped events with the error, and stalls. Oldest first, 100 of each.
  router.get('/audit/projections/faults', scope('admin'), requireRole('admin'), async (_req, res) => {
    const records = faults(deps.readStore);
    const listed = (kind: ProjectionFault['kind']) => records.find({ kind }, { sort: { position: 1, _id: 1 }, limit: FAULTS_LISTED });
    const [conflicts, failures, health] = await Promise.all([listed('conflict'), listed('failure'), readModelHealth(deps)]);
    const answer: ProjectionFaults = {
      conflicts: { count: health.conflicts, items: conflicts.filter((fault) => fault.kind === 'conflict') },
      failures: { count: health.failures, items: failures.filter((fault) => fault.kind === 'failure') },
      stalled: health.stalled,
      retrying: health.retrying,
      problems: health.problems,
    };
    res.json(answer);
  });
};
