import type { Decider } from '../shared/decider';
import { type RuleMode, type TeamTurnsEvent, type TeamTurnsState, evolve, initialState } from './teamTurns';

export interface ClaimTeamTicket {
  type: 'ClaimTeamTicket';
  teamId: string;
  ticketId: string;
  mode: RuleMode;
  cap: number | null;
  /** The team's members in the team's order: the round-robin circle. */
  members: string[];
  /** The members who take automatic assignments now (active staff, Available). */
  available: string[];
  /** Per agent, the open tickets assigned to them that this stream does not hold (taken by hand, or from another team). */
  otherOpen: Readonly<Record<string, number>>;
  /**
   * Held tickets found closed, deleted, with someone else or returned to the team when the command was built, each
   * with the agent it was held for: a claim made since (by another process) is a new holding and stays.
   */
  released: ReadonlyArray<{ ticketId: string; agentId: string }>;
}

export type TeamTurnsCommand = ClaimTeamTicket;

/** The members after `last` in the circle, `last` itself at the end: whose turn comes in which order. */
function turnOrder(members: string[], last: string | null): string[] {
  const at = last === null ? -1 : members.indexOf(last);
  return [...members.slice(at + 1), ...members.slice(0, at + 1)];
}

/**
 * Chooses the agent for a new ticket of the team: among the available members under the cap,
 * round-robin takes the next in turn after the last one chosen, least-loaded the one with the fewest
 * open tickets (the next in turn among equals). Nobody under the cap: no claim, the ticket waits.
 */
function claim(command: ClaimTeamTicket, state: TeamTurnsState): TeamTurnsEvent[] {
  const { teamId, ticketId, mode, cap } = command;
  const released = command.released.filter((held) => state.held.get(held.ticketId) === held.agentId).map((held) => held.ticketId);
  // Held and not released: the ticket is given already (a returned one is released first, then claimed again).
  if (state.held.has(ticketId) && !released.includes(ticketId)) return [];
  const events: TeamTurnsEvent[] = released.length > 0 ? [{ type: 'TeamTicketsReleased', data: { teamId, ticketIds: released } }] : [];
  const load = new Map<string, number>(command.members.map((agentId) => [agentId, command.otherOpen[agentId] ?? 0]));
  for (const [id, agentId] of state.held) if (!released.includes(id)) load.set(agentId, (load.get(agentId) ?? 0) + 1);
  const available = new Set(command.available);
  const eligible = turnOrder(command.members, state.last).filter((agentId) => available.has(agentId) && (cap === null || load.get(agentId)! < cap));
  const chosen =
    mode === 'round-robin'
      ? eligible[0]
      : eligible.reduce<string | undefined>((best, agentId) => (best === undefined || load.get(agentId)! < load.get(best)! ? agentId : best), undefined);
  if (chosen === undefined) return events;
  return [...events, { type: 'TeamTicketClaimed', data: { teamId, ticketId, agentId: chosen, mode, cap, load: load.get(chosen)! } }];
}

export function decide(command: TeamTurnsCommand, state: TeamTurnsState): TeamTurnsEvent[] {
  switch (command.type) {
    case 'ClaimTeamTicket':
      return claim(command, state);
  }
}

export const teamTurnsDecider: Decider<TeamTurnsCommand, TeamTurnsEvent, TeamTurnsState> = { decide, evolve, initialState };
