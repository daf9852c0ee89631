import { countEventsAfter } from '../platform/eventstore/paging';
import { type FaultSummary, faultSummary } from '../projections/faults';
import type { RunnerTrouble } from '../projections/runner';
import type { AppDeps } from './deps';

/** Lag is counted event by event (log positions are bytes on EventStoreDB); beyond this it is a lower bound. */
const LAG_COUNTED_UP_TO = 1000;

export interface ProjectionStatus {
  live: boolean;
  /** The log position every read model has applied. */
  position: number;
  /** The position of the log's last event. */
  head: number;
  /** Events not yet applied, counted up to LAG_COUNTED_UP_TO (`exact` false beyond). */
  lag: number;
  exact: boolean;
  /** Events applied since this process started. */
  applied: number;
}

/** How far the read models are behind the log: the health check's and the metrics' figures. */
export async function projectionStatus(deps: Pick<AppDeps, 'projections' | 'events'>): Promise<ProjectionStatus> {
  // One moment's figures: the catch-up goes on while the awaits below run.
  const { position: reached, eventsProcessed: applied, isLive: live } = deps.projections;
  const head = await deps.events.headPosition();
  await deps.projections.observe();
  const position = Math.min(reached, head);
  const lag = await countEventsAfter(deps.events, position, LAG_COUNTED_UP_TO);
  return { live, position, head, lag: lag.count, exact: lag.exact, applied };
}

export interface ReadModelHealth extends FaultSummary, RunnerTrouble {
  /** One line per fault, naming the projection and why (health's `problems`); empty when the models follow the log. */
  problems: string[];
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What keeps the read models from being what the log says: conflicts and failures they recorded,
 * projections stalled behind the log, a catch-up being retried. Any of them makes health `degraded`.
 */
export async function readModelHealth(deps: Pick<AppDeps, 'projections' | 'readStore'>): Promise<ReadModelHealth> {
  const summary = await faultSummary(deps.readStore);
  const trouble = deps.projections.trouble();
  const problems = [
    ...summary.byProjection.map(({ projection, kind, field, count }) =>
      kind === 'conflict'
        ? `${projection}: ${plural(count, 'value')} of ${field} held by more than one document`
        : `${projection}: ${plural(count, 'event')} could not be applied and ${count === 1 ? 'was' : 'were'} skipped`,
    ),
    ...trouble.stalled.map(({ name, position, forMs }) => `${name}: stalled at log position ${position} for ${Math.round(forMs / 1000)} s while the log grew`),
    ...(trouble.retrying
      ? [`catch-up failing since ${trouble.retrying.since}, retrying (${trouble.retrying.attempts} attempts): ${trouble.retrying.error}`]
      : []),
  ];
  return { ...summary, ...trouble, problems };
}
