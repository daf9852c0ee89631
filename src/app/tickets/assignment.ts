import { setTimeout as sleep } from 'node:timers/promises';
import { OPEN_STATUSES, isOpenStatus } from '#contract/tickets';
import { isStaff } from '#contract/users';
import { teamDecider } from '../../domain/team/decide';
import { teamStream } from '../../domain/team/team';
import { teamTurnsDecider } from '../../domain/teamTurns/decide';
import { type TeamTurnsState, teamTurnsStream } from '../../domain/teamTurns/teamTurns';
import { ticketDecider } from '../../domain/ticket/decide';
import { ticketStream } from '../../domain/ticket/ticket';
import { userDecider } from '../../domain/user/decide';
import { userStream } from '../../domain/user/user';
import { type CommandContext, foldStream, handleCommand } from '../../platform/commands';
import { isWrongExpectedVersion } from '../../platform/eventstore/port';
import { TICKETS, type TicketView } from '../../projections/tickets';
import type { AppDeps } from '../deps';

/**
 * Automatic assignment inside a team (docs/teams.md). Every input is read from the streams that decide
 * it (the team, its members, the team's turns, the tickets it gave), except the tickets agents took by
 * hand, read from the tickets read model. The claim on the team's turns stream is appended expecting
 * the revision it was decided on: of two processes deciding at once, one wins and the other decides
 * again on the winner's claim, so no turn is given twice and no claim passes the cap.
 */

const SYSTEM: CommandContext['actor'] = { userId: 'system', role: 'system', platform: 'system' };
/** A lost race is decided again at once (the winner moved the stream); this bounds a pathological storm. */
const CLAIM_DEADLINE_MS = 60_000;

/** The members who take automatic assignments now: active staff who are Available. */
async function availableMembers(deps: AppDeps, members: string[]): Promise<string[]> {
  const users = await Promise.all(members.map(async (userId) => ({ userId, user: (await foldStream(deps.events, userStream(userId), userDecider)).state })));
  return users.filter(({ user }) => user.status === 'active' && isStaff(user.role) && user.availability === 'available').map(({ userId }) => userId);
}

/** Held tickets no longer open with the agent the team gave them to: closed, deleted, reassigned, or unassigned (returned) after the rule assigned them. */
async function releasedTickets(deps: AppDeps, turns: TeamTurnsState): Promise<Array<{ ticketId: string; agentId: string }>> {
  const held = await Promise.all(
    [...turns.held].map(async ([ticketId, agentId]) => ({
      ticketId,
      agentId,
      ticket: (await foldStream(deps.events, ticketStream(ticketId), ticketDecider)).state,
    })),
  );
  return held
    .filter(
      ({ agentId, ticket }) =>
        ticket.kind !== 'live' ||
        !isOpenStatus(ticket.status) ||
        (ticket.assignedAgentId !== agentId && (ticket.assignedAgentId !== null || ticket.assignedByRule)),
    )
    .map(({ ticketId, agentId }) => ({ ticketId, agentId }));
}

/** Per agent, their open tickets the team's turns do not hold: taken by hand or given by another team. */
async function otherOpenTickets(deps: AppDeps, agents: string[], turns: TeamTurnsState): Promise<Record<string, number>> {
  if (agents.length === 0) return {};
  const open = await deps.readStore
    .collection<TicketView>(TICKETS)
    .find({ 'assignedAgent._id': { $in: agents }, status: { $in: [...OPEN_STATUSES] } }, { projection: { _id: 1, assignedAgent: 1 } });
  const counts: Record<string, number> = {};
  for (const ticket of open) if (!turns.held.has(ticket._id)) counts[ticket.assignedAgent!._id] = (counts[ticket.assignedAgent!._id] ?? 0) + 1;
  return counts;
}

/**
 * Gives a ticket of the team to one of its agents when the team assigns automatically: the claim on
 * the team's turns stream, then the ticket's `AgentAssignedToTicket` with the rule, both by the system.
 * Answers the log position of the assignment (0 when the team assigns by hand or nobody is under the cap),
 * and whether the claim found nobody, so that a team's waiting tickets stop being tried.
 */
