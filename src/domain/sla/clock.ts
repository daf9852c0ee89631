import type { SlaTarget, SlaTargetView, SlaTargets } from '#contract/sla';
import type { Role } from '#contract/users';
import type { TicketStatus } from '#contract/tickets';
import { type Hours, addBusiness, elapsedBusiness } from './calendar';

/** The policy a ticket follows, as it stood when the ticket opened: a copy, so a later change of the settings leaves the ticket alone. */
export interface AppliedPolicy {
  policyId: string;
  policyName: string;
  version: number;
  calendarName: string | null;
  hours: Hours;
  targets: SlaTargets;
  pauseStatuses: TicketStatus[];
  warnPercent: number;
}

/** One episode of one target: a first response, the reply to one customer message, one resolution. Instants in ms. */
export interface TargetClock {
  target: SlaTarget;
  episode: number;
  startedAt: number;
  targetMs: number;
  /** Business time counted before `runningSince` (the spans before each pause). */
  consumedMs: number;
  /** When the clock last started or resumed; null while paused or done. */
  runningSince: number | null;
  /** While running: when the target is due, and when the warning share is reached (null once passed or none). */
  dueAt: number | null;
  warnAt: number | null;
  completedAt: number | null;
  /** The instant the target passed, known once the clock stopped after it (a running clock is breached once `now` passes `dueAt`). */
  breachedAt: number | null;
}

export interface SlaClockState {
  policy: AppliedPolicy | null;
  status: TicketStatus;
  /** An agent replied to the customer since the last reply was asked for. */
  awaitingReply: boolean;
  agentReplied: boolean;
  clocks: TargetClock[];
}

/** The ticket events the clock folds, with the time each was recorded. */
export type ClockEvent =
  | { type: 'TicketOpened'; at: number }
  | { type: 'TicketStatusChanged'; at: number; to: TicketStatus }
  | { type: 'MessagePosted'; at: number; senderRole: Role; isInternal: boolean }
  /** The policy chosen again after a change of priority or category (docs/sla.md). */
  | { type: 'PolicyChanged'; at: number; policy: AppliedPolicy };

/** An event the fold passes over in any state, so nothing that reacts to moved clocks needs to look: an internal note. */
export const movesNoClock = (event: ClockEvent) => event.type === 'MessagePosted' && event.isInternal;

export const initialClock = (policy: AppliedPolicy | null): SlaClockState => ({
  policy,
  status: 'open',
  awaitingReply: false,
  agentReplied: false,
  clocks: [],
});

/**
 * The clocks as a ticket's `SlaPolicyApplied` starts them: at its `startsAt` when it names one (a
 * ticket split off another while its customer was already waiting, docs/sla.md), else at the event's
 * own time, the opening it was appended with.
 */
export const appliedClock = (applied: { policy: AppliedPolicy; startsAt?: string }, recordedAt: number): SlaClockState =>
  evolveClock(initialClock(applied.policy), { type: 'TicketOpened', at: applied.startsAt === undefined ? recordedAt : Date.parse(applied.startsAt) });

const isPaused = (state: SlaClockState, status = state.status) => state.policy?.pauseStatuses.includes(status) ?? false;
const isDone = (status: TicketStatus) => status === 'resolved' || status === 'closed';

function run(hours: Hours, warnPercent: number, clock: TargetClock, at: number): TargetClock {
  const left = clock.targetMs - clock.consumedMs;
  const warnLeft = (clock.targetMs * warnPercent) / 100 - clock.consumedMs;
  return {
    ...clock,
    runningSince: at,
    dueAt: left > 0 ? addBusiness(hours, at, left) : clock.breachedAt,
    warnAt: warnLeft > 0 ? addBusiness(hours, at, warnLeft) : null,
  };
}

function stop(hours: Hours, clock: TargetClock, at: number): TargetClock {
  if (clock.runningSince === null) return clock;
  const breachedAt = clock.breachedAt ?? (clock.dueAt !== null && clock.dueAt <= at ? clock.dueAt : null);
  return { ...clock, consumedMs: clock.consumedMs + elapsedBusiness(hours, clock.runningSince, at), runningSince: null, dueAt: null, warnAt: null, breachedAt };
}

const isOpen = (clock: TargetClock) => clock.completedAt === null;

/**
 * A new policy after a change of priority or category (docs/sla.md): an episode decided (met or breached at
 * its end) stays as it was; a running or paused one keeps its start and the business time it counted
 * under the old calendar, and takes the new policy's target for its kind (its old one when the new policy
 * has none). One whose counted time already passes the new target is breached at the change: the breach
 * is known from then, and no past report moves. A ticket that followed no policy starts its clocks at the change.
 */
