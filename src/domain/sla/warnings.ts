import type { SlaTarget } from '#contract/sla';
import type { Role } from '#contract/users';
import type { TicketStatus } from '#contract/tickets';
import type { Decider, DomainEvent } from '../shared/decider';
import { type AppliedPolicy, type SlaClockState, appliedClock, evolveClock, initialClock } from './clock';

export type SlaWarningKind = 'warning' | 'breach';

/**
 * A target reached its warning share or its due time: recorded once per target, episode and kind in
 * the ticket's own stream, so two processes whose timers fire together append it once (the second
 * decides again on the stream that holds it and records nothing).
 */
export type SlaWarningEvent = DomainEvent<
  'SlaWarningRaised',
  { ticketId: string; target: SlaTarget; episode: number; kind: SlaWarningKind; dueAt: string; agentId: string | null }
>;

export type SlaWarningState =
  { kind: 'none' } | { kind: 'deleted' } | { kind: 'ticket'; ticketId: string; agentId: string | null; clock: SlaClockState; raised: string[] };

export type RaiseSlaWarning = { type: 'RaiseSlaWarning'; target: SlaTarget; episode: number; warning: SlaWarningKind; now: Date };

const key = (target: SlaTarget, episode: number, kind: SlaWarningKind) => `${target}:${episode}:${kind}`;

/** The ticket stream's events as recorded (a time in the metadata); those this decider appends itself need none. */
type Folded = DomainEvent & { metadata?: { occurredAt?: string } };

export function evolve(state: SlaWarningState, event: Folded): SlaWarningState {
  const data = event.data as Record<string, unknown>;
  const at = Date.parse(event.metadata?.occurredAt ?? new Date(0).toISOString());
  if (event.type === 'TicketOpened') return { kind: 'ticket', ticketId: String(data.ticketId), agentId: null, clock: initialClock(null), raised: [] };
  if (event.type === 'TicketDeleted') return { kind: 'deleted' };
  if (state.kind !== 'ticket') return state;
  switch (event.type) {
    case 'SlaPolicyApplied':
      return { ...state, clock: appliedClock(data as { policy: AppliedPolicy; startsAt?: string }, at) };
    case 'SlaPolicyReapplied':
      return { ...state, clock: evolveClock(state.clock, { type: 'PolicyChanged', at, policy: data.policy as AppliedPolicy }) };
    case 'TicketStatusChanged':
      return { ...state, clock: evolveClock(state.clock, { type: 'TicketStatusChanged', at, to: data.to as TicketStatus }) };
    case 'MessagePosted':
      return {
        ...state,
        clock: evolveClock(state.clock, { type: 'MessagePosted', at, senderRole: data.senderRole as Role, isInternal: Boolean(data.isInternal) }),
      };
    case 'AgentAssignedToTicket':
      return { ...state, agentId: String(data.agentId) };
    case 'AgentUnassignedFromTicket':
      return { ...state, agentId: null };
    case 'SlaWarningRaised':
      return { ...state, raised: [...state.raised, key(data.target as SlaTarget, Number(data.episode), data.kind as SlaWarningKind)] };
    default:
      return state;
  }
}

/**
 * Raises the warning only while it is true at `now`: the episode still runs (not met, not paused)
 * and its warning share (before the due time) or due time has passed. A timer that fires late after a pause, a reply or a
 * deletion records nothing; the timer planned for the new due time will.
 */
function decide(command: RaiseSlaWarning, state: SlaWarningState): SlaWarningEvent[] {
  if (state.kind !== 'ticket') return [];
  const clock = state.clock.clocks.find((candidate) => candidate.target === command.target && candidate.episode === command.episode);
  if (!clock || clock.completedAt !== null || clock.runningSince === null || clock.dueAt === null) return [];
  if (state.raised.includes(key(command.target, command.episode, command.warning))) return [];
  const now = command.now.getTime();
  // The warning share is reached at warnAt; once it is passed, warnAt is cleared and the due time is the later bound.
  // A warning that comes only once the due time has passed (a process down over its instant, a split of a
  // wait already too long) is not raised: "due soon" would be untrue, and the breach says it all.
  const reached = command.warning === 'breach' ? clock.dueAt <= now : ((clock.warnAt ?? clock.dueAt) <= now || clock.warnAt === null) && now < clock.dueAt;
  if (!reached) return [];
  const { ticketId, agentId } = state;
  return [
    {
      type: 'SlaWarningRaised',
      data: { ticketId, target: command.target, episode: command.episode, kind: command.warning, dueAt: new Date(clock.dueAt).toISOString(), agentId },
    },
  ];
}

export const slaWarningDecider: Decider<RaiseSlaWarning, SlaWarningEvent, SlaWarningState> = { decide, evolve, initialState: { kind: 'none' } };