async function claimAndAssign(deps: AppDeps, ticketId: string, teamId: string, causationId?: string): Promise<{ position: number; nobody: boolean }> {
  const team = (await foldStream(deps.events, teamStream(teamId), teamDecider)).state;
  if (team.status !== 'active' || team.assignment.mode === 'manual') return { position: 0, nobody: true };
  const { mode, cap } = team.assignment;
  const context = (): CommandContext => ({ actor: SYSTEM, now: deps.clock(), ...(causationId ? { causationId } : {}) });
  const turns = (await foldStream(deps.events, teamTurnsStream(teamId), teamTurnsDecider)).state;
  const available = await availableMembers(deps, team.members);
  const [released, otherOpen] = await Promise.all([releasedTickets(deps, turns), otherOpenTickets(deps, available, turns)]);
  const command = { type: 'ClaimTeamTicket' as const, teamId, ticketId, mode, cap, members: team.members, available, otherOpen, released };
  const deadline = Date.now() + CLAIM_DEADLINE_MS;
  let claimed: TeamTurnsState;
  for (;;) {
    try {
      claimed = (await handleCommand(deps.events, teamTurnsStream(teamId), teamTurnsDecider, command, context(), { attempts: 1 })).state;
      break;
    } catch (error) {
      if (!isWrongExpectedVersion(error) || Date.now() > deadline) throw error;
      // A little jitter, so that the losers of one append do not all meet again at the next.
      await sleep(Math.random() * 3);
    }
  }
  const agentId = claimed.held.get(ticketId);
  if (agentId === undefined) return { position: 0, nobody: true };
  const rule = { teamId, teamName: team.name, mode };
  const assigned = await handleCommand(deps.events, ticketStream(ticketId), ticketDecider, { type: 'AssignByRule', ticketId, agentId, rule }, context());
  return { position: assigned.position, nobody: false };
}

/** A new ticket of the team finds its agent (docs/teams.md); answers the log position of the assignment, 0 for none. */
export async function assignByTeamRule(deps: AppDeps, ticketId: string, teamId: string, causationId?: string): Promise<number> {
  return (await claimAndAssign(deps, ticketId, teamId, causationId)).position;
}

/** More than this many waiting tickets are given at the next change that frees capacity: one pass stays short. */
const FILL_BATCH = 100;

/**
 * Gives a team's waiting tickets (open, with nobody) to its agents, oldest first, until nobody is under the
 * cap: run when capacity frees or someone comes back (docs/teams.md). Each goes through the same claim as a
 * new ticket, so two processes filling at once give no ticket twice. Answers how many were assigned.
 */
export async function fillTeam(deps: AppDeps, teamId: string, causationId?: string): Promise<number> {
  const team = (await foldStream(deps.events, teamStream(teamId), teamDecider)).state;
  if (team.status !== 'active' || team.assignment.mode === 'manual') return 0;
  const waiting = await deps.readStore
    .collection<TicketView>(TICKETS)
    .find(
      { 'team._id': teamId, assignedAgent: null, status: { $in: [...OPEN_STATUSES] } },
      { projection: { _id: 1 }, sort: { createdAt: 1 }, limit: FILL_BATCH },
    );
  let assigned = 0;
  for (const { _id } of waiting) {
    const { position, nobody } = await claimAndAssign(deps, _id, teamId, causationId);
    if (nobody) break;
    if (position > 0) assigned += 1;
  }
  return assigned;
}

/**
 * Returns an Offline agent's open tickets of the teams that assign automatically to those teams, then gives
 * each again by the team's mode (docs/teams.md). `ReturnToTeam` decides on the ticket's stream, so a second
 * process doing the same finds the ticket no longer with the agent and returns nothing; the claim that
 * follows is the one of new tickets.
 */
export async function returnAbsentAgentTickets(deps: AppDeps, agentId: string, graceSeconds: number, causationId?: string): Promise<number> {
  const open = await deps.readStore
    .collection<TicketView>(TICKETS)
    .find(
      { 'assignedAgent._id': agentId, status: { $in: [...OPEN_STATUSES] }, team: { $ne: null } },
      { projection: { _id: 1, team: 1 }, sort: { createdAt: 1 } },
    );
  const context = (): CommandContext => ({ actor: SYSTEM, now: deps.clock(), ...(causationId ? { causationId } : {}) });
  const automatic = new Map<string, Promise<{ teamName: string } | null>>();
  const teamOf = (teamId: string) => {
    if (!automatic.has(teamId))
      automatic.set(
        teamId,
        foldStream(deps.events, teamStream(teamId), teamDecider).then(({ state }) =>
          state.status === 'active' && state.assignment.mode !== 'manual' ? { teamName: state.name } : null,
        ),
      );
    return automatic.get(teamId)!;
  };
  let returned = 0;
  // The read model chooses the candidates; the ticket's stream decides (still open, in that team, with that agent).
  for (const { _id: ticketId, team: ticketTeam } of open) {
    const team = await teamOf(ticketTeam!._id);
    if (!team) continue;
    const back = { teamId: ticketTeam!._id, teamName: team.teamName, reason: 'offline' as const, graceSeconds };
    const result = await handleCommand(
      deps.events,
      ticketStream(ticketId),
      ticketDecider,
      { type: 'ReturnToTeam', ticketId, agentId, returned: back },
      context(),
    );
    if (result.events.length === 0) continue;
    returned += 1;
    await claimAndAssign(deps, ticketId, back.teamId, causationId);
  }
  return returned;
}
