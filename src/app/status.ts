import { countEventsAfter } from '../platform/eventstore/paging';
import type { ReadStore } from '../platform/readstore/port';
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

/** How long health waits for the read store's fault records: a MongoDB that is away answers nothing for the driver's 30 s. */
export const STORE_ANSWER_MS = 700;

/** What `work` answered within `ms`, or null when it failed or took longer (it goes on unawaited). */
export async function answeredWithin<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([work.catch(() => null), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The fault records each store last answered with, shown while it does not answer. */
const lastSummary = new WeakMap<ReadStore, FaultSummary>();

export interface ReadModelHealth extends FaultSummary, RunnerTrouble {
  /** One line per fault, naming the projection and why (health's `problems`); empty when the models follow the log. */
  problems: string[];
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What keeps the read models from being what the log says: conflicts and failures they recorded,
 * projections stalled behind the log, a catch-up being retried, a read store that does not answer
 * (no process can apply the log to it, nor read it). Any of them makes health `degraded`.
 */
export async function readModelHealth(deps: Pick<AppDeps, 'projections' | 'readStore'>): Promise<ReadModelHealth> {
  const answered = await answeredWithin(faultSummary(deps.readStore), STORE_ANSWER_MS);
  if (answered) lastSummary.set(deps.readStore, answered);
  const summary = answered ?? lastSummary.get(deps.readStore) ?? { conflicts: 0, failures: 0, byProjection: [] };
  const trouble = deps.projections.trouble();
  const problems = [
    ...(answered ? [] : [`read store: not answering within ${STORE_ANSWER_MS / 1000} s`]),
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
