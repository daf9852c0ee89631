import type { DomainEvent } from '../shared/decider';
import type { AssignmentMode } from '#contract/teams';

/**
 * One stream per team that assigns automatically: whose turn it is and which tickets the team gave whom.
 * Every automatic assignment is first claimed here with the stream's revision, so two processes deciding
 * at once are put in order by the log: the loser decides again on the winner's claim (docs/teams.md).
 */
export const teamTurnsStream = (teamId: string) => `teamturns-${teamId}`;

export type RuleMode = Exclude<AssignmentMode, 'manual'>;

export type TeamTurnsEvent =
  | DomainEvent<'TeamTicketClaimed', { teamId: string; ticketId: string; agentId: string; mode: RuleMode; cap: number | null; load: number }>
  /** Tickets the team gave that are no longer open with their agent: they stop counting against that agent's cap. */
  | DomainEvent<'TeamTicketsReleased', { teamId: string; ticketIds: string[] }>;

export interface TeamTurnsState {
  /** The agent the last claim went to: round-robin continues after them. */
  last: string | null;
  /** Ticket to agent, for the tickets the team gave that may still be open with that agent. */
  held: ReadonlyMap<string, string>;
}

export const initialState: TeamTurnsState = { last: null, held: new Map() };

export function evolve(state: TeamTurnsState, event: TeamTurnsEvent): TeamTurnsState {
  switch (event.type) {
    case 'TeamTicketClaimed':
      return { last: event.data.agentId, held: new Map([...state.held, [event.data.ticketId, event.data.agentId]]) };
    case 'TeamTicketsReleased': {
      const held = new Map(state.held);
      for (const ticketId of event.data.ticketIds) held.delete(ticketId);
      return { ...state, held };
    }
  }
}