function changePolicy(state: SlaClockState, next: AppliedPolicy, at: number): SlaClockState {
  const { policy } = state;
  if (!policy) {
    if (isDone(state.status)) return { ...state, policy: next };
    const started = appliedClock({ policy: next }, at);
    const clocks = state.agentReplied ? started.clocks.filter((clock) => clock.target === 'resolution') : started.clocks;
    const fresh = { ...state, policy: next, clocks };
    return isPaused(fresh) ? { ...fresh, clocks: clocks.map((clock) => stop(next.hours, clock, at)) } : fresh;
  }
  const changed = { ...state, policy: next };
  const paused = isPaused(changed);
  const clocks = state.clocks.map((clock) => {
    if (!isOpen(clock)) return clock;
    const minutes = next.targets[clock.target];
    const stopped = { ...stop(policy.hours, clock, at), targetMs: minutes === null ? clock.targetMs : minutes * 60_000 };
    const passed = stopped.breachedAt ?? (stopped.consumedMs >= stopped.targetMs ? at : null);
    const counted = { ...stopped, breachedAt: passed };
    return paused ? counted : run(next.hours, next.warnPercent, counted, at);
  });
  return { ...changed, clocks };
}

/** A pure fold: the same events, policy and calendar give the same due times, live or rebuilt, now or in a year. */
export function evolveClock(state: SlaClockState, event: ClockEvent): SlaClockState {
  if (event.type === 'PolicyChanged') return changePolicy(state, event.policy, event.at);
  const { policy } = state;
  if (!policy) return state;
  const { hours, warnPercent } = policy;
  const start = (target: SlaTarget, clocks: TargetClock[], at: number): TargetClock[] => {
    const minutes = policy.targets[target];
    if (minutes === null) return clocks;
    const episode = clocks.filter((clock) => clock.target === target).length + 1;
    const fresh: TargetClock = {
      target,
      episode,
      startedAt: at,
      targetMs: minutes * 60_000,
      consumedMs: 0,
      runningSince: null,
      dueAt: null,
      warnAt: null,
      completedAt: null,
      breachedAt: null,
    };
    return [...clocks, isPaused(state) ? fresh : run(hours, warnPercent, fresh, at)];
  };
  const complete = (clocks: TargetClock[], which: (clock: TargetClock) => boolean, at: number) =>
    clocks.map((clock) => (isOpen(clock) && which(clock) ? { ...stop(hours, clock, at), completedAt: at } : clock));
  switch (event.type) {
    case 'TicketOpened': {
      const clocks = start('resolution', start('firstResponse', [], event.at), event.at);
      return { ...state, status: 'open', clocks };
    }
    case 'MessagePosted': {
      if (movesNoClock(event) || isDone(state.status)) return state;
      if (event.senderRole !== 'customer') {
        const clocks = complete(state.clocks, (clock) => clock.target !== 'resolution', event.at);
        return { ...state, clocks, agentReplied: true, awaitingReply: false };
      }
      if (!state.agentReplied || state.awaitingReply) return state;
      return { ...state, awaitingReply: true, clocks: start('nextResponse', state.clocks, event.at) };
    }
    case 'TicketStatusChanged': {
      const { to, at } = event;
      if (isDone(to)) return { ...state, status: to, awaitingReply: false, clocks: complete(state.clocks, () => true, at) };
      let clocks = state.clocks;
      if (isDone(state.status)) {
        // A reopened ticket is a new resolution episode; the earlier one stays as it ended.
        clocks = start('resolution', clocks, at);
        return { ...state, status: to, clocks: isPaused(state, to) ? clocks.map((clock) => (isOpen(clock) ? stop(hours, clock, at) : clock)) : clocks };
      }
      const wasPaused = isPaused(state);
      const nowPaused = isPaused(state, to);
      if (!wasPaused && nowPaused) clocks = clocks.map((clock) => (isOpen(clock) ? stop(hours, clock, at) : clock));
      if (wasPaused && !nowPaused) clocks = clocks.map((clock) => (isOpen(clock) ? run(hours, warnPercent, clock, at) : clock));
      return { ...state, status: to, clocks };
    }
  }
}

/** One target as it stands at `now`: due, paused, met or breached, and the time left. */
export function viewTarget(clock: TargetClock, now: number): SlaTargetView {
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  const breachedAt = clock.breachedAt ?? (clock.dueAt !== null && clock.dueAt <= now ? clock.dueAt : null);
  const state =
    clock.completedAt !== null || clock.runningSince === null
      ? breachedAt !== null
        ? 'breached'
        : clock.completedAt !== null
          ? 'met'
          : 'paused'
      : breachedAt !== null
        ? 'breached'
        : 'running';
  const remainingMs =
    clock.completedAt !== null ? null : clock.runningSince === null ? clock.targetMs - clock.consumedMs : clock.dueAt === null ? null : clock.dueAt - now;
  return {
    target: clock.target,
    episode: clock.episode,
    state,
    startedAt: iso(clock.startedAt)!,
    targetMinutes: clock.targetMs / 60_000,
    dueAt: iso(clock.dueAt),
    remainingMs,
    completedAt: iso(clock.completedAt),
    breachedAt: iso(breachedAt),
  };
}

/** The latest episode of each target, the ones a ticket shows. */
export const currentClocks = (state: SlaClockState) =>
  state.clocks.filter((clock) => !state.clocks.some((other) => other.target === clock.target && other.episode > clock.episode));

/** The earliest due time among running targets, what Live Tickets sorts by; null when none runs. */
export const nextDueAt = (state: SlaClockState): number | null =>
  state.clocks.reduce<number | null>(
    (next, clock) => (isOpen(clock) && clock.runningSince !== null && clock.dueAt !== null && (next === null || clock.dueAt < next) ? clock.dueAt : next),
    null,
  );
