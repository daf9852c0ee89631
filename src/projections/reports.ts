import type { Logger } from 'pino';
import type { ResetReason, RunnerOptions } from './runner';

/**
 * What a projection runner tells the log: its errors, the events it records and skips, and why it
 * rebuilds, one line per reason (a first start on a log builds every read model). The same on the
 * app's thread and on its projection thread (thread.ts).
 */
export function runnerReports(logger: Logger): Pick<RunnerOptions, 'onReset' | 'onError' | 'onFailure'> {
  const resets = new Set<ResetReason>();
  return {
    onReset: (projection, reason) => {
      if (resets.has(reason)) return;
      resets.add(reason);
      if (reason === 'another log') logger.warn({ projection }, 'stored read models are of another event log: rebuilding them from this one');
      else logger.info({ projection, reason }, 'building read models from the event log');
    },
    onError: (error, event) => logger.error({ err: error, position: event?.position }, 'projection failed; retrying'),
    onFailure: (failure) =>
      logger.error(
        { projection: failure.projection, position: failure.position, eventType: failure.eventType, error: failure.error },
        'projection could not apply an event: recorded and skipped (GET /api/audit/projections/faults)',
      ),
  };
}
