import { countEventsAfter } from '../platform/eventstore/paging';
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
  const position = Math.min(reached, head);
  const lag = await countEventsAfter(deps.events, position, LAG_COUNTED_UP_TO);
  return { live, position, head, lag: lag.count, exact: lag.exact, applied };
}
