import type { SlaTarget } from '#contract/sla';
import type { SlaWarningKind } from '../../domain/sla/warnings';

/** Service-level timers: one delayed job per warning or breach of a running target (docs/sla.md). */
export const SLA_QUEUE = 'sla';

export interface SlaTimerJob {
  ticketId: string;
  target: SlaTarget;
  episode: number;
  kind: SlaWarningKind;
  /** When the warning is due (ms): the job waits for it in hops of at most SLA_TIMER_MAX_DELAY_MS. */
  at: number;
  hop: number;
}

/** Derived from what the timer is for: a replay, a re-arm on start or a second process adds nothing twice. */
export const slaTimerId = (job: SlaTimerJob) => `sla:${job.ticketId}:${job.target}:${job.episode}:${job.kind}:${job.at}:${job.hop}`;
